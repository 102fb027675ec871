import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHAOS = fileURLToPath(new URL('../../dist/bench/chaos.js', import.meta.url));

describe('crash qualification (a small run; the issue note reports a large one)', () => {
  it('kills a real supervisor at every point of the mutation flows and finds no duplicate or lost effect', () => {
    // Seed chosen so this short run covers every flow; any seed must pass.
    const run = spawnSync(process.execPath, [CHAOS, '--runs', '10', '--workers', '2', '--seed', '11'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const line = run.stdout.trim().split('\n').pop() ?? '';
    expect(line, `chaos stderr:\n${run.stderr}\n${run.error ?? ''}`).toMatch(/^chaos: 10 runs, 0 duplicate remote effects, 0 lost intents, \d+ unresolved$/);
    expect(run.status).toBe(0);
    // The runs really killed processes mid-flow.
    expect(run.stderr).toMatch(/killed 10/);
  }, 150_000);
});
