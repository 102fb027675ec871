/**
 * The crash qualification, small: every meaningful flow × kill point pair once (the schedule
 * is round-robin over the matrix first), a real supervisor SIGKILLed at each, and every
 * journaled intent reconciled with the simulator's own ledger. The issue note reports a large run.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MATRIX } from '../../bench/chaos-plan.js';
import { canary } from '../fixtures/canary.js';
import { recordSyncOutput } from '../fixtures/child-output.js';

const CHAOS = fileURLToPath(new URL('../../dist/bench/chaos.js', import.meta.url));
const RUNS = MATRIX.length;

const LINE =
  /^chaos: (\d+) runs, (\d+) duplicate remote effects, (\d+) lost intents, (\d+) outcome mismatches, (\d+) unjournaled requests, (\d+) unresolved$/;
const DETAIL =
  /^ {2}(\d+) of (\d+) intents in doubt resolved by readback, (\d+) remote mutations applied, coverage (\d+)\/(\d+) flow × point pairs, (\d+) runs not killed by SIGKILL, (\d+) runs not killed at their point$/;

describe('crash qualification (a small run; the issue note reports a large one)', () => {
  it('kills a real supervisor at every flow × point and finds the journal agreeing with the remote ledger', () => {
    const run = recordSyncOutput(
      'chaos',
      spawnSync(process.execPath, [CHAOS, '--runs', String(RUNS), '--workers', '3', '--seed', '11'], { encoding: 'utf8', timeout: 150_000, env: { ...process.env, ARGUS_CHAOS_API_KEY: canary('chaos-api-key') } }),
    );
    const why = `chaos stdout:\n${run.stdout}\nchaos stderr:\n${run.stderr}\n${run.error ?? ''}`;
    const [line = '', detail = ''] = run.stdout.trimEnd().split('\n');
    const counts = LINE.exec(line)?.slice(1).map(Number);
    const facts = DETAIL.exec(detail)?.slice(1).map(Number);
    expect(counts, why).toBeDefined();
    expect(facts, why).toBeDefined();
    const [runs, duplicates, lost, mismatches, unjournaled, unresolved] = counts!;
    const [resolved, inDoubt, applied, covered, pairs, notSigkilled, notAtPoint] = facts!;
    expect({ runs, duplicates, lost, mismatches, unjournaled, unresolved }, why).toEqual({
      runs: RUNS,
      duplicates: 0,
      lost: 0,
      mismatches: 0,
      unjournaled: 0,
      unresolved: 0,
    });
    // Every pair of the matrix died by SIGKILL at its point; every intent it left in doubt was
    // settled by a readback; and the run really reached the remote.
    expect({ covered, pairs, notSigkilled, notAtPoint }, why).toEqual({ covered: MATRIX.length, pairs: MATRIX.length, notSigkilled: 0, notAtPoint: 0 });
    expect(inDoubt, why).toBeGreaterThan(0);
    expect(resolved, why).toBe(inDoubt);
    expect(applied, why).toBeGreaterThan(0);
    expect(run.status, why).toBe(0);
  }, 180_000);
});
