/**
 * Every active actor gets time (issue 18, item 1), with one clock the test moves for the
 * supervisor and the loopback simulator: TTL 120 s, heartbeat 60 s. A claimed campaign with no
 * task is renewed by the heartbeat; one backing off after failed reads is still renewed each
 * beat; a lease that cannot be renewed in time ends in `control-lost` with one CONTROL_LOST
 * before its expiry; and no view shows `controlling` past `expires_at`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { claimed, controlLost, timeWorld, type TimeWorld } from './lease-time.fixture.js';

let w: TimeWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const BEAT = 60_000;

describe('the heartbeat renews every held lease', () => {
  it('a campaign with no task, claimed, is renewed by the heartbeat, beat after beat', async () => {
    w = await timeWorld({ fakeClock: true });
    expect(await claimed(w, 'free', false)).toBeNull();
    for (let beat = 1; beat <= 5; beat++) {
      w.advance(BEAT);
      await w.supervisor.sweep();
      const view = await w.view('free');
      expect([beat, view.state, view.lease.mode]).toEqual([beat, 'controlling', 'controller']);
      // Renewed this beat: a whole TTL ahead again, not what the claim granted two beats ago.
      expect(Date.parse(view.lease.expires_at) - w.now()).toBeGreaterThan(BEAT);
    }
    expect(w.renewals()).toBe(5);
    expect(controlLost(w, 'free')).toEqual([]);
  });

  it('a campaign backing off after failed reads keeps its lease: renewed every beat while its reads wait', async () => {
    w = await timeWorld({ fakeClock: true });
    const taskId = await claimed(w, 'failing');
    w.sim.injectFaults({ kind: 'http-5xx', count: 1000, methods: ['GetTask'], taskId: taskId! });
    const readsBefore = w.sim.stats().requests['GetTask'] ?? 0;
    for (let beat = 1; beat <= 8; beat++) {
      w.advance(BEAT);
      await w.supervisor.sweep();
      const view = await w.view('failing');
      expect([beat, view.state]).toEqual([beat, 'controlling']);
      expect(Date.parse(view.lease.expires_at) - w.now()).toBeGreaterThan(BEAT);
    }
    const reads = (w.sim.stats().requests['GetTask'] ?? 0) - readsBefore;
    // Back-off 60/120/240 s: the reads waited (fewer than the beats), the renewals did not.
    expect(reads).toBeGreaterThan(1);
    expect(reads).toBeLessThan(8);
    expect((await w.view('failing')).consecutive_read_failures).toBe(reads);
    expect(w.renewals()).toBe(8);
    expect(controlLost(w, 'failing')).toEqual([]);
  });
});

describe('a lease that cannot be renewed in time', () => {
  it('refused at renewal while backing off: control-lost at that beat, one CONTROL_LOST, before the lease expired', async () => {
    w = await timeWorld({ fakeClock: true });
    const taskId = await claimed(w, 'refused');
    w.sim.injectFaults({ kind: 'http-5xx', count: 1000, methods: ['GetTask'], taskId: taskId! });
    for (let beat = 1; beat <= 3; beat++) {
      w.advance(BEAT);
      await w.supervisor.sweep();
    }
    const held = (await w.view('refused')).lease.expires_at as string;
    w.sim.injectFaults({ kind: 'http-5xx', count: 1, methods: [CONTROL_METHODS.leaseRenew] });
    w.advance(BEAT);
    await w.supervisor.sweep();
    expect((await w.view('refused')).state).toBe('control-lost');
    for (let beat = 1; beat <= 4; beat++) {
      w.advance(BEAT);
      await w.supervisor.sweep();
    }
    const lost = controlLost(w, 'refused');
    expect(lost).toHaveLength(1);
    expect(Date.parse(lost[0]!.at)).toBeLessThan(Date.parse(held));
  });

  it('a beat that comes too late (past the renewal deadline) gives the lease up before it expires, without a renewal', async () => {
    w = await timeWorld({ fakeClock: true });
    await claimed(w, 'late', false);
    const held = (await w.view('late')).lease.expires_at as string;
    // The process was stalled: the next beat comes 5 s before expiry, inside the renewal margin.
    w.advance(Date.parse(held) - w.now() - 5_000);
    await w.supervisor.sweep();
    const view = await w.view('late');
    expect(view.state).toBe('control-lost');
    expect(w.renewals()).toBe(0);
    const lost = controlLost(w, 'late');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.data).toMatchObject({ reason: 'lease_renewal_deadline' });
    expect(Date.parse(lost[0]!.at)).toBeLessThan(Date.parse(held));
    w.advance(BEAT);
    await w.supervisor.sweep();
    expect(controlLost(w, 'late')).toHaveLength(1);
  });
});

describe('no view shows controlling past expires_at', () => {
  it('with no tick at all, a view read past the lease expiry says control-lost, no lease, and no fenced action', async () => {
    w = await timeWorld({ fakeClock: true });
    await claimed(w, 'idle', false);
    const before = structuredClone(await w.view('idle'));
    expect(before.state).toBe('controlling');
    expect(before.allowed_actions).toContain('release');
    w.advance(Date.parse(before.lease.expires_at) - w.now() + 1_000);
    for (const view of [await w.view('idle'), w.supervisor.status().campaigns.find((c) => c.campaign_id === 'idle')!]) {
      expect(view.state).toBe('control-lost');
      expect(view.lease).toEqual({ mode: 'observer', epoch: null, expires_at: null });
      for (const action of ['release', 'submit', 'intervene', 'cancel', 'claim']) expect(view.allowed_actions).not.toContain(action);
    }
    // What the view offers is what the API accepts: a release now is refused, nothing is sent.
    const release = await w.act({ campaign_id: 'idle', action: 'release', epoch: before.lease.epoch });
    expect(release.ok).toBe(false);
    expect(release.error!.code).toBe('lease_not_held');
  });
});
