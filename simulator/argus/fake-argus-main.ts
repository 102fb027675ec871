/**
 * SIMULATED Argus MCP server entry point: `node dist/simulator/argus/fake-argus-main.js`,
 * speaking MCP on stdin/stdout like `python -m argus_skill.plugin.mcp_server`. Its state lives
 * under `ARGUS_SKILL_HOME`; each start is recorded there with its pid, argv and full
 * environment so tests can prove what reached it (and what did not).
 * @module
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFakeArgusServer } from './fake-argus.js';
import { FakeArgusStore } from './fake-argus-state.js';

const home = process.env.ARGUS_SKILL_HOME;
if (!home) {
  process.stderr.write('SIMULATED fake Argus: ARGUS_SKILL_HOME is required\n');
  process.exit(2);
}
new FakeArgusStore(home).record({ type: 'start', argv: process.argv, env: { ...process.env }, cwd: process.cwd() });
process.stderr.write(`SIMULATED fake Argus MCP server (not Argus) pid=${process.pid}\n`);

const server = createFakeArgusServer(home);
// stdin closing is how an MCP client says goodbye; leave even with a scripted sleep pending.
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
