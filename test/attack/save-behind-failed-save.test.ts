/**
 * Attack on the host's rewind: a heartbeat save (a material read) is queued and slow; the
 * operator pauses the controlling campaign, whose save queues behind it; the first save fails,
 * so the host rewinds the live actor to its last durable snapshot (not paused). The pause's
 * save, taken from the actor that no longer exists, must not land and must not be confirmed:
 * else the API says "paused", the disk says paused, and the live actor keeps renewing the lease
 * and accepting mutations. Real loopback simulator, real store, one write failing on demand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { oneSlowFailure } from '../fixtures/slow-failing-fs.js';
import { storeFaultWorld } from '../fixtures/store-fault-world.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a save queued behind a save that fails', () => {
  it('is neither written nor confirmed: the answer, the disk and the live actor agree', { timeout: 20_000 }, async () => {
    const { fs, state } = oneSlowFailure();
    const { sim, supervisor, taskId } = await storeFaultWorld(scope, fs);
    expect((await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);

    sim.advance(taskId);
    state.armed = true;
    const sweeping = supervisor.sweep();
    await until(() => state.started, 'the heartbeat save to reach the file system');
    const paused = await supervisor.campaignAction({ campaign_id: 'c1', action: 'pause' });
    await sweeping;
    const host = supervisor.system!.host('c1')!;
    await host.whenWritten();

    const live = host.getSnapshot().matches('paused');
    const loaded = await supervisor.store!.load('c1');
    if (!loaded.ok) throw new Error(loaded.reason);
    const onDisk = (loaded.doc.machine.snapshot as { value: unknown }).value === 'paused';
    // Whatever happened, the operator was told the truth and memory matches the disk.
    expect({ answered: paused.ok, live, onDisk }).toEqual({ answered: live, live, onDisk: live });
  });
});
