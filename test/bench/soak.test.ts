/**
 * A short soak in the suite (bench/soak-run.ts at 200 campaigns × 200 beats): leases held on a
 * fast simulated clock through seeded slow reads, failed reads, lost renewal answers, rival
 * takeovers, 1% material changes a beat and one restart. No tick may throw and no lease may
 * stop being ours without the campaign saying CONTROL_LOST. In-process loopback simulator.
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak-run.js';
import { captureLogs } from '../fixtures/log-capture.js';

describe('a short soak', () => {
  it('200 campaigns, 200 beats with seeded faults and a restart: no tick error, no silent lapse', { timeout: 120_000 }, async () => {
    const result = await runSoak({ campaigns: 200, sweeps: 200, restartEvery: 100, slowMs: 20, logger: captureLogs('warn').logger });
    expect(result.tick_errors).toBe(0);
    expect(result.silent_lapses).toBe(0);
    // The faults really happened, and the losses they caused were all said.
    expect(result.takeovers).toBeGreaterThan(0);
    expect(result.lost_with_control_lost).toBeGreaterThanOrEqual(result.takeovers);
    expect(result.failed_reads).toBeGreaterThan(0);
    expect(result.restarts).toBe(1);
    expect(result.material_changes).toBe(400);
    expect(result.listed_beats).toBeGreaterThan(150);
  });
});
