/**
 * No remote can stall the fleet (issue 18, item 2): a GetTask answered at 1 byte/s on one
 * campaign, against the real loopback simulator, while 20 other campaigns are read and renewed
 * on time, beat after beat; the slow read ends at the overall deadline (2 s here) as a failed
 * read (`remote_timeout`). One clock the test moves for the supervisor and the simulator, so
 * every beat finds the leases due (TTL 120 s, heartbeat 60 s); the deadline is real time.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { claimed, timeWorld, type TimeWorld } from './lease-time.fixture.js';
import { ticks } from '../fixtures/supervisor-harness.js';

let w: TimeWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const OTHERS = Array.from({ length: 20 }, (_, i) => `fast-${i}`);
const stateOf = (w: TimeWorld, id: string) => w.supervisor.activeStates(id) ?? [];
const reading = (w: TimeWorld, id: string) => stateOf(w, id).includes('campaign.active.heartbeat.reading');

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

describe('a status read trickling at 1 byte/s', () => {
  it('holds only its own campaign: 20 others are read and renewed on time, twice, and the slow read fails at its deadline', async () => {
    w = await timeWorld({ fakeClock: true, env: { ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS: '5' } });
    const world = w;
    const slowTask = await claimed(world, 'slow');
    for (const id of OTHERS) await claimed(world, id);
    const failedBefore = await ticks(world.supervisor, 'failed');
    const readsOk = async () => (await ticks(world.supervisor, 'unchanged')) + (await ticks(world.supervisor, 'changed'));
    const okBefore = await readsOk();
    world.sim.injectFaults({ kind: 'trickle', methods: ['GetTask'], taskId: slowTask!, delayMs: 1_000 });

    // Beat 1: every campaign's read and renewal go out at once.
    const expiresBefore = new Map<string, number>();
    for (const id of OTHERS) expiresBefore.set(id, Date.parse((await world.view(id)).lease.expires_at));
    world.advance(60_000);
    const started = performance.now();
    const first = world.supervisor.sweep();
    const renewedAll = async () => {
      for (const id of OTHERS) {
        const view = await world.view(id);
        if (reading(world, id) || Date.parse(view.lease.expires_at) <= expiresBefore.get(id)!) return false;
      }
      return true;
    };
    // "On time": long before the slow read's deadline, while it still trickles.
    expect(await until(renewedAll, 3_500), 'the 20 others were read and renewed within 3.5 s').toBe(true);
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(reading(world, 'slow')).toBe(true);
    expect(world.renewals()).toBe(21);

    // Beat 2 comes while the slow read still trickles: it does not wait for it, and renews everyone.
    world.advance(60_000);
    const second = performance.now();
    const report = await world.supervisor.sweep();
    expect(performance.now() - second).toBeLessThan(3_500);
    expect(report.ticked).toBe(21);
    expect(world.renewals()).toBe(42);
    expect(reading(world, 'slow')).toBe(true);
    for (const id of OTHERS) expect([id, (await world.view(id)).state]).toEqual([id, 'controlling']);

    // The slow read ends at its deadline as a failed read; its campaign keeps its lease.
    const firstReport = await first;
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(4_900);
    expect(took).toBeLessThan(9_000);
    expect(firstReport.ticked).toBe(21);
    const slow = await world.view('slow');
    expect([slow.state, slow.consecutive_read_failures]).toEqual(['controlling', 1]);
    expect(await ticks(world.supervisor, 'failed')).toBe(failedBefore + 1);
    // The 20 others were read on both beats (the first after the claim may see the lease change).
    expect(await readsOk()).toBe(okBefore + 40);
    const failure = world.supervisor.status().campaigns.find((c) => c.campaign_id === 'slow');
    expect(failure?.consecutive_read_failures).toBe(1);
    // The failure's stable code: the first sweep's read failed with remote_timeout (CRITICAL waits for three).
    const host = world.supervisor.system!.host('slow')!;
    expect(host.getSnapshot().context.lastErrorCode).toBe('remote_timeout');
  }, 20_000);
});
