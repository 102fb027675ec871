/**
 * Attack on a deposed supervisor: another owner takes the state root (owner.json names another
 * claim with the next fence, what a takeover writes). From then on its actors are stopped, every
 * campaign call answers 503 `not_owner`, `/health` says so, and the remote receives nothing from
 * it: no heartbeat read or renewal, no operator observe, claim, release or submit. Counted on the
 * wire by a loopback proxy in front of the real simulator. A failed renewal of the right (the
 * owner lock's own periodic check) stops the actors the same way before anything is sent.
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateRootOwnership, type HostingRight, type Ownership } from '../../persistence/owner-lock.js';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';
import { countingProxy } from '../fixtures/counting-proxy.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, documentPath, envFor, httpCall, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());
const apiKey = 'k'.repeat(40);

/** A supervisor behind a counting proxy, with c1 (claimed: a lease to renew) and c2 (observed). */
async function deposable(ownershipAt?: (root: string) => Ownership) {
  const stateRoot = await tempStateRoot(scope);
  const ownership = ownershipAt?.(stateRoot);
  const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
  const proxy = scope.defer(await countingProxy(sim.origin), (p) => p.close());
  const url = `${proxy.origin}${new URL(sim.url).pathname}`;
  const { logger, lines } = captureLogs('info');
  const supervisor: Supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url, apiKey })), logger, ...(ownership ? { ownership } : {}) });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  scope.defer(supervisor, (s) => s.stop());
  const app = scope.defer(createHttpServer({ supervisor, apiKey, logger }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const post = (route: string, body: unknown) => httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': apiKey } });
  const [t1, t2] = sim.createTasks(2, 'training');
  for (const [id, task] of [['c1', t1], ['c2', t2]] as const) {
    expect((await post('campaigns', { action: 'create', campaign_id: id, objective: 'o', remote_task_id: task })).status).toBe(200);
    expect((await post('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);
  }
  const claimed = await post('campaign_action', { campaign_id: 'c1', action: 'claim' });
  expect(claimed.status, claimed.text).toBe(200);
  const epoch = (claimed.json as { lease: { epoch: number } }).lease.epoch;
  // The heartbeat has work before the takeover: reads of both and, once due, c1's renewal.
  expect((await supervisor.sweep()).ticked).toBe(2);
  return { stateRoot, sim, proxy, supervisor, base, post, epoch, lines };
}

async function takeOver(stateRoot: string): Promise<void> {
  const ownerFile = path.join(stateRoot, 'owner.json');
  const record = JSON.parse(await fsp.readFile(ownerFile, 'utf8')) as { pid: number; fencing: number };
  await fsp.writeFile(ownerFile, JSON.stringify({ ...record, pid: record.pid + 1, claimId: 'the-new-owner', fencing: record.fencing + 1 }));
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** Everything a deposed process is asked, through the HTTP API and the library. */
async function everyCall(w: Awaited<ReturnType<typeof deposable>>) {
  const answers = [
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' }),
    await w.post('campaign_action', { campaign_id: 'c2', action: 'claim' }),
    await w.post('campaign_action', { campaign_id: 'c1', action: 'release', epoch: w.epoch }),
    await w.post('campaign_action', { campaign_id: 'c1', action: 'submit', epoch: w.epoch, text: 'next attempt' }),
    await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' }),
    await w.post('campaigns', { action: 'get', campaign_id: 'c1' }),
    await w.post('campaigns', { action: 'list' }),
    await w.post('campaigns', { action: 'create', campaign_id: 'c3', objective: 'o', remote_task_id: 'task-x' }),
  ];
  const library = [await w.supervisor.observe('c2'), await w.supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })];
  return { answers, library };
}

function expectRefusedAndStopped(w: Awaited<ReturnType<typeof deposable>>, calls: Awaited<ReturnType<typeof everyCall>>): void {
  for (const answer of calls.answers) {
    expect([answer.status, answer.json.error?.code]).toEqual([503, 'not_owner']);
    expect(answer.json.error?.message).toMatch(/^[^.]+\.$/);
  }
  for (const result of calls.library) expect(result.ok ? 'ok' : result.error.code).toBe('not_owner');
  for (const host of w.supervisor.system!.hosts()) {
    expect({ id: host.id, running: host.running, status: host.getSnapshot().status }).toEqual({ id: host.id, running: false, status: 'stopped' });
  }
}

/** Every call and a sweep after the loss: nothing reaches the remote, all refused, every actor stopped. */
async function expectEveryCallRefused(w: Awaited<ReturnType<typeof deposable>>): Promise<void> {
  const sent = w.proxy.seen.length;
  const calls = await everyCall(w);
  await w.supervisor.sweep();
  await settle();
  expect(w.proxy.seen.slice(sent)).toEqual([]);
  expectRefusedAndStopped(w, calls);
}

/** The embedded owner lock itself; the test keeps its right only to run now the renewal its timer runs. */
function keepingRight() {
  let right: HostingRight | null = null;
  const ownershipAt = (root: string): Ownership => {
    const own = stateRootOwnership({ root });
    return {
      granularity: own.granularity,
      claim: async (scope) => {
        const claimed = await own.claim(scope);
        if (claimed.ok) right = claimed;
        return claimed;
      },
    };
  };
  return { ownershipAt, right: () => right };
}

describe('a supervisor whose right to host is taken over', () => {
  it('stops its actors, answers not_owner and sends the remote nothing more (heartbeat first)', { timeout: 20_000 }, async () => {
    const w = await deposable();
    const docs = await Promise.all(['c1', 'c2'].map((id) => fsp.readFile(documentPath(w.stateRoot, id))));
    await takeOver(w.stateRoot);
    const sent = w.proxy.seen.length;
    const remoteStats = w.sim.stats().requests;

    w.sim.advance();
    // The heartbeat's tick is where the takeover is found: its read is refused before it is written.
    await w.supervisor.sweep();
    // Stopped actors are not ticked at all.
    expect((await w.supervisor.sweep()).ticked).toBe(0);
    const calls = await everyCall(w);
    expect((await w.supervisor.sweep()).ticked).toBe(0);
    await settle();

    expect(w.proxy.seen.slice(sent)).toEqual([]);
    expect(w.sim.stats().requests).toEqual(remoteStats);
    expectRefusedAndStopped(w, calls);
    const health = await w.post('health', {});
    expect(health.json).toMatchObject({ hosting: { owner: false, deposed: true } });
    const liveness = await httpCall(`${w.base}/health`);
    expect([liveness.status, liveness.json.status]).toEqual([503, 'not_owner']);
    // Nothing was written after the takeover, and the loss was logged once.
    expect(await Promise.all(['c1', 'c2'].map((id) => fsp.readFile(documentPath(w.stateRoot, id))))).toEqual(docs);
    expect(w.lines.filter((l) => l.includes('state_root_taken_over'))).toHaveLength(1);
  });

  it('refuses the first operator call after the takeover too (no tick in between)', { timeout: 20_000 }, async () => {
    const w = await deposable();
    await takeOver(w.stateRoot);
    await expectEveryCallRefused(w);
  });

  it('a failed renewal of the right stops every actor at once, before anything is sent', { timeout: 20_000 }, async () => {
    const kept = keepingRight();
    const w = await deposable(kept.ownershipAt);
    await takeOver(w.stateRoot);
    expect(await kept.right()!.renew()).toMatchObject({ ok: false, code: 'hosting_lost' });
    // No call has been made since: the renewal alone stopped them.
    for (const host of w.supervisor.system!.hosts()) expect(host.running).toBe(false);
    expect(w.supervisor.health().hosting).toEqual({ owner: false, deposed: true, kind: 'state-root' });
    await expectEveryCallRefused(w);
  });

  it('a relay already on the wire when the right is lost answers mutation_in_doubt, not "nothing was changed"', { timeout: 20_000 }, async () => {
    const kept = keepingRight();
    const w = await deposable(kept.ownershipAt);
    const INTERVENE = 'opentraining.control/intervene';
    w.sim.injectFaults({ kind: 'slow', methods: [INTERVENE], delayMs: 1_500 });
    const answering = w.post('campaign_action', { campaign_id: 'c1', action: 'intervene', epoch: w.epoch, instruction: 'lower lr' });
    for (let i = 0; i < 300 && !w.proxy.seen.some((l) => l.endsWith(INTERVENE)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(w.proxy.seen.filter((l) => l.endsWith(INTERVENE))).toHaveLength(1);
    const sent = w.proxy.seen.length;
    await takeOver(w.stateRoot);
    expect(await kept.right()!.renew()).toMatchObject({ ok: false, code: 'hosting_lost' });
    const answer = await answering;
    expect([answer.status, answer.json.error?.code]).toEqual([502, 'mutation_in_doubt']);
    await w.supervisor.sweep();
    await settle();
    expect(w.proxy.seen.slice(sent)).toEqual([]);
  });
});
