/**
 * The read slots (moved here from the heartbeat's old worker pool): a sweep hands every TICK out
 * at once, so status reads queue inside the effects, never more than `readConcurrency` in flight
 * across all campaigns, first come first served, and every queued read is answered.
 */
import { describe, expect, it } from 'vitest';
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { ReadStatusInput } from '../../machines/campaign.types.js';
import { createCampaignEffects } from '../../services/campaign/effects.js';
import { askReader } from '../fixtures/ask-reader.js';

describe('read slots', () => {
  it('never more than readConcurrency reads in flight; all 50 answered in arrival order', async () => {
    let active = 0;
    let peak = 0;
    const started: string[] = [];
    const held: (() => void)[] = [];
    const remote = {
      getTask: (taskId: string) => {
        active++;
        peak = Math.max(peak, active);
        started.push(taskId);
        return new Promise((resolve) =>
          held.push(() => {
            active--;
            resolve({ ok: false, error: { code: 'task_not_found', message: 'no such task', outcome: 'rejected' } });
          }),
        );
      },
    } as unknown as A2AClient;
    const effects = createCampaignEffects({
      controllerId: 'us',
      remote,
      now: () => new Date(),
      journal: async () => undefined,
      publishedKeys: async () => new Set<string>(),
      readConcurrency: 4,
    });
    const input = (i: number): ReadStatusInput => ({
      campaignId: `c${i}`,
      controllerId: 'us',
      taskId: `t${i}`,
      contextId: null,
      previous: null,
      readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false },
      createdAt: new Date(0).toISOString(),
      cadenceMs: 60_000,
      now: new Date().toISOString(),
    });
    const answers = Array.from({ length: 50 }, (_, i) => askReader(effects.statusReader, input(i)));
    for (let rounds = 0; held.length > 0 || started.length < 50; rounds++) {
      await new Promise((r) => setImmediate(r));
      expect(active).toBeLessThanOrEqual(4);
      held.splice(0, 1).forEach((release) => release());
      if (rounds > 1_000) throw new Error('reads did not drain');
    }
    const outputs = await Promise.all(answers);
    expect(outputs.every((o) => !o.ok && o.code === 'task_not_found')).toBe(true);
    expect(peak).toBe(4);
    expect(started).toEqual(Array.from({ length: 50 }, (_, i) => `t${i}`));
  });
});
