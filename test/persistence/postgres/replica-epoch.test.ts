/**
 * End-to-end fencing of the remote on a replica takeover (issue 22 part 4), in one process: the
 * real runtime, the real simulator, the real database. Replica A controls a campaign (epoch 1
 * at the simulator) and is cut off from the database; B takes the campaign over and, before
 * anything else, reads the lease back and claims again: the remote now holds epoch 2 for our
 * controller (the replicas share it), so what A may still send with epoch 1 is refused as stale
 * and never applied. If the remote shows another holder, B gives control up (control-lost).
 * The same when A's mutation was on the wire when A lost the campaign: B restores it in doubt,
 * rotates first, and the request that lands afterwards is refused; B resolves it by readback.
 * And a campaign imported from a file state root is rotated by its first replica.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../../adapters/a2a/index.js';
import { CONTROL_METHODS } from '../../../adapters/a2a/control-contract.js';
import { importStateRoot } from '../../../persistence/postgres/import-state-root.js';
import { RIVAL_CONTROLLER_ID, startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { attach, createScope, startTestSupervisor, tempStateRoot, until } from '../../fixtures/supervisor-harness.js';
import { cutFromDatabase, startReplica, type Replica } from './support/replica.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());

const US = 'argus-openoperator';
const replica = (sim: RunningSimulator) => startReplica(scope, pgf, sim, { ttlMs: 1_500 });
const snapshotOf = (r: Replica, id: string) => r.supervisor.system?.host(id)?.getSnapshot();

/** A controls `id` (claimed: epoch 1 at the simulator), then loses the database and every campaign. */
async function controlledThenPartitioned(sim: RunningSimulator, id: string): Promise<{ a: Replica; taskId: string; contextId: string }> {
  const a = await replica(sim);
  const [taskId] = sim.createTasks(1, 'training');
  await attach(a.supervisor, id, taskId!);
  expect(await a.supervisor.campaignAction({ campaign_id: id, action: 'claim' })).toMatchObject({ ok: true, value: { lease: { epoch: 1 } } });
  const contextId = snapshotOf(a, id)!.context.lease!.contextId;
  expect(sim.lease(contextId)).toMatchObject({ holder: US, epoch: 1 });
  cutFromDatabase(a);
  await until(() => a.hosted().length === 0, 'A loses the campaign at its deadline', 200, 25);
  return { a, taskId: taskId!, contextId };
}

describe('a replica takeover rotates the remote epoch', () => {
  it('B rotates to epoch 2 before anything else; a mutation with A\'s epoch 1 is refused as stale, never applied', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    const { taskId, contextId } = await controlledThenPartitioned(sim, 'e0');
    const ledgerFrom = sim.ledger().nextSeq;

    const b = await replica(sim);
    await until(() => snapshotOf(b, 'e0')?.context.lease?.epoch === 2, 'B rotates the epoch', 240, 25);
    expect(b.supervisor.activeStates('e0')).toContain('campaign.active.authority.controlling.ready');
    expect(sim.lease(contextId)).toMatchObject({ holder: US, epoch: 2 });
    // Before anything else: the first thing B sent for the campaign was the lease readback, then the re-claim.
    const sent = sim.ledger(ledgerFrom).entries.map((e) => [e.method, e.disposition]);
    expect(sent[0]).toEqual(['opentraining.control/lease.claim', 'applied']);

    // What A's stale in-flight send looks like: our controller id, A's epoch 1, straight to the remote.
    const statsBefore = sim.stats();
    const raw = createA2AClient({ baseUrl: sim.url, connections: 1 });
    try {
      const stale = await raw.control.intervene({ taskId, instruction: 'lower the learning rate', authority: { controllerId: US, epoch: 1, requestId: 'stale-from-a' } });
      expect(stale.ok).toBe(false);
      if (!stale.ok) expect(stale.error.code).toBe('lease_stale_epoch');
    } finally {
      await raw.close();
    }
    const stats = sim.stats();
    expect(stats.staleMutationsRejected).toBe(statsBefore.staleMutationsRejected + 1);
    expect(stats.staleMutationsApplied).toBe(0);
    expect(stats.mutationsApplied.intervene).toBe(0);
    expect(sim.ledger(ledgerFrom).entries.filter((e) => e.requestId === 'stale-from-a').map((e) => [e.disposition, e.reason])).toEqual([['rejected', 'lease_stale_epoch']]);

    // B's own authority is the new epoch: its intervene goes through.
    const ok = await b.supervisor.campaignAction({ campaign_id: 'e0', action: 'intervene', epoch: 2, instruction: 'raise the batch size' });
    expect(ok).toMatchObject({ ok: true });
    expect(sim.stats().mutationsApplied.intervene).toBe(1);
  });

  it('a takeover that finds another holder at the remote goes control-lost and claims nothing', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    const { contextId } = await controlledThenPartitioned(sim, 'e1');
    sim.takeover(contextId, RIVAL_CONTROLLER_ID);
    const claimsBefore = sim.stats().mutationsApplied.claim;

    const b = await replica(sim);
    await until(() => b.supervisor.activeStates('e1')?.includes('campaign.active.authority.control-lost') === true, 'B gives control up', 240, 25);
    expect(snapshotOf(b, 'e1')!.context.lastErrorCode).toBe('lease_lost_readback');
    expect(sim.stats().mutationsApplied.claim).toBe(claimsBefore);
    expect(sim.lease(contextId)).toMatchObject({ holder: RIVAL_CONTROLLER_ID });
  });

  it('in doubt: A\'s intervene is on the wire when A loses the campaign; B rotates before it lands, so it is refused; B resolves it by readback, never resends', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    const a = await replica(sim);
    const [taskId] = sim.createTasks(1, 'training');
    await attach(a.supervisor, 'e2', taskId!);
    expect(await a.supervisor.campaignAction({ campaign_id: 'e2', action: 'claim' })).toMatchObject({ ok: true, value: { lease: { epoch: 1 } } });
    const contextId = snapshotOf(a, 'e2')!.context.lease!.contextId;
    // A journals its intervene and sends it; the simulator parks the request (a slow network).
    const parked = sim.hold([CONTROL_METHODS.intervene]);
    void a.supervisor.campaignAction({ campaign_id: 'e2', action: 'intervene', epoch: 1, instruction: 'lower the learning rate' }).catch(() => undefined);
    await until(() => sim.holding === 1, 'A\'s intervene on the wire', 200, 25);
    cutFromDatabase(a);
    await until(() => a.hosted().length === 0, 'A loses the campaign at its deadline', 200, 25);
    const ledgerFrom = sim.ledger().nextSeq;

    const b = await replica(sim);
    // Restored in doubt (the journal holds A's intent, with no outcome), and rotated there.
    await until(() => snapshotOf(b, 'e2')?.context.lastEpoch === 2, 'B rotates the epoch in doubt', 240, 25);
    expect(b.supervisor.activeStates('e2')).toContain('campaign.active.authority.ambiguous-intent.unresolved');
    expect(sim.lease(contextId)).toMatchObject({ holder: US, epoch: 2 });
    const requestId = snapshotOf(b, 'e2')!.context.pendingIntent!.requestId;

    // A's request lands now, with epoch 1: refused as stale, never applied.
    expect(parked.release()).toBe(1);
    await until(() => sim.ledger(ledgerFrom).entries.some((e) => e.requestId === requestId), 'A\'s request served', 200, 25);
    expect(sim.ledger(ledgerFrom).entries.filter((e) => e.requestId === requestId).map((e) => [e.disposition, e.reason])).toEqual([['rejected', 'lease_stale_epoch']]);
    expect(sim.stats().mutationsApplied.intervene).toBe(0);
    expect(sim.stats().staleMutationsApplied).toBe(0);

    // B resolves by readback: not applied, and nothing is sent again.
    expect(await b.supervisor.campaignAction({ campaign_id: 'e2', action: 'resolve_intent' })).toMatchObject({ ok: true, value: { request_id: requestId, status: 'not_applied' } });
    expect(b.supervisor.activeStates('e2')).toContain('campaign.active.authority.observing');
    expect(sim.ledger(ledgerFrom).entries.filter((e) => e.requestId === requestId)).toHaveLength(1);
    expect(sim.stats().mutationsApplied.intervene).toBe(0);
  });

  it('a campaign imported from a file state root (import claims it first) is rotated by the first replica that hosts it', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    // The file store controls it at epoch 1; that process may still send with epoch 1 later.
    const stateRoot = await tempStateRoot(scope);
    const file = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'training');
    await attach(file.supervisor, 'e3', taskId!);
    expect(await file.supervisor.campaignAction({ campaign_id: 'e3', action: 'claim' })).toMatchObject({ ok: true, value: { lease: { epoch: 1 } } });
    const contextId = sim.task(taskId!)!.contextId;
    await file.supervisor.stop();
    const imported = await importStateRoot({ stateRoot, db: await pgf.db() });
    expect(imported).toMatchObject({ ok: true, imported: [{ id: 'e3', fence: 1 }] });

    const b = await replica(sim);
    await until(() => snapshotOf(b, 'e3')?.context.lease?.epoch === 2, 'the first replica rotates the epoch', 240, 25);
    expect(b.supervisor.activeStates('e3')).toContain('campaign.active.authority.controlling.ready');
    expect(sim.lease(contextId)).toMatchObject({ holder: US, epoch: 2 });
  });
});
