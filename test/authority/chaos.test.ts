import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { recordSyncOutput } from '../fixtures/child-output.js';

const CHAOS = fileURLToPath(new URL('../../dist/bench/chaos.js', import.meta.url));

describe('crash qualification (a small run; the issue note reports a large one)', () => {
  it('kills a real supervisor at every point of the mutation flows and finds no duplicate or lost effect', () => {
    // Seed chosen so this short run covers every flow (asserted below); any seed must pass.
    const run = recordSyncOutput(
      'chaos',
      spawnSync(process.execPath, [CHAOS, '--runs', '10', '--workers', '2', '--seed', '11'], { encoding: 'utf8', timeout: 120_000 }),
    );
    const line = run.stdout.trim().split('\n').pop() ?? '';
    expect(line, `chaos stderr:\n${run.stderr}\n${run.error ?? ''}`).toMatch(/^chaos: 10 runs, 0 duplicate remote effects, 0 lost intents, \d+ unresolved$/);
    expect(run.status).toBe(0);
    // Every armed run died at its point, every flow ran, and some mutations really reached the remote.
    expect(run.stderr).toContain('armed runs that did not die at their point: 0');
    const byFlow = JSON.parse(/by flow (\{.*\})/.exec(run.stderr)![1]!) as Record<string, number>;
    for (const flow of ['claim', 'submit', 'intervene', 'cancel', 'release']) expect([flow, byFlow[flow]! > 0]).toEqual([flow, true]);
    expect(Number(/remote mutations applied (\d+)/.exec(run.stderr)![1])).toBeGreaterThan(0);
    expect(Number(/died mid-flow (\d+)/.exec(run.stderr)![1])).toBeGreaterThan(0);
  }, 150_000);
});
