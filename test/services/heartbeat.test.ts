import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHeartbeat } from '../../services/runtime/heartbeat.js';

afterEach(() => vi.useRealTimers());

describe('heartbeat scheduler', () => {
  it('ticks every due campaign once per sweep, never more than `concurrency` at a time', async () => {
    let active = 0;
    let peak = 0;
    const seen: string[] = [];
    const ids = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      concurrency: 4,
      dueCampaigns: () => ids,
      tick: async (id) => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setImmediate(r));
        seen.push(id);
        active--;
      },
    });
    const report = await hb.sweep();
    expect(report.ticked).toBe(50);
    expect(new Set(seen).size).toBe(50);
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(1);
  });

  it('isolates a failing campaign from the rest of the sweep', async () => {
    const errors: string[] = [];
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      dueCampaigns: () => ['a', 'b', 'c'],
      tick: async (id) => {
        if (id === 'b') throw new Error('boom');
      },
      onSweepError: (id) => errors.push(id),
    });
    const report = await hb.sweep();
    expect(report).toMatchObject({ ticked: 2, errors: 1 });
    expect(errors).toEqual(['b']);
  });

  it('does not overlap sweeps: a second call joins the one in flight', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const hb = createHeartbeat({
      cadenceMs: 60_000,
      dueCampaigns: () => ['a'],
      tick: async () => {
        calls++;
        await gate;
      },
    });
    const first = hb.sweep();
    const second = hb.sweep();
    release();
    await Promise.all([first, second]);
    expect(calls).toBe(1);
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
      tick: async () => undefined,
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
