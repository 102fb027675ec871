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
 *
 * `--replicas N` (N > 1; default 1 is the above): each run starts N `serve` replicas on a fresh
 * PostgreSQL schema with an ownership TTL of `--ttl` seconds (default 3), kills the campaign's
 * host at the point (or a random replica at a random moment), waits for a survivor to take the
 * campaign over, resolves through a survivor, and reconciles the same way (chaos-replicas.ts).
 * A third line gives the takeovers; a failed takeover also fails the qualification.
 */
import { MATRIX, pairKey, parseChaosArgs, prng, schedule } from './chaos-plan.js';
import { oneRun, type RunResult } from './chaos-run.js';
import { oneReplicaRun } from './chaos-replicas.js';
import { passed, summarize, violated } from './chaos-summary.js';
import { stopChildrenOnSignal } from './child-processes.js';
import { spawnSimulator } from './sim-child.js';

const USAGE =
  `usage: chaos [--runs N] [--workers W] [--seed S] [--replicas R] [--ttl SECONDS] [--max-seconds S]  (N >= ${MATRIX.length} covers every flow × kill point)\n` +
  '  --replicas R (1-9, default 1): R serve replicas on PostgreSQL per run (ARGUS_SUPERVISOR_TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/test)\n' +
  '  --ttl SECONDS (1-60, default 3): their ownership TTL\n' +
  '  --max-seconds S: start no run after S seconds (the summary counts the runs done; fewer than N fails)\n';

async function main(): Promise<void> {
  const args = parseChaosArgs(process.argv.slice(2), Date.now() % 100_000);
  if (!args) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const random = prng(args.seed);
  const plan = schedule(args.runs, random);
  const started = Date.now();
  const replicas = args.replicas > 1 ? `, ${args.replicas} replicas on PostgreSQL, ownership TTL ${args.ttl} s` : '';
  process.stderr.write(`chaos: ${args.runs} runs, ${args.workers} workers, seed ${args.seed}, ${MATRIX.length} flow × point pairs${replicas}\n`);
  const results: RunResult[] = [];
  const setupFailures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: args.workers }, async () => {
      // One simulator per worker: its runs are sequential, so each run's ledger window is its own.
      const sim = await spawnSimulator({ scenario: 'steady' });
      try {
        while (next < plan.length && !(args.maxSeconds > 0 && Date.now() - started > args.maxSeconds * 1000)) {
          const index = next++;
          let r: RunResult;
          try {
            r =
              args.replicas > 1
                ? await oneReplicaRun(sim, plan[index]!, random, index, { replicas: args.replicas, ttlSeconds: args.ttl })
                : await oneRun(sim, plan[index]!, random, index);
          } catch (error) {
            // A run that could not be carried out (a process that did not start) proves nothing: counted, and it fails the qualification.
            setupFailures.push(`run ${index} ${pairKey(plan[index]!)}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500));
            process.stderr.write(`ERROR ${setupFailures.at(-1)}\n`);
            continue;
          }
          results.push(r);
          if (process.env.CHAOS_TRACE) process.stderr.write(`  run ${index} ${r.flow}×${r.point} ${r.seconds.toFixed(1)} s${r.replica ? ` ${JSON.stringify(r.replica)}` : ''}\n`);
          if (violated(r)) process.stderr.write(`VIOLATION run ${index}: ${JSON.stringify(r)}\n`);
          if (results.length % 25 === 0) process.stderr.write(`  ${results.length}/${args.runs}\n`);
        }
      } finally {
        await sim.stop();
      }
    }),
  );
  const s = summarize(results);
  const done = results.length + setupFailures.length;
  if (done < plan.length) process.stderr.write(`  stopped by --max-seconds ${args.maxSeconds}: ${done} of ${plan.length} planned runs done\n`);
  if (setupFailures.length) process.stderr.write(`  ${setupFailures.length} runs could not be carried out (not counted above):\n    ${setupFailures.join('\n    ')}\n`);
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
      `${s.didNotDieAtPoint} runs not killed at their point\n` +
      (args.replicas > 1
        ? `  replicas ${args.replicas}: killed the host ${s.victims.host}, the replica the flow was sent to ${s.victims.entry}, another ${s.victims.bystander}; ` +
          `${s.relayed} flows relayed; ${s.takeoverFailures} failed takeovers; slowest takeover ${s.maxRehomeMs} ms (TTL ${args.ttl} s); ` +
          `${s.notFoundAfterTakeover} runs answered 404 campaign_not_found after the takeover, before the new owner loaded the campaign (asked again); ` +
          `${s.busyAfterTakeover} runs answered 409 effect_in_flight to resolve_intent while the new owner rotated the epoch (asked again)\n`
        : ''),
  );
  process.exit(passed(s) && results.length === plan.length ? 0 : 1);
}

stopChildrenOnSignal();
await main();
