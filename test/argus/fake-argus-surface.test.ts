/**
 * The SIMULATED Argus server offers Argus's own surface (argus_skill/plugin/mcp_server.py at
 * microsoft/ArgusAgent@455da6cb): the seven tool names with their argument names, labelled
 * simulated; and its decision-file naming agrees with the adapter's `eventKeyFileName`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { eventKeyFileName } from '../../adapters/argus/proposal-file.js';
import { fakeEventKeyFileName } from '../../simulator/argus/fake-argus-state.js';
import { recordFile } from '../fixtures/scratch.js';
import { FAKE_ARGUS_MAIN, fakeArgus, type FakeFixture } from './fake-argus-fixture.js';

const fixtures: FakeFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.dispose()));
});

describe('the fake’s MCP surface', () => {
  it('lists exactly Argus’s tools with Argus’s argument names, and says it is simulated', async () => {
    const f = await fakeArgus();
    fixtures.push(f);
    const transport = new StdioClientTransport({ command: process.execPath, args: [FAKE_ARGUS_MAIN], env: f.env, cwd: f.home, stderr: 'pipe' });
    const record = recordFile('children', 'fake-argus-surface.stderr');
    transport.stderr?.on('data', (c: Buffer) => record(c));
    const client = new Client({ name: 'surface-test', version: '0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const surface = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {}).sort()]));
      expect(surface).toEqual({
        argus_project_create: ['name', 'workdir'],
        argus_project_list: ['workdir'],
        argus_message: ['project_id', 'text'],
        argus_status: ['project_id'],
        argus_doctor: ['project_id'],
        argus_stop: ['force', 'project_id'],
        argus_artifacts: ['project_id'],
      });
      expect(tools.every((t) => t.description?.startsWith('SIMULATED'))).toBe(true);
      expect(client.getServerVersion()?.version).toContain('SIMULATED');
      const created = (await client.callTool({ name: 'argus_project_create', arguments: { workdir: f.workdir } })).structuredContent as { project: { sid: string } };
      const doctor = (await client.callTool({ name: 'argus_doctor', arguments: { project_id: created.project.sid } })).structuredContent;
      expect(JSON.stringify(doctor)).toContain('SIMULATED');
      const status = (await client.callTool({ name: 'argus_status', arguments: { project_id: created.project.sid } })).structuredContent as { status: Record<string, unknown> };
      expect(Object.keys(status.status).sort()).toEqual(['active_role', 'backlog_pending', 'continuous', 'daemon', 'identity', 'inbox_pending', 'journal', 'pending_questions', 'request_usage', 'roles']);
      expect(status.status.identity).toMatch(/^SIMULATED/);
      const listed = (await client.callTool({ name: 'argus_project_list', arguments: { workdir: f.workdir } })).structuredContent as { projects: { id: string }[] };
      expect(listed.projects.map((p) => p.id)).toEqual([created.project.sid]);
    } finally {
      await client.close();
    }
  });
});

describe('decision file names', () => {
  it('map `:` to `_` and refuse anything that is not an event key', () => {
    expect(fakeEventKeyFileName('camp-1:ev:7')).toBe('camp-1_ev_7');
    expect(fakeEventKeyFileName('a.b-c_d')).toBe('a.b-c_d');
    for (const bad of ['', 'a/b', '../x', 'a b', 'k'.repeat(129), 'é']) expect(() => fakeEventKeyFileName(bad), bad).toThrow(RangeError);
  });

  it('agree with adapters/argus/proposal-file.ts eventKeyFileName', () => {
    for (const key of ['camp-1:ev:7', 'a.b-c_d', 'x:y:z', 'K'.repeat(128), '::', 'a-1.2_3:4']) expect(eventKeyFileName(key)).toBe(fakeEventKeyFileName(key));
  });
});
