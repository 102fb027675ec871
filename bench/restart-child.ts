/**
 * The restarted process of `npm run bench -- --restart`: a fresh node process on the state
 * root the benchmark just swept. It builds the supervisor exactly as the benchmark does
 * (`createBenchSupervisor`), starts it without heartbeat or initial sweep, runs one full
 * sweep, and prints ONE JSON line (`RestartResult`) on stdout.
 *
 * `restart_first_sweep_ms` is measured from `performance.timeOrigin` (this process's start),
 * so node's own boot and the loading of every module count, as they would for a host
 * restarting the supervisor. The documents already hold the last material view, so that
 * first sweep should be unchanged ticks with no write at all: `restart_unchanged_ticks` and
 * `restart_store_writes` say whether it was.
 *
 * argv[2]: JSON `{ "stateRoot": string, "url": string, "concurrency": number, "heapGrowthPercent": number }`.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { applyHeapGrowth } from '../services/runtime/heap-growth.js';
import { counterTotal, createBenchSupervisor, mb, round1, unchangedTicks } from './bench-setup.js';

export interface RestartInput {
  stateRoot: string;
  url: string;
  concurrency: number;
  /** The parent's heap growth (what `serve` runs with, or 0 for V8's own). */
  heapGrowthPercent: number;
}

export interface RestartResult {
  /** Process start (timeOrigin) until the end of the first complete sweep, ms. */
  restart_first_sweep_ms: number;
  /** Process start until this module's code runs (node boot + module loading), ms. */
  restart_boot_ms: number;
  /** `start()` alone: owner lock, loading every document (its first reads already running), discovery, ms. */
  restart_load_ms: number;
  /** The first read of every campaign, from the start of loading to its last read (pipelined with loading), ms. */
  restart_sweep_ms: number;
  /** Durable writes over the whole restarted process, start and sweep (goal: 0). */
  restart_store_writes: number;
  /** argus_supervisor_model_calls_total over the whole restarted process (goal: 0). */
  restart_model_calls: number;
  /** Wake requests handed to the counting bridges over the whole restarted process (goal: 0). */
  restart_wake_requests: number;
  restart_ticked: number;
  /** Ticks of the first sweep the supervisor counted as unchanged (goal: every campaign). */
  restart_unchanged_ticks: number;
  restart_tick_errors: number;
  /** Resident set size right after the first sweep, MB. */
  restart_rss_mb: number;
}

async function main(): Promise<RestartResult> {
  const bootMs = performance.now();
  const input = JSON.parse(process.argv[2] ?? '') as RestartInput;
  const { supervisor, wakes } = await createBenchSupervisor(input.url, input.stateRoot, input.concurrency);
  try {
    const t = performance.now();
    // The real restart path: start() reads each campaign as soon as its actor is up.
    await supervisor.start({ heartbeat: false });
    const loadMs = performance.now() - t;
    // As `serve` does: once every campaign is loaded.
    applyHeapGrowth(input.heapGrowthPercent);
    const first = supervisor.initialSweep();
    if (!first) throw new Error('start() made no first sweep');
    const report = await first;
    const end = performance.now();
    const rss = process.memoryUsage().rss;
    const metrics = supervisor.metrics;
    return {
      // performance.now() counts from timeOrigin: the time since this process started.
      restart_first_sweep_ms: round1(end),
      restart_boot_ms: round1(bootMs),
      restart_load_ms: round1(loadMs),
      restart_sweep_ms: round1(end - t),
      // A fresh process has fresh counters: their totals are everything this process did.
      restart_store_writes: await counterTotal(metrics.storeWrites),
      restart_model_calls: await counterTotal(metrics.modelCalls),
      restart_wake_requests: wakes(),
      restart_ticked: report.ticked,
      restart_unchanged_ticks: await unchangedTicks(supervisor),
      restart_tick_errors: report.errors,
      restart_rss_mb: mb(rss),
    };
  } finally {
    await supervisor.stop();
  }
}

try {
  process.stdout.write(`${JSON.stringify(await main())}\n`);
} catch (error) {
  process.stderr.write(`restart child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
