/**
 * SIGKILL and restart of the real CLI (`node dist/bin/argus-supervisor.js serve`, so run
 * `npm run build` first): every campaign reloads, the restart creates no remote task and claims
 * nothing, the outbox continues its seqs without repeating an id or a dedupe key, and a kill in
 * the middle of many concurrent document writes leaves no torn document.
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

const scope = createScope();
afterEach(() => scope.dispose());
beforeAll(() => {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` first`);
});

const KEY = 'crash-test-api-key-5e1f0c';
const TOKEN = 'crash-test-remote-token-93ab';

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
  return loaded.filter((r) => r.ok && r.doc.remoteView !== null).length;
}

describe('serve, SIGKILLed and restarted on the same state root', () => {
  it('reloads every campaign, touches nothing remote, and continues the outbox', async () => {
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
    // P=2: three reads reach `train`, one STAGE_TRANSITION each.
    for (const id of ids) for (let i = 0; i < 3; i++) expect((await first.api('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);
    const before = new Map<string, CampaignDocument>();
    for (const id of ids) before.set(id, await readDocument(stateRoot, id));
    for (const doc of before.values()) expect(doc.outbox.events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION']);

    await killHard(first);

    const second = await spawnServe(scope, env, KEY);
    await initialSweepDone(second);
    const status = await second.api('status');
    const campaigns = status.json.campaigns as { campaign_id: string; corrupt: boolean; state: string; lease: { mode: string } }[];
    expect(campaigns.map((c) => c.campaign_id).sort()).toEqual(ids);
    for (const c of campaigns) expect(c).toMatchObject({ corrupt: false, state: 'observing', lease: { mode: 'observer' } });
    expect((status.json.events as { id: string }[]).map((e) => e.id).sort()).toEqual(ids.map((id) => `${id}:1`));

    // Carry every campaign to completion on the restarted process.
    for (const id of ids) for (let i = 0; i < 4; i++) expect((await second.api('campaign_action', { campaign_id: id, action: 'observe' })).status).toBe(200);
    for (const id of ids) {
      const doc = await readDocument(stateRoot, id);
      expect(doc.outbox.events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);
      // The pre-crash events are a prefix, unchanged; new ones continue the seq.
      expect(doc.outbox.events.slice(0, 1)).toEqual(before.get(id)!.outbox.events);
      expect(doc.outbox.events.map((e) => e.id)).toEqual([`${id}:1`, `${id}:2`, `${id}:3`]);
      expectCleanOutbox(doc);
      expect(doc.wake.totals.argus).toBe(1);
    }

    // Nothing remote was created, claimed or mutated by either process or the restart.
    const stats = sim.stats();
    expect(stats.tasksCreated).toBe(tasksCreated);
    expect(stats.mutationsApplied).toEqual({ submit: 0, cancel: 0, intervene: 0, claim: 0, renew: 0, release: 0 });
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
    // process as soon as a write holds a campaign lock, i.e. in the middle of that sweep.
    const proc = startServe(scope, env, KEY);
    const locks = path.join(stateRoot, 'locks');
    await until(async () => (await readdir(locks)).length > 0, 'a write in progress', 5000, 1);
    process.kill(proc.pid, 'SIGKILL');
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const observed = await expectIntact(stateRoot, ids);
    expect(observed).toBeLessThan(N); // the sweep really was cut short

    const next = await spawnServe(scope, env, KEY);
    expect((await next.api('health')).json.campaigns).toEqual({ total: N, corrupt: 0 });
    expect(sim.stats().tasksCreated).toBe(N);
    expect(sim.stats().mutationsApplied.claim).toBe(0);
  });

  it('a kill in the middle of many concurrent observe writes leaves no torn document', async () => {
    const N = 80;
    const { stateRoot, env, ids } = await seeded(N);
    const first = await spawnServe(scope, env, KEY);
    await initialSweepDone(first);

    // Every observe moves a stage (P=1), so every answer is a write; kill after a few answers.
    let answered = 0;
    const inFlight = ids.map((id) =>
      first.api('campaign_action', { campaign_id: id, action: 'observe' }).then(
        () => void answered++,
        () => undefined,
      ),
    );
    await until(() => answered >= 5, 'the first observe answers', 2000, 1);
    await killHard(first);
    await Promise.all(inFlight);
    expect(answered).toBeLessThan(N);

    await expectIntact(stateRoot, ids);
    const next = await spawnServe(scope, env, KEY);
    expect((await next.api('health')).json.campaigns).toEqual({ total: N, corrupt: 0 });
  });
});
