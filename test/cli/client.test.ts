/**
 * The CLI client against a real `serve` child and a simulator child: tables by default,
 * `--json` that parses, the create → observe → claim → answer flow, one `<code>: <message>`
 * line and exit 1 for an API error (2 for a usage error, `server_unreachable` when nothing
 * listens), the local key read from the state root, and the key printed nowhere.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { spawnStreamingCli } from '../fixtures/cli-stream.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';
import { failed, ok, runCli, startCliWorld, type CliResult, type CliWorld } from './cli-harness.js';

const scope = createScope();
let w: CliWorld;
beforeAll(async () => {
  w = await startCliWorld(scope);
}, 60_000);
afterAll(async () => {
  // The key serve generated is in none of the client's outputs, raw or masked-free.
  const everything = w.results.map((r) => r.stdout + r.stderr).join('\n');
  expect(w.results.length).toBeGreaterThan(10);
  expect(everything.includes(w.key)).toBe(false);
  await scope.dispose();
});

const json = (r: CliResult) => JSON.parse(ok(r)) as Record<string, any>;

describe('campaigns and act, human and --json', () => {
  it('create, list, get, observe, claim: tables name state, attention, stage, lease and pending', async () => {
    const [task] = await w.sim.tasks(1, 'training');
    const created = ok(await w.cli(['campaigns', 'create', '--id', 'tbl-1', '--objective', 'Reach 76% top-1', '--task', task!, '--max-attempts', '4', '--wide']));
    expect(created.split('\n')[0]).toBe('created tbl-1');
    expect(created.split('\n')[1]).toMatch(/^CAMPAIGN\s+STATE\s+ATTENTION\s+HEALTH\s+STAGE\s+LEASE\s+PENDING$/);
    expect(created).toMatch(/^tbl-1\s+observing\s+idle\s+ok\s+-\s+-\s+-$/m);

    expect(ok(await w.cli(['act', 'tbl-1', 'observe']))).toMatch(/^observe tbl-1: ok \(changed/);
    const claim = ok(await w.cli(['act', 'tbl-1', 'claim', '--wide']));
    expect(claim).toMatch(/^claim tbl-1: ok \(lease epoch 1 until /);
    expect(claim).toMatch(/^tbl-1\s+controlling\s+idle\s+ok\s+\S+ #1\s+argus-openoperator e1 until \S+Z\s+-$/m);

    const list = ok(await w.cli(['campaigns', 'list']));
    expect(list).toMatch(/^tbl-1\s+controlling\s+/m);
    const get = ok(await w.cli(['campaigns', 'get', 'tbl-1']));
    expect(get).toMatch(/^state\s+controlling$/m);
    expect(get).toMatch(/^attempts\s+0 of 4$/m);
    expect(get).toMatch(/^chart\s+.*authority\.controlling/m);
    expect(get).toMatch(/^allowed\s+.*release/m);
  });

  it('--json is the API answer, parseable, for list, get (with chart.active), create, act and status', async () => {
    const [task] = await w.sim.tasks(1, 'training');
    const created = json(await w.cli(['campaigns', 'create', '--id', 'json-1', '--objective', 'o', '--task', task!, '--json']));
    expect(created).toMatchObject({ ok: true, campaign: { campaign_id: 'json-1', state: 'observing', max_attempts: 3 } });
    const observed = json(await w.cli(['act', 'json-1', 'observe', '--json']));
    expect(observed).toMatchObject({ ok: true, changed: true });
    const listed = json(await w.cli(['campaigns', 'list', '--json']));
    expect(listed.campaigns.map((c: { campaign_id: string }) => c.campaign_id)).toContain('json-1');
    const got = json(await w.cli(['campaigns', 'get', 'json-1', '--json']));
    expect(got.campaign.campaign_id).toBe('json-1');
    expect(got.chart.active).toEqual(expect.arrayContaining(['campaign', expect.stringMatching(/authority\.observing/)]));
    const status = json(await w.cli(['status', '--json']));
    expect(status.health).toMatchObject({ api_key_source: 'generated_local', enabled: true });
    expect(status.campaigns.length).toBeGreaterThan(0);
    expect(Array.isArray(status.events)).toBe(true);
    const events = ok(await w.cli(['events', '--campaign', 'json-1', '--json']));
    for (const line of events.trim().split('\n').filter(Boolean)) expect(JSON.parse(line).campaign_id).toBe('json-1');
  });

  it('a NEEDS_YOU is answered with act answer --question-key, and a stale key is refused', async () => {
    const [task] = await w.sim.tasks(1, 'blocker');
    ok(await w.cli(['campaigns', 'create', '--id', 'ask-1', '--objective', 'o', '--task', task!]));
    ok(await w.cli(['act', 'ask-1', 'claim']));
    let view: Record<string, any> = {};
    for (let i = 0; i < 10 && view.attention !== 'needs-you'; i++) view = json(await w.cli(['act', 'ask-1', 'observe', '--json'])).campaign;
    expect(view.attention).toBe('needs-you');
    expect(ok(await w.cli(['campaigns', 'list', '--wide']))).toMatch(/^ask-1\s+controlling\s+needs-you\s+.*question \(remote\): /m);
    const stale = failed(await w.cli(['act', 'ask-1', 'answer', '--text', 'yes', '--question-key', 'not-the-key']), 1, 'question_stale');
    expect(stale.length).toBeGreaterThan('question_stale: '.length);
    const answered = ok(await w.cli(['act', 'ask-1', 'answer', '--text', 'Yes: lower it to 1e-4.', '--question-key', view.pending_question.key]));
    expect(answered).toMatch(/^answer ask-1: ok \(outcome applied; request /);
    expect(answered).toMatch(/^ask-1\s+controlling\s+(?!needs-you)\S+/m);
  });
});

describe('errors: one line, a stable code, an exit code', () => {
  it('an API refusal is `<code>: <message>` on stderr and exit 1', async () => {
    failed(await w.cli(['act', 'nope', 'observe']), 1, 'campaign_not_found');
    failed(await w.cli(['campaigns', 'get', 'nope']), 1, 'campaign_not_found');
    const [task] = await w.sim.tasks(1, 'training');
    ok(await w.cli(['campaigns', 'create', '--id', 'err-1', '--objective', 'o', '--task', task!]));
    failed(await w.cli(['campaigns', 'create', '--id', 'err-1', '--objective', 'o']), 1, 'campaign_exists');
    ok(await w.cli(['act', 'err-1', 'claim']));
    const stale = failed(await w.cli(['act', 'err-1', 'submit', '--epoch', '9', '--text', 'x', '--json']), 1, 'lease_stale_epoch');
    expect(stale).toBe('lease_stale_epoch: The epoch does not match the lease this campaign holds; nothing was sent.');
    failed(await w.cli(['campaigns', 'create', '--id', 'err-2', '--objective', 'o', '--task', 'no-such-task']), 1, 'remote_task_not_found');
  });

  it('an observe whose read failed is read_failed, exit 1, never `ok`', async () => {
    const [task] = await w.sim.tasks(1, 'training');
    ok(await w.cli(['campaigns', 'create', '--id', 'read-1', '--objective', 'o', '--task', task!]));
    const armed = await fetch(`${w.sim.origin}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'http-5xx', count: 2, methods: ['GetTask', 'tasks/get'] }) });
    expect(armed.status).toBe(200);
    expect(failed(await w.cli(['act', 'read-1', 'observe']), 1, 'read_failed')).toMatch(/^read_failed: The remote status read failed \(remote_http_status\)/);
    // --json too: the failure is the API's error, on stderr, exit 1.
    failed(await w.cli(['act', 'read-1', 'observe', '--json']), 1, 'read_failed');
    await fetch(`${w.sim.origin}/_sim/faults`, { method: 'DELETE' });
    expect(ok(await w.cli(['act', 'read-1', 'observe']))).toMatch(/^observe read-1: ok \(/);
  });

  it('usage errors exit 2 before anything is sent', async () => {
    for (const args of [
      ['act', 'err-1', 'frobnicate'],
      ['act', 'err-1', 'submit', '--text', 'x'],
      ['act', 'err-1', 'observe', '--text', 'x'],
      ['act', 'err-1', 'release', '--epoch', 'one'],
      ['campaigns', 'create', '--objective', 'o'],
      ['act'],
    ]) {
      const r = await w.cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('nothing listening is server_unreachable; a wrong key is unauthorized and never printed', async () => {
    const gone = failed(await w.cli(['campaigns', 'list'], { ARGUS_SUPERVISOR_URL: 'http://127.0.0.1:9' }), 1, 'server_unreachable');
    expect(gone).toBe('server_unreachable: http://127.0.0.1:9 (ECONNREFUSED)');
    const wrong = canary('cli-wrong-key');
    const r = await w.cli(['status'], { ARGUS_SUPERVISOR_API_KEY: wrong });
    failed(r, 1, 'unauthorized');
    expect(r.stderr).not.toContain(wrong);
    const noKey = await runCli(['campaigns', 'list'], { ARGUS_SUPERVISOR_URL: w.serve.address, ARGUS_SUPERVISOR_STATE_ROOT: path.join(w.stateRoot, 'elsewhere') });
    failed(noKey, 1, 'api_key_missing');
  });
});

describe('events --follow', () => {
  it('prints the claim as it happens, then is killed', async () => {
    const [task] = await w.sim.tasks(1, 'training');
    ok(await w.cli(['campaigns', 'create', '--id', 'live-1', '--objective', 'o', '--task', task!]));
    ok(await w.cli(['act', 'live-1', 'observe']));
    const follow = spawnStreamingCli(scope, ['events', '--follow', '--campaign', 'live-1'], { ARGUS_SUPERVISOR_URL: w.serve.address, ARGUS_SUPERVISOR_STATE_ROOT: w.stateRoot }, 'cli-events-follow');
    await until(() => follow.out.includes('following '), 'the stream is open', 1000);
    expect(follow.out.split('\n')[0]).toMatch(/^following http:\/\/127\.0\.0\.1:\d+ \(revision \d+\); Ctrl-C stops$/);
    ok(await w.cli(['act', 'live-1', 'claim']));
    await until(() => /live-1 {2}campaign {2}state=controlling /.test(follow.out), 'the claim was printed', 1000);
    expect(follow.out).toMatch(/live-1 {2}campaign {2}state=controlling attention=idle .*lease=argus-openoperator_e1_until_\S+Z chart=authority\.controlling/);
    await follow.stop();
    expect(follow.err).toBe('');
    w.results.push({ code: 0, stdout: follow.out, stderr: follow.err });
  });
});
