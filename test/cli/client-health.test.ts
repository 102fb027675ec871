/**
 * `campaigns list` shows health (issue 20, item 2): a HEALTH column with the word (colour only
 * on a terminal, beside the word), worst first by default, `--health` filters (a value that
 * names nothing is a usage error), 80 columns kept; `campaigns get` shows the last error and
 * the remote's own message, marked untrusted.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { CLI_ENTRY, REPO_ROOT, createScope, until } from '../fixtures/supervisor-harness.js';
import { ok, startCliWorld, type CliWorld } from './cli-harness.js';

const scope = createScope();
let w: CliWorld;
const rows = (table: string) => table.trim().split('\n').slice(1).map((l) => l.split(/\s+/));

beforeAll(async () => {
  w = await startCliWorld(scope);
  const [failedTask] = await w.sim.tasks(1, 'failed');
  // Ids sort before the failed one, so only the health order puts it first.
  for (const id of ['a-plain', 'b-plain']) ok(await w.cli(['campaigns', 'create', '--id', id, '--objective', `objective of ${id}`]));
  ok(await w.cli(['campaigns', 'create', '--id', 'z-oom', '--objective', 'train until it fails', '--task', failedTask!]));
  await until(async () => {
    await w.cli(['act', 'z-oom', 'observe']);
    return JSON.parse(ok(await w.cli(['campaigns', 'get', 'z-oom', '--json']))).campaign.health === 'failed';
  }, 'the remote task failed', 20, 50);
}, 90_000);
afterAll(() => scope.dispose());

describe('campaigns list: health', () => {
  it('a HEALTH column, worst first, within 80 columns', async () => {
    const table = ok(await w.cli(['campaigns', 'list']));
    expect(table.split('\n')[0]).toMatch(/^CAMPAIGN\s+STATE\s+ATTENTION\s+HEALTH\s+STAGE\s+LEASE$/);
    for (const line of table.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(rows(table).map((r) => [r[0], r[3]])).toEqual([
      ['z-oom', 'failed'],
      ['a-plain', 'ok'],
      ['b-plain', 'ok'],
    ]);
    const wide = ok(await w.cli(['campaigns', 'list', '--wide']));
    expect(wide.split('\n')[0]).toMatch(/^CAMPAIGN\s+STATE\s+ATTENTION\s+HEALTH\s+STAGE\s+LEASE\s+PENDING$/);
  });

  it('--health keeps only matching rows; an unknown value is a usage error (exit 2)', async () => {
    expect(rows(ok(await w.cli(['campaigns', 'list', '--health', 'failed']))).map((r) => r[0])).toEqual(['z-oom']);
    expect(rows(ok(await w.cli(['campaigns', 'list', '--health', 'ok,done']))).map((r) => r[0])).toEqual(['a-plain', 'b-plain']);
    expect(ok(await w.cli(['campaigns', 'list', '--health', 'critical']))).toBe('No campaigns.\n');
    expect(rows(ok(await w.cli(['campaigns', 'list', '--health', 'failed,ok', '--limit', '1']))).map((r) => r[0])).toContain('z-oom');
    const bad = await w.cli(['campaigns', 'list', '--health', 'broken']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^usage: --health broken is not one of failed, critical, degraded, ok, done\n$/);
    const json = JSON.parse(ok(await w.cli(['campaigns', 'list', '--health', 'failed', '--json'])));
    expect(json.campaigns.map((c: { campaign_id: string; health: string }) => [c.campaign_id, c.health])).toEqual([['z-oom', 'failed']]);
  });

  it('colour on a terminal sits beside the word, never instead of it', () => {
    const r = recordSyncOutput(
      'cli-health-pty',
      spawnSync('script', ['-qec', `${process.execPath} ${CLI_ENTRY} campaigns list --health failed`, '/dev/null'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ARGUS_SUPERVISOR_URL: w.serve.address, ARGUS_SUPERVISOR_STATE_ROOT: w.stateRoot },
        encoding: 'utf8',
        timeout: 20_000,
      }),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\u001b\[31;1mfailed\s*\u001b\[0m/);
  });

  it('campaigns get shows the health, the last error and the remote’s own words, marked untrusted', async () => {
    const text = ok(await w.cli(['campaigns', 'get', 'z-oom']));
    expect(text).toMatch(/^health\s+failed {2}read failures 0$/m);
    expect(text).toMatch(/^remote says\s+\(untrusted\) Training failed at step \d+: CUDA error: out of memory/m);
  });
});
