/**
 * End-to-end fencing of the remote on a replica takeover (issue 22 part 4), in one process: the
 * real runtime, the real simulator, the real database. Replica A controls a campaign (epoch 1
 * at the simulator) and is cut off from the database; B takes the campaign over and, before
 * anything else, reads the lease back and claims again: the remote now holds epoch 2 for our
 * controller (the replicas share it), so what A may still send with epoch 1 is refused as stale
 * and never applied. If the remote shows another holder, B gives control up (control-lost).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../../adapters/a2a/index.js';
import { RIVAL_CONTROLLER_ID, startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { attach, createScope, until } from '../../fixtures/supervisor-harness.js';
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
});
