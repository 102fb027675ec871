/**
 * The one long test (about 2–2.5 minutes): the same rule as lease-time.test.ts with real time,
 * the real heartbeat timer and a real loopback simulator, at the configuration's minimums (TTL
 * 120 s, heartbeat 60 s, which production also allows). A claimed campaign with no task and one
 * whose reads keep failing (backing off) are both renewed by the heartbeat and still hold their
 * lease after two beats, past the claim's original expiry, with no CONTROL_LOST.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { claimed, controlLost, timeWorld, type TimeWorld } from './lease-time.fixture.js';

let w: TimeWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

describe('real time: TTL 120 s, heartbeat 60 s', () => {
  it('keeps both leases renewed across two beats, past the claimed expiry', async () => {
    w = await timeWorld({ fakeClock: false, heartbeat: true });
    const world = w;
    await claimed(world, 'free', false);
    const taskId = await claimed(world, 'failing');
    world.sim.injectFaults({ kind: 'http-5xx', count: 1000, methods: ['GetTask'], taskId: taskId! });
    const claimedUntil = Math.max(...(await Promise.all(['free', 'failing'].map(async (id) => Date.parse((await world.view(id)).lease.expires_at)))));

    // Two beats: each at 60–66 s (jitter); each renews both leases (120 s TTL, due every beat).
    const start = performance.now();
    while (world.renewals() < 4 && performance.now() - start < 150_000) await new Promise((r) => setTimeout(r, 250));
    expect(world.renewals()).toBeGreaterThanOrEqual(4);
    // Past the lease the claim granted: only the renewals keep it.
    while (Date.now() <= claimedUntil + 1_000) await new Promise((r) => setTimeout(r, 250));
    for (const id of ['free', 'failing']) {
      const view = await world.view(id);
      expect([id, view.state, view.lease.mode]).toEqual([id, 'controlling', 'controller']);
      expect(Date.parse(view.lease.expires_at)).toBeGreaterThan(Date.now());
      expect(controlLost(world, id)).toEqual([]);
    }
    // The failing campaign's reads did fail (backing off), and it was renewed all the same.
    expect((await world.view('failing')).consecutive_read_failures).toBeGreaterThanOrEqual(1);
    expect(world.supervisor.health().last_tick).not.toBeNull();
  }, 200_000);
});
