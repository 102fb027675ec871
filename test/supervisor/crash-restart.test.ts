/**
 * SIGKILL and restart of the real CLI (`node dist/bin/argus-supervisor.js serve`, so run
 * `npm run build` first): every campaign reloads, the restart creates no remote task and claims
 * nothing (a lease held before the kill is kept, decided by readback), the outbox continues its
 * seqs without repeating an id or a dedupe key, and a kill in the middle of many concurrent
 * document writes leaves no torn document.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { startSimulator } from '../../simulator/index.js';
import {
  CLI_ENTRY,
  createScope,
  envFor,
  attach,
  readDocument,
  spawnServe,
  startServe,
  startTestSupervisor,
  tempStateRoot,
  until,
  type ServeChild,
} from '../fixtures/supervisor-harness.js';
import { canary } from '../fixtures/canary.js';

const scope = createScope();
afterEach(() => scope.dispose());
beforeAll(() => {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` first`);
});

const KEY = canary('crash-api-key');
const TOKEN = canary('crash-remote-token');

/** The restarted process re-reads every campaign once at start; wait for that sweep to finish. */
const initialSweepDone = (child: ServeChild) =>
  until(async () => (await child.api('health')).json.last_tick != null, 'the initial sweep', 500, 10);

async function killHard(child: ServeChild): Promise<void> {
  process.kill(child.pid, 'SIGKILL');
  expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

function expectCleanOutbox(doc: CampaignDocument): void {
  const seqs = doc.outbox.events.map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  expect(doc.outbox.nextSeq).toBe(seqs.length + 1);
  expect(new Set(doc.outbox.events.map((e) => e.id)).size).toBe(seqs.length);
  expect(new Set(doc.outbox.events.map((e) => e.dedupeKey)).size).toBe(seqs.length);
  expect(new Set(doc.outbox.publishedKeys).size).toBe(doc.outbox.publishedKeys.length);
}

/** N campaigns attached to `training` tasks (P=1), created in process so only the kill is timed. */
async function seeded(N: number) {
  const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const tasks = sim.createTasks(N, 'training');
  const ids = tasks.map((_, i) => `k${String(i).padStart(3, '0')}`);
  const seeder = await startTestSupervisor(scope, { stateRoot, url: null });
  await Promise.all(ids.map((id, i) => attach(seeder.supervisor, id, tasks[i]!)));
  await seeder.supervisor.stop();
  return { sim, stateRoot, ids, env: envFor({ stateRoot, url: sim.url, apiKey: KEY }) };
}

/** Every document loads and validates; returns how many had been observed. */
async function expectIntact(stateRoot: string, ids: string[]): Promise<number> {
  const loaded = await (await openCampaignStore({ root: stateRoot })).loadAll();
  expect(loaded.filter((r) => !r.ok)).toEqual([]);
  expect(loaded.map((r) => r.id)).toEqual(ids);
  for (const r of loaded) if (r.ok) expectCleanOutbox(r.doc);
  // Only documents and (possibly) leftover temp files: never a half-written document.
  const names = await readdir(path.join(stateRoot, 'campaigns'));
  expect(names.filter((n) => !n.startsWith('.')).sort()).toEqual(ids.map((id) => `${id}.json`));
  expect(names.filter((n) => n.startsWith('.')).every((n) => n.endsWith('.tmp'))).toBe(true);
  // v2: the remote view lives in the persisted machine context (the one truth).
  return loaded.filter((r) => r.ok && (r.doc.machine.snapshot as { context: { remote: unknown } }).context.remote !== null).length;
}

describe('serve, SIGKILLed and restarted on the same state root', () => {
  it('reloads every campaign, reclaims nothing, touches nothing remote, and continues the outbox', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 2, token: TOKEN }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const env = envFor({ stateRoot, url: sim.url, token: TOKEN, apiKey: KEY });
    const ids = ['c0', 'c1', 'c2', 'c3'];
    const tasks = sim.createTasks(ids.length, 'training');
    const tasksCreated = sim.stats().tasksCreated;

    const first = await spawnServe(scope, env, KEY);
    for (const [i, id] of ids.entries()) {
      const r = await first.api('campaigns', { action: 'create', campaign_id: id, objective: `run ${i}`, remote_task_id: tasks[i] });
      expect(r.status).toBe(200);
    }
    // P=2: create's verifying read and two observes reach `train`, one STAGE_TRANSITION each.
    for (const id of ids) for (let i = 0; i < 2; i++) expect((await first.api('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);

    // c0 holds the controller lease when the process dies, so "reclaims nothing" can fail.
    const claimed = await first.api('campaign_action', { campaign_id: 'c0', action: 'claim' });
    expect(claimed.status).toBe(200);
    expect(claimed.json).toMatchObject({ ok: true, campaign: { state: 'controlling', lease: { mode: 'controller' } } });
    const lease = claimed.json.lease as { epoch: number; expires_at: string };
    const claimRequests = sim.stats().requests['opentraining.control/lease.claim'];
    expect(claimRequests).toBe(1);
    expect(sim.stats().mutationsApplied.claim).toBe(1);

    const before = new Map<string, CampaignDocument>();
    for (const id of ids) before.set(id, await readDocument(stateRoot, id));
    for (const doc of before.values()) expect(doc.outbox.events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION']);

    await killHard(first);

    const second = await spawnServe(scope, env, KEY);
    await initialSweepDone(second);
    // The restart sent no claim and applied none: the lease it holds is the one from before.
    expect(sim.stats().requests['opentraining.control/lease.claim']).toBe(claimRequests);
    expect(sim.stats().mutationsApplied.claim).toBe(1);

    const events = (await second.api('status')).json.events as { id: string }[];
    expect(events.map((e) => e.id).sort()).toEqual(ids.map((id) => `${id}:1`));

    // A fresh readback of c0 (the simulator's lease is unexpired) keeps it controlling, same epoch.
    const reread = await second.api('campaign_action', { campaign_id: 'c0', action: 'observe' });
    expect(reread.json).toMatchObject({
      ok: true,
      campaign: { state: 'controlling', lease: { mode: 'controller', epoch: lease.epoch, expires_at: lease.expires_at } },
    });
    const status = await second.api('status');
    const campaigns = status.json.campaigns as { campaign_id: string; corrupt: boolean; state: string; lease: { mode: string } }[];
    expect(campaigns.map((c) => c.campaign_id).sort()).toEqual(ids);
    for (const c of campaigns) {
      if (c.campaign_id === 'c0') expect(c).toMatchObject({ corrupt: false, state: 'controlling', lease: { mode: 'controller', epoch: lease.epoch } });
      else expect(c).toMatchObject({ corrupt: false, state: 'observing', lease: { mode: 'observer' } });
    }

    // Carry every campaign to completion on the restarted process (c0 already read once more).
    for (const id of ids) for (let i = 0; i < (id === 'c0' ? 3 : 4); i++) expect((await second.api('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);
    for (const id of ids) {
      const doc = await readDocument(stateRoot, id);
      expect(doc.outbox.events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);
      // The pre-crash events are a prefix, unchanged; new ones continue the seq.
      expect(doc.outbox.events.slice(0, 1)).toEqual(before.get(id)!.outbox.events);
      expect(doc.outbox.events.map((e) => e.id)).toEqual([`${id}:1`, `${id}:2`, `${id}:3`]);
      expectCleanOutbox(doc);
      expect(doc.wake.totals.argus).toBe(1);
    }

    // Nothing remote was created, claimed again or mutated by either process or the restart.
    const stats = sim.stats();
    expect(stats.tasksCreated).toBe(tasksCreated);
    expect(stats.requests['opentraining.control/lease.claim']).toBe(claimRequests);
    expect(stats.mutationsApplied).toEqual({ submit: 0, cancel: 0, intervene: 0, claim: 1, renew: 0, release: 0, answer: 0 });
    expect(stats.requests.SendMessage ?? 0).toBe(0);
    expect(stats.unauthorized).toBe(0);
    for (const line of [...first.stderr, ...second.stderr, ...first.stdout, ...second.stdout]) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(TOKEN);
    }
  });

  it('a kill in the middle of the restart sweep leaves no torn document', async () => {
    const N = 100;
    const { sim, stateRoot, env, ids } = await seeded(N);

    // The start-up sweep re-reads every campaign and writes each first observation; kill the
    // process as soon as a write holds a campaign lock, i.e. while that sweep is writing. How
    // far the sweep got is a race, so nothing below depends on it.
    const proc = startServe(scope, env, KEY);
    const locks = path.join(stateRoot, 'locks');
    await until(async () => existsSync(locks) && (await readdir(locks)).length > 0, 'a write in progress', 5000, 1);
    process.kill(proc.pid, 'SIGKILL');
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });

    await expectIntact(stateRoot, ids);

    const next = await spawnServe(scope, env, KEY);
    expect((await next.api('health')).json.campaigns).toEqual({ total: N, corrupt: 0 });
    expect(sim.stats().tasksCreated).toBe(N);
    expect(sim.stats().mutationsApplied.claim).toBe(0);
  });

  it('a kill at a fixed point of a mutation, amid many concurrent observe writes, leaves no torn document', async () => {
    const N = 80;
    const { sim, stateRoot, ids } = await seeded(N);
    // The process SIGKILLs itself right after journaling a mutation's intent: a deterministic
    // kill point, reached while the observe writes of the other campaigns are in flight.
    const env = envFor({ stateRoot, url: sim.url, apiKey: KEY, extra: { ARGUS_SUPERVISOR_FAULT_POINT: 'after_intent_write' } });
    const first = await spawnServe(scope, env, KEY);
    await initialSweepDone(first);
    const [target, ...others] = ids as [string, ...string[]];
    const claimed = await first.api('campaign_action', { campaign_id: target, action: 'claim' });
    expect(claimed.json).toMatchObject({ ok: true, campaign: { state: 'controlling' } });
    const epoch = (claimed.json.lease as { epoch: number }).epoch;

    // Every observe moves a stage (P=1), so every answer is a write. The target campaign is
    // left out so no observe write can race its mutation's journal entry.
    const inFlight = others.map((id) => first.api('campaign_action', { campaign_id: id, action: 'observe' }).then(() => undefined, () => undefined));
    const mutation = first.api('campaign_action', { campaign_id: target, action: 'intervene', epoch, instruction: 'halve the learning rate' });
    await expect(mutation).rejects.toThrow(); // the process died before answering
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await Promise.all(inFlight);

    await expectIntact(stateRoot, ids);
    // The kill landed exactly between the intent write and the send: journaled, never sent.
    const doc = await readDocument(stateRoot, target);
    expect(doc.intents.map((i) => ({ action: i.action, epoch: i.epoch, outcome: i.outcome }))).toEqual([{ action: 'intervene', epoch, outcome: null }]);
    expect(sim.stats().requests['opentraining.control/intervene'] ?? 0).toBe(0);
    expect(sim.stats().mutationsApplied).toMatchObject({ claim: 1, intervene: 0 });

    const next = await spawnServe(scope, env, KEY);
    expect((await next.api('health')).json.campaigns).toEqual({ total: N, corrupt: 0 });
    const summary = ((await next.api('status')).json.campaigns as { campaign_id: string; open_intent: unknown }[]).find((c) => c.campaign_id === target);
    expect(summary?.open_intent).toMatchObject({ action: 'intervene' });
  });
});
