/**
 * Attack on the host's one write queue: a heartbeat save (a material read) is queued and slow;
 * an operator's intervene passes its readback and queues its journal write behind that save;
 * the save fails, so the host rewinds the actor to its last durable snapshot (no intent). The
 * journal write queued by the actor that no longer exists must not land: an open intent on disk
 * that the live actor does not know blocks every later mutation with a misleading refusal (and
 * a restart would report a mutation "in doubt" that was never sent).
 * Real loopback simulator, real store on a file system that fails one write on demand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { oneSlowFailure } from '../fixtures/slow-failing-fs.js';
import { storeFaultWorld } from '../fixtures/store-fault-world.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a journal write queued behind a save that fails', () => {
  it('does not leave an intent on disk that the rewound actor never sent', { timeout: 20_000 }, async () => {
    const { fs, state } = oneSlowFailure();
    const { sim, supervisor, taskId } = await storeFaultWorld(scope, fs);
    const claimed = (await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })) as { ok: boolean; value: { lease: { epoch: number } } };
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const epoch = claimed.value.lease.epoch;

    // A material change: the next tick saves it, and that save waits, then fails.
    sim.advance(taskId);
    state.armed = true;
    const sweeping = supervisor.sweep();
    await until(() => state.started, 'the heartbeat save to reach the file system');
    const first = await supervisor.campaignAction({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'lower lr' });
    await sweeping;
    // Nothing was sent (the actor that would have relayed it was rewound).
    expect(sim.stats().mutationsApplied.intervene).toBe(0);
    expect(first.ok).toBe(false);

    await supervisor.system!.host('c1')!.whenWritten();
    // Storage is back: the document holds no intent nobody will ever settle, and a new intervene goes through.
    const loaded = await supervisor.store!.load('c1');
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(loaded.doc.intents.filter((i) => i.outcome === null)).toEqual([]);
    const second = await supervisor.campaignAction({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'lower lr' });
    expect(second, JSON.stringify(second)).toMatchObject({ ok: true, value: { outcome: 'applied' } });
    expect(sim.stats().mutationsApplied.intervene).toBe(1);
  });
});
