/**
 * Attack on the host's rewind with the long-lived status reader: a snapshot saved while a read
 * is in flight (`reading` is not an effect in flight, so it is saved) becomes the durable one;
 * the read's own save then fails, and the host rewinds to it. A rewind that restores
 * `heartbeat.reading` as it was leaves a fresh reader that was never asked: no TICK can start a
 * read (and no renewal rides one) until a restart. It must settle in `idle`, as a restart does.
 * Real loopback simulator (one slow GetTask), real store, one write failing on demand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { oneSlowFailure } from '../fixtures/slow-failing-fs.js';
import { storeFaultWorld } from '../fixtures/store-fault-world.js';
import { createScope, until } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a rewind to a snapshot saved mid-read', () => {
  it('restores the heartbeat idle, so the next read starts', { timeout: 20_000 }, async () => {
    const { fs, state } = oneSlowFailure(20);
    const { sim, supervisor, taskId } = await storeFaultWorld(scope, fs);
    const host = supervisor.system!.host('c1')!;

    // A read that hangs long enough for a claim to be saved beside it.
    sim.injectFaults({ kind: 'slow', methods: ['GetTask'], delayMs: 1_500 });
    const reading = supervisor.observe('c1');
    await until(() => host.getSnapshot().matches({ active: { heartbeat: 'reading' } }), 'the read to start');
    expect((await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);
    await host.whenWritten();
    expect(host.getSnapshot().matches({ active: { heartbeat: 'reading' } })).toBe(true);
    // The read comes back material, and its save fails: the host rewinds to the claim's save.
    sim.advance(taskId);
    state.armed = true;
    await reading;
    await host.whenWritten();
    expect(state.started).toBe(true);

    expect(host.getSnapshot().matches({ active: { heartbeat: 'idle' } })).toBe(true);
    const again = await supervisor.observe('c1');
    expect(again.ok ? null : again.error.code).toBeNull();
    expect(host.getSnapshot().matches({ active: { heartbeat: 'idle' } })).toBe(true);
  });
});
