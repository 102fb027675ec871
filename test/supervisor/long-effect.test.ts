/**
 * An effect that takes long (an intervene whose answer the remote holds for 10 s) runs inside
 * its own campaign's actor: it blocks neither the other campaigns' ticks and saves nor this
 * campaign's own status reads and views. Real loopback simulator, real store, the delay is the
 * simulator's `slow` fault on the mutation method.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../adapters/a2a/index.js';
import { attached, authorityWorld, type AuthorityWorld } from '../authority/authority-fixture.js';
import { storeWrites, until } from '../fixtures/supervisor-harness.js';

const INTERVENE = 'opentraining.control/intervene';
const HOLD_MS = 10_000;

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('a relay held open for 10 s', () => {
  it('blocks neither the other campaigns’ ticks nor this campaign’s status reads', { timeout: 40_000 }, async () => {
    // The client waits longer than the hold, so the relay is slow, not ambiguous.
    world = await authorityWorld({}, {}, { remote: (url) => createA2AClient({ baseUrl: url, timeouts: { headersMs: 3 * HOLD_MS } }) });
    const w = world;
    await attached(w, 'slow', 'training');
    const others = ['a', 'b', 'c'];
    const otherTasks = [];
    for (const id of others) otherTasks.push(await attached(w, id, 'training'));
    const claimed = await w.act({ campaign_id: 'slow', action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed.error)).toBe(true);
    const epoch = claimed.value.lease.epoch as number;

    w.sim.injectFaults({ kind: 'slow', methods: [INTERVENE], delayMs: HOLD_MS });
    const startedAt = Date.now();
    const relay = w.act({ campaign_id: 'slow', action: 'intervene', epoch, instruction: 'lower the learning rate' });
    await until(() => (w.sim.stats().requests[INTERVENE] ?? 0) === 1, 'the intervene to reach the remote');
    expect((await w.campaign('slow')).state).toBe('controlling');

    // While the relay is held: every campaign's status is read, and the others' material changes are saved.
    for (const taskId of otherTasks) w.sim.advance(taskId);
    const readsBefore = w.sim.stats().requests['GetTask'] ?? 0;
    const writesBefore = await storeWrites(w.supervisor);
    const sweepStarted = Date.now();
    const report = await w.supervisor.sweep();
    const sweepMs = Date.now() - sweepStarted;
    expect(report).toMatchObject({ ticked: 4, errors: 0 });
    expect(w.sim.stats().requests['GetTask']).toBe(readsBefore + 4);
    // The three observers saved their new stage; the relaying campaign saves nothing mid-effect.
    expect(await storeWrites(w.supervisor)).toBe(writesBefore + 3);
    for (const id of others) expect((await w.campaign(id)).remote.stage).not.toBeNull();

    // This campaign's own reads answer too: an explicit observe and its view.
    const observeStarted = Date.now();
    const observed = await w.act({ campaign_id: 'slow', action: 'observe' });
    const observeMs = Date.now() - observeStarted;
    expect(observed.ok, JSON.stringify(observed.error)).toBe(true);
    expect(w.sim.stats().requests['GetTask']).toBe(readsBefore + 5);
    expect(w.supervisor.status().campaigns.find((c) => c.campaign_id === 'slow')).toMatchObject({ state: 'controlling' });

    // None of that waited for the relay, which is still held.
    expect(Date.now() - startedAt).toBeLessThan(HOLD_MS);
    expect(sweepMs).toBeLessThan(HOLD_MS / 2);
    expect(observeMs).toBeLessThan(HOLD_MS / 2);
    expect(w.sim.stats().mutationsApplied.intervene).toBe(0);

    const answered = await relay;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(HOLD_MS - 100);
    expect(answered, JSON.stringify(answered)).toMatchObject({ ok: true, value: { outcome: 'applied' } });
    expect(w.sim.stats().mutationsApplied.intervene).toBe(1);
    expect(w.sim.stats().requests[INTERVENE]).toBe(1);
    // The outcome and the read made during the relay are on disk together once it settled.
    const doc = await w.supervisor.store!.load('slow');
    if (!doc.ok) throw new Error(doc.reason);
    expect(doc.doc.intents.at(-1)).toMatchObject({ action: 'intervene', outcome: { status: 'applied' } });
  });
});
