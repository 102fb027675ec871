/**
 * A verdict Argus sends with a key written twice is refused (issue 19, defect 9): the journal
 * entry `{"kind":"mission_failed","kind":"mission_complete"}` reads as a failure to a person and
 * as a completion to JSON.parse. Whether the repeated key is in the MCP message itself
 * (`structuredContent`, parsed by the transport) or only in the tool's JSON text, `argus_status`
 * answers `argus_bad_result`; the same answer with each key once reads fine. A raw stdio stub
 * plays Argus, so the bytes on the wire are exactly the test's.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArgusBridge, type ArgusBridge } from '../../adapters/argus/index.js';
import { recordFile, removeScratch, scratchDir } from '../fixtures/scratch.js';

let dir: string;
let stub: string;
const bridges: ArgusBridge[] = [];
beforeAll(async () => {
  dir = await scratchDir('argus-dup-');
  stub = path.join(dir, 'raw-argus.mjs');
  // Answers initialize, then every tools/call with argv[2], its "__ID__" replaced by the call's id.
  await writeFile(
    stub,
    [
      "import readline from 'node:readline';",
      'const rl = readline.createInterface({ input: process.stdin });',
      "const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');",
      "rl.on('line', (line) => {",
      '  const m = JSON.parse(line);',
      "  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw-stub', version: '0' } } });",
      "  else if (m.method === 'tools/call') process.stdout.write(process.argv[2].replace('\"__ID__\"', JSON.stringify(m.id)) + '\\n');",
      '});',
      "rl.on('close', () => process.exit(0));",
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await Promise.all(bridges.map((b) => b.close()));
  await removeScratch(dir);
});

const ENTRY_ONCE = '{"id":"j1","ts":1800000000,"kind":"mission_complete","title":"t","summary":"s","extra":{"item_id":"item-1","event_key":"c1:ev:1"}}';
const ENTRY_TWICE = '{"id":"j1","ts":1800000000,"kind":"mission_failed","kind":"mission_complete","title":"t","summary":"s","extra":{"item_id":"item-1","event_key":"c1:ev:1"}}';
const status = (entry: string) => `{"ok":true,"status":{"backlog_pending":[],"pending_questions":[],"journal":[${entry}],"daemon":{"alive":true}}}`;
/** The tool result as the wire carries it: as structuredContent, or only as JSON text. */
const structured = (payload: string) => `{"jsonrpc":"2.0","id":"__ID__","result":{"content":[],"structuredContent":${payload}}}`;
const textOnly = (payload: string) => `{"jsonrpc":"2.0","id":"__ID__","result":{"content":[{"type":"text","text":${JSON.stringify(payload)}}]}}`;

function bridgeAnswering(line: string): ArgusBridge {
  const log = recordFile('children', 'raw-argus-dup');
  const b = createArgusBridge({ command: process.execPath, args: [stub, line], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd: dir, callTimeoutMs: 10_000, log: (l) => log(`${l}\n`) });
  bridges.push(b);
  return b;
}

describe('a verdict with a repeated key', () => {
  it.each([
    ['in the MCP message (structuredContent)', structured],
    ['in the tool text only', textOnly],
  ])('%s: argus_bad_result; once each, the completion reads', async (_where, wire) => {
    const once = await bridgeAnswering(wire(status(ENTRY_ONCE))).status('s-0a1b2c3d');
    expect(once).toMatchObject({ ok: true, value: { journal: [{ kind: 'mission_complete', itemId: 'item-1', eventKey: 'c1:ev:1' }] } });
    const twice = await bridgeAnswering(wire(status(ENTRY_TWICE))).status('s-0a1b2c3d');
    expect(twice).toMatchObject({ ok: false, error: { code: 'argus_bad_result' } });
  });
});
