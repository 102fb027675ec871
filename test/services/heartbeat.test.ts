import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHeartbeat } from '../../services/runtime/heartbeat.js';

afterEach(() => vi.useRealTimers());

describe('heartbeat scheduler', () => {
  it('ticks every due campaign once per sweep, at once, and reports when what it started has settled', async () => {
    const seen: string[] = [];
    const pending: (() => void)[] = [];
    const ids = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      dueCampaigns: () => ids,
      // Every other campaign starts something that settles later; the rest are over at once.
      tick: (id, settled) => {
        seen.push(id);
        if (Number(id.slice(1)) % 2) return false;
        pending.push(settled);
        return true;
      },
    });
    let reported = false;
    const sweep = hb.sweep().then((r) => ((reported = true), r));
    // Every TICK went out before anything settled: no campaign waited for another's.
    expect(seen).toEqual(ids);
    expect(pending).toHaveLength(25);
    for (const settle of pending.splice(0, 24)) settle();
    await new Promise((r) => setImmediate(r));
    expect(reported).toBe(false);
    pending[0]!();
    const report = await sweep;
    expect(report).toMatchObject({ ticked: 50, errors: 0 });
    expect(report.stragglers).toBeUndefined();
  });

  it('isolates a failing campaign from the rest of the sweep', async () => {
    const errors: string[] = [];
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      dueCampaigns: () => ['a', 'b', 'c'],
      tick: (id) => {
        if (id === 'b') throw new Error('boom');
        return false;
      },
      onSweepError: (id) => errors.push(id),
    });
    const report = await hb.sweep();
    expect(report).toMatchObject({ ticked: 2, errors: 1 });
    expect(errors).toEqual(['b']);
  });

  it('a campaign still in flight holds only itself: the sweep reports at the end of its beat, and the next beat ticks every campaign again', async () => {
    vi.useFakeTimers();
    const ticks: string[] = [];
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      jitterRatio: 0,
      dueCampaigns: () => ['slow', 'a', 'b'],
      // `slow` never settles (a read trickling in); the others are over at once.
      tick: (id) => (ticks.push(id), id === 'slow'),
    });
    hb.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toEqual(['slow', 'a', 'b']);
    // The next beat comes on time although the first sweep still waits for `slow`.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toEqual(['slow', 'a', 'b', 'slow', 'a', 'b']);
    expect(hb.lastSweep).toMatchObject({ ticked: 3, stragglers: 1 });
    await hb.stop();
  });

  it('sweeps on the cadence plus jitter once started, and stops cleanly', async () => {
    vi.useFakeTimers();
    let sweeps = 0;
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      jitterRatio: 0.1,
      random: () => 0.5,
      dueCampaigns: () => {
        sweeps++;
        return [];
      },
      tick: () => false,
    });
    hb.start();
    await vi.advanceTimersByTimeAsync(62_999);
    expect(sweeps).toBe(0);
    await vi.advanceTimersByTimeAsync(2);
    expect(sweeps).toBe(1);
    await vi.advanceTimersByTimeAsync(63_001);
    expect(sweeps).toBe(2);
    await hb.stop();
    await vi.advanceTimersByTimeAsync(10 * 63_000);
    expect(sweeps).toBe(2);
  });
});
