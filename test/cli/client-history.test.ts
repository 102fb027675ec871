/**
 * `argus-supervisor campaigns history <campaign>` (issue 20, item 3) against a real serve child
 * and a real simulator child: the current state with the time in it, then one row per change
 * with its time (UTC, with its zone), cause, change and detail, in 80 columns (`--wide`: whole);
 * `--json` is the API's answer, `--limit` keeps the newest; an unknown campaign exits 1 with
 * `campaign_not_found`, a bad `--limit` is a usage error (exit 2) that sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { startCliWorld, type CliResult, type CliWorld } from './cli-harness.js';

const scope = createScope();
let w: CliWorld;
const ok = (r: CliResult) => {
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};
const failed = (r: CliResult, exit: number, code: string) => {
  expect(r.stdout).toBe('');
  expect(r.code).toBe(exit);
  expect(r.stderr).toMatch(new RegExp(`^${code}: [^\\n]+\\n$`));
};

beforeAll(async () => {
  w = await startCliWorld(scope);
  const [task] = await w.sim.tasks(1, 'steady');
  ok(await w.cli(['campaigns', 'create', '--id', 'hist-with-a-rather-long-campaign-id', '--objective', 'watch its history', '--task', task!]));
  for (const action of ['claim', 'pause', 'resume']) ok(await w.cli(['act', 'hist-with-a-rather-long-campaign-id', action]));
}, 90_000);
afterAll(() => scope.dispose());

describe('campaigns history', () => {
  it('prints the current state with the time in it, then each change with time, cause and detail, in 80 columns', async () => {
    const text = ok(await w.cli(['campaigns', 'history', 'hist-with-a-rather-long-campaign-id']));
    const lines = text.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'campaign  hist-with-a-rather-long-campaign-id',
      'state     observing · idle',
      expect.stringMatching(/^since {5}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+s in this state\)$/),
      '',
    ]);
    expect(lines[4]).toMatch(/^AT\s+CAUSE\s+CHANGE\s+DETAIL$/);
    const rows = lines.slice(5).map((l) => l.split(/ {2,}/));
    expect(rows.map((r) => r.slice(1))).toEqual([
      ['operator', 'created observing · idle', 'create'],
      ['operator', 'observing → controlling', 'claim'],
      ['operator', 'controlling → paused', 'pause'],
      ['operator', 'paused → observing', 'resume'],
    ]);
    for (const r of rows) expect(r[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('--limit keeps the newest changes; --json is the API answer, limited the same way', async () => {
    const limited = ok(await w.cli(['campaigns', 'history', 'hist-with-a-rather-long-campaign-id', '--limit', '1'])).trimEnd().split('\n');
    expect(limited).toHaveLength(6);
    expect(limited[5]).toMatch(/paused → observing\s+resume$/);
    const json = JSON.parse(ok(await w.cli(['campaigns', 'history', 'hist-with-a-rather-long-campaign-id', '--json', '--limit', '2'])));
    expect(json).toMatchObject({ ok: true, campaign_id: 'hist-with-a-rather-long-campaign-id', current: { state: 'observing', attention: 'idle' } });
    expect(json.history.map((e: { detail: string }) => e.detail)).toEqual(['pause', 'resume']);
    expect(json.current.since).toBe(json.history[1].at);
  });

  it('an unknown campaign exits 1 with campaign_not_found; a bad --limit or a missing id is a usage error (exit 2)', async () => {
    failed(await w.cli(['campaigns', 'history', 'nope']), 1, 'campaign_not_found');
    failed(await w.cli(['campaigns', 'history', 'nope', '--limit', '0']), 2, 'usage');
    failed(await w.cli(['campaigns', 'history']), 2, 'usage');
  });
});
