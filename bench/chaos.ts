/**
 * Crash qualification: `npm run chaos -- --runs N [--workers W] [--seed S]`.
 *
 * Each run drives a REAL supervisor process against the simulator (in its own process) through
 * one flow (claim, submit, intervene, cancel, release) and kills it with SIGKILL at one point
 * of it (chaos-plan.ts lists the meaningful pairs). It restarts the supervisor on the same
 * state root, resolves what is in doubt by readback, and reconciles every journaled intent
 * with the remote's own log of the requests it received (chaos-reconcile.ts). Prints
 *
 *   chaos: N runs, D duplicate remote effects, L lost intents, M outcome mismatches, J unjournaled requests, U unresolved
 *
 * and a second line (resolved by readback, applied counts, coverage). Exits 1 on any non-zero
 * count, on any run whose supervisor did not die by SIGKILL at its point, or when a pair of
 * the matrix was not covered (fewer runs than pairs, or a pair that never died at its point).
 */
import { MATRIX, parseChaosArgs, prng, schedule } from './chaos-plan.js';
import { oneRun, type RunResult } from './chaos-run.js';
import { passed, provedItsPoint, summarize, VIOLATIONS } from './chaos-summary.js';
import { spawnSimulator } from './sim-child.js';

const USAGE = `usage: chaos [--runs N] [--workers W] [--seed S]  (N >= ${MATRIX.length} covers every flow × kill point)\n`;

async function main(): Promise<void> {
  const args = parseChaosArgs(process.argv.slice(2), Date.now() % 100_000);
  if (!args) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const random = prng(args.seed);
  const plan = schedule(args.runs, random);
  const started = Date.now();
  process.stderr.write(`chaos: ${args.runs} runs, ${args.workers} workers, seed ${args.seed}, ${MATRIX.length} flow × point pairs\n`);
  const results: RunResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: args.workers }, async () => {
      // One simulator per worker: its runs are sequential, so each run's ledger window is its own.
      const sim = await spawnSimulator({ scenario: 'steady' });
      try {
        while (next < plan.length) {
          const index = next++;
          const r = await oneRun(sim, plan[index]!, random, index);
          results.push(r);
          if (process.env.CHAOS_TRACE) process.stderr.write(`  run ${index} ${r.flow}×${r.point} ${r.seconds.toFixed(1)} s\n`);
          if (VIOLATIONS.some((k) => r[k] !== 0) || !provedItsPoint(r)) process.stderr.write(`VIOLATION run ${index}: ${JSON.stringify(r)}\n`);
          if (results.length % 25 === 0) process.stderr.write(`  ${results.length}/${args.runs}\n`);
        }
      } finally {
        await sim.stop();
      }
    }),
  );
  const s = summarize(results);
  process.stderr.write(
    `  seconds ${((Date.now() - started) / 1000).toFixed(1)}, died mid-flow ${s.diedMidFlow}, ` +
      `runs not killed by SIGKILL ${s.notKilledBySigkill}, runs that did not die at their point ${s.didNotDieAtPoint}\n` +
      (s.missing.length ? `  coverage missing: ${s.missing.join(', ')}\n` : ''),
  );
  process.stdout.write(
    `chaos: ${s.runs} runs, ${s.duplicates} duplicate remote effects, ${s.lost} lost intents, ` +
      `${s.outcomeMismatches} outcome mismatches, ${s.unjournaled} unjournaled requests, ${s.unresolved} unresolved\n` +
      `  ${s.resolvedByReadback} of ${s.inDoubtAtKill} intents in doubt resolved by readback, ${s.appliedRemote} remote mutations applied, ` +
      `coverage ${s.covered}/${s.pairs} flow × point pairs, ${s.notKilledBySigkill} runs not killed by SIGKILL, ` +
      `${s.didNotDieAtPoint} runs not killed at their point\n`,
  );
  process.exit(passed(s) ? 0 : 1);
}

await main();
