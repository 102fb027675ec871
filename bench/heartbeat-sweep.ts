/**
 * The heartbeat benchmark: `npm run bench -- --campaigns N [--concurrency C] [--rounds R] [--restart] [--json]`.
 *
 * Not a timed test: it prints numbers and judges nothing. Progress goes to stderr; the last
 * line of stdout is always ONE JSON object (see `BenchResult`).
 *
 * 1. The simulator runs in its own process (`argus-supervisor simulate --scenario steady`), and
 *    N `steady` tasks are created through its admin API: every read moves revision, progress
 *    and status text, and nothing material ever changes.
 * 2. A supervisor (in this process, fresh temp state root) gets N campaigns attached to those
 *    tasks, then one warm-up sweep: the first observation of each task is material and writes.
 * 3. Each measured round then runs, at the same concurrency and against the same tasks:
 *    our sweep (`supervisor.sweep()`: unchanged ticks, which must write nothing and wake no
 *    model), a raw undici `request()` sweep of the same JSON-RPC GetTask, and an
 *    `@a2a-js/sdk` client sweep. Each gets one unmeasured sweep on its own path first; rounds
 *    are interleaved in rotating order; medians are reported, every round is listed.
 * 4. With `--restart`, after those rounds the in-process supervisor stops (releasing the owner
 *    lock) and a NEW node process (`restart-child.ts`) starts a supervisor on the same state
 *    root and simulator and runs one full sweep: `restart_first_sweep_ms` (its process start
 *    until that sweep ends) is reported beside `sweep_ms`, with `restart_vs_sweep` (goal <= 2).
 *    That first sweep is cold (fresh sockets, no JIT) against a warm median, on purpose: it is
 *    what a host sees after a restart.
 *
 * The goals are reported as ratios, never asserted: `sweep_vs_raw` (goal <= 1.25),
 * `sweep_below_sdk` and `restart_vs_sweep` (goal <= 2). On a host whose load exceeds its
 * cores, prefer `cpu_vs_raw`.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CONTROL_EXTENSION_URI } from '../adapters/a2a/index.js';
import { applyHeapGrowth, DEFAULT_HEAP_GROWTH_PERCENT } from '../services/runtime/heap-growth.js';
import type { Supervisor } from '../services/runtime/supervisor.js';
import { BENCH_USAGE, BenchArgsError, parseBenchArgs, type BenchArgs } from './args.js';
import { CREATE_CONCURRENCY, counterTotal, createBenchSupervisor, createCampaigns, createSteadyTasks, log, mb, round1, round3 } from './bench-setup.js';
import type { RestartResult } from './restart-child.js';
import { runRestartChild } from './restart-spawn.js';
import { runFleetBench } from './fleet-bench.js';
import { wantsReplicas } from './replicas-args.js';
import { stopChildrenOnSignal } from './child-processes.js';
import { runReplicasMain } from './replicas-report.js';
import { spawnSimulator, type SimChild } from './sim-child.js';
import { median, runRounds } from './sweep-rounds.js';

export { median } from './sweep-rounds.js';

/** The goal: our sweep costs at most this much more wall time than raw HTTP. */
export const SWEEP_VS_RAW_GOAL = 1.25;
/** The goal: a restarted process finishes its first sweep within this many normal sweeps. */
export const RESTART_VS_SWEEP_GOAL = 2;

export interface BenchResult {
  campaigns: number;
  concurrency: number;
  rounds: number;
  node: string;
  cpus: number;
  /** Median wall time of one full sweep of unchanged ticks, ms. */
  sweep_ms: number;
  /** Median process CPU (user + system) during that sweep, ms. */
  cpu_ms: number;
  /** Resident set size right after the first measured sweep (before the comparison clients exist), MB. */
  rss_mb: number;
  /** The largest RSS right after any of our measured sweeps (the comparison clients share the process by then), MB. */
  rss_max_mb: number;
  /** The old-generation growth past live the process ran with (0: V8's own heuristic; see heap-growth.ts). */
  heap_growth_percent: number;
  heap_used_mb: number;
  /** Durable writes during every unchanged sweep after setup (goal: 0). */
  store_writes: number;
  /** Model calls (argus_supervisor_model_calls_total) during every unchanged sweep after setup (goal: 0). */
  model_calls: number;
  /** Wake requests handed to the counting bridges during those sweeps (goal: 0); a request, not a model call. */
  wake_requests: number;
  /** Ticks per measured sweep and errors over all of them. */
  ticked: number;
  /** Ticks the supervisor counted as unchanged over all measured sweeps (goal: rounds × campaigns). */
  unchanged_ticks: number;
  tick_errors: number;
  raw_sweep_ms: number;
  raw_cpu_ms: number;
  sdk_sweep_ms: number;
  sdk_cpu_ms: number;
  sweep_vs_raw: number;
  sweep_vs_raw_goal: number;
  sweep_vs_raw_ok: boolean;
  sweep_below_sdk: boolean;
  /** Process CPU of our sweep over the raw sweep's: steadier than wall time on a busy host. */
  cpu_vs_raw: number;
  /** 1-minute load average at start and end: wall times mean little when it exceeds `cpus`. */
  load_avg: [number, number];
  rounds_ms: { sweep: number[]; raw: number[]; sdk: number[] };
  setup: { tasks_ms: number; create_ms: number; warmup_sweep_ms: number; warmup_writes: number; first_unchanged_sweep_ms: number };
}

/** With `--restart`: the restarted process's numbers, and how its first sweep compares. */
export interface RestartFields extends RestartResult {
  /** `restart_first_sweep_ms` over `sweep_ms` (goal <= 2). */
  restart_vs_sweep: number;
  restart_vs_sweep_goal: number;
  restart_vs_sweep_ok: boolean;
}

export async function runBench(args: BenchArgs): Promise<BenchResult & Partial<RestartFields>> {
  const { campaigns: n, concurrency, rounds } = args;
  // What `serve` runs with (applied once start() has loaded, as `serve` does), unless asked
  // for V8's defaults (an embedding host's process).
  const heapGrowth = args.v8HeapDefaults ? 0 : DEFAULT_HEAP_GROWTH_PERCENT;
  const loadAtStart = loadavg()[0]!;
  let sim: SimChild | null = null;
  let root: string | null = null;
  let supervisor: Supervisor | null = null;
  try {
    let t = performance.now();
    sim = await spawnSimulator({ scenario: 'steady' });
    log(`simulator pid ${sim.pid} at ${sim.url}`);
    const taskIds = await createSteadyTasks(sim.origin, n);
    const tasksMs = performance.now() - t;
    log(`created ${n} steady tasks in ${Math.round(tasksMs)} ms`);

    root = await mkdtemp(join(tmpdir(), 'argus-bench-'));
    const bench = await createBenchSupervisor(sim.url, root, concurrency);
    supervisor = bench.supervisor;
    await supervisor.start({ heartbeat: false, initialSweep: false });
    applyHeapGrowth(heapGrowth);
    const described = await bench.remote.discover();
    if (!described.ok) throw new Error(`discovery failed: ${described.error.code}`);

    t = performance.now();
    await createCampaigns(supervisor, taskIds);
    const createMs = performance.now() - t;
    log(`created ${n} campaigns in ${Math.round(createMs)} ms (${CREATE_CONCURRENCY} in parallel)`);

    const metrics = supervisor.metrics;
    const writesBeforeWarmup = await counterTotal(metrics.storeWrites);
    t = performance.now();
    const warm = await supervisor.sweep();
    const warmupMs = performance.now() - t;
    const warmupWrites = (await counterTotal(metrics.storeWrites)) - writesBeforeWarmup;
    log(`warm-up sweep (first observation of each task): ${Math.round(warmupMs)} ms, ${warmupWrites} writes, ${warm.errors} errors`);

    // Setup is done: everything from here is counted.
    const writes0 = await counterTotal(metrics.storeWrites);
    const models0 = await counterTotal(metrics.modelCalls);
    const wakes0 = bench.wakes();

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'a2a-version': '1.0',
      ...(described.value.controlExtension ? { 'a2a-extensions': CONTROL_EXTENSION_URI } : {}),
    };
    const r = await runRounds({ supervisor, url: sim.url, rpcUrl: described.value.rpcUrl, headers, taskIds, concurrency, rounds });
    const { sweep: ours, raw: raws, sdk: sdks } = r.measured;

    const storeWrites = (await counterTotal(metrics.storeWrites)) - writes0;
    const modelCalls = (await counterTotal(metrics.modelCalls)) - models0;
    const wakeRequests = bench.wakes() - wakes0;
    const sweepMs = median(ours.map((m) => m.wallMs));
    const rawMs = median(raws.map((m) => m.wallMs));
    const sdkMs = median(sdks.map((m) => m.wallMs));
    const ratio = sweepMs / rawMs;
    const result: BenchResult = {
      campaigns: n,
      concurrency,
      rounds,
      node: process.version,
      cpus: availableParallelism(),
      sweep_ms: round1(sweepMs),
      cpu_ms: round1(median(ours.map((m) => m.cpuMs))),
      rss_mb: mb(r.rss),
      rss_max_mb: mb(r.rssMax),
      heap_growth_percent: heapGrowth,
      heap_used_mb: mb(r.heapUsed),
      store_writes: storeWrites,
      model_calls: modelCalls,
      wake_requests: wakeRequests,
      ticked: r.ticked,
      unchanged_ticks: r.unchangedTicks,
      tick_errors: r.tickErrors,
      raw_sweep_ms: round1(rawMs),
      raw_cpu_ms: round1(median(raws.map((m) => m.cpuMs))),
      sdk_sweep_ms: round1(sdkMs),
      sdk_cpu_ms: round1(median(sdks.map((m) => m.cpuMs))),
      sweep_vs_raw: round3(ratio),
      sweep_vs_raw_goal: SWEEP_VS_RAW_GOAL,
      sweep_vs_raw_ok: ratio <= SWEEP_VS_RAW_GOAL,
      sweep_below_sdk: sweepMs < sdkMs,
      cpu_vs_raw: round3(median(ours.map((m) => m.cpuMs)) / median(raws.map((m) => m.cpuMs))),
      load_avg: [round1(loadAtStart), 0],
      rounds_ms: {
        sweep: ours.map((m) => round1(m.wallMs)),
        raw: raws.map((m) => round1(m.wallMs)),
        sdk: sdks.map((m) => round1(m.wallMs)),
      },
      setup: { tasks_ms: Math.round(tasksMs), create_ms: Math.round(createMs), warmup_sweep_ms: Math.round(warmupMs), warmup_writes: warmupWrites, first_unchanged_sweep_ms: Math.round(r.firstUnchangedMs) },
    };
    let restart: RestartFields | null = null;
    if (args.restart) {
      // The owner lock allows one process per state root: release it before the new one starts.
      await supervisor.stop();
      supervisor = null;
      log(`restart: a new process on the same ${n} documents`);
      const child = await runRestartChild({ stateRoot: root, url: sim.url, concurrency, heapGrowthPercent: heapGrowth });
      const vs = child.restart_first_sweep_ms / sweepMs;
      restart = { ...child, restart_vs_sweep: round3(vs), restart_vs_sweep_goal: RESTART_VS_SWEEP_GOAL, restart_vs_sweep_ok: vs <= RESTART_VS_SWEEP_GOAL };
    }
    result.load_avg[1] = round1(loadavg()[0]!);
    return restart ? { ...result, ...restart } : result;
  } finally {
    await supervisor?.stop().catch(() => undefined);
    await sim?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  }
}

function humanSummary(r: BenchResult & Partial<RestartFields>): string {
  const lines = [
    `campaigns ${r.campaigns}, concurrency ${r.concurrency}, ${r.rounds} rounds, node ${r.node}`,
    `sweep   ${r.sweep_ms} ms  cpu ${r.cpu_ms} ms  rss ${r.rss_mb} MB (max ${r.rss_max_mb}, heap growth ${r.heap_growth_percent || 'V8 default'})  writes ${r.store_writes}  model calls ${r.model_calls}  wakes ${r.wake_requests}  [${r.rounds_ms.sweep.join(', ')}]`,
    `raw     ${r.raw_sweep_ms} ms  cpu ${r.raw_cpu_ms} ms  [${r.rounds_ms.raw.join(', ')}]`,
    `sdk     ${r.sdk_sweep_ms} ms  cpu ${r.sdk_cpu_ms} ms  [${r.rounds_ms.sdk.join(', ')}]`,
    `sweep/raw ${r.sweep_vs_raw} (goal <= ${r.sweep_vs_raw_goal}: ${r.sweep_vs_raw_ok ? 'met' : 'MISSED'}); below sdk: ${r.sweep_below_sdk}; cpu sweep/raw ${r.cpu_vs_raw}`,
    `setup   tasks ${r.setup.tasks_ms} ms, ${r.campaigns} creates ${r.setup.create_ms} ms, first-observation sweep ${r.setup.warmup_sweep_ms} ms (${r.setup.warmup_writes} writes), first unchanged sweep ${r.setup.first_unchanged_sweep_ms} ms`,
    `load average ${r.load_avg[0]} -> ${r.load_avg[1]} on ${r.cpus} cpus${Math.max(...r.load_avg) > r.cpus ? ' (busy host: wall times are noisy)' : ''}`,
  ];
  if (r.restart_first_sweep_ms !== undefined) {
    lines.push(
      `restart first sweep ${r.restart_first_sweep_ms} ms from process start (boot ${r.restart_boot_ms}, start() ${r.restart_load_ms}, sweep ${r.restart_sweep_ms}); ` +
        `restart/sweep ${r.restart_vs_sweep} (goal <= ${r.restart_vs_sweep_goal}: ${r.restart_vs_sweep_ok ? 'met' : 'MISSED'}); ` +
        `${r.restart_unchanged_ticks}/${r.restart_ticked} unchanged, ${r.restart_store_writes} writes, rss ${r.restart_rss_mb} MB`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  // `--replicas N`: the scale-out benchmark (bench/replicas-bench.ts), with its own arguments.
  if (wantsReplicas(process.argv.slice(2))) return runReplicasMain(process.argv.slice(2));
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BenchArgsError)) throw error;
    process.stderr.write(`${error.message}\n${BENCH_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    if (args.fleet) {
      const fleet = await runFleetBench(args);
      if (!args.json) for (const r of fleet.remotes) process.stdout.write(`${r.remote}: fleet ${r.fleet_sweep_ms} ms (${r.fleet_requests} requests), per-task ${r.per_task_sweep_ms} ms, raw floor ${r.raw_get_floor_ms} ms\n`);
      process.stdout.write(`${JSON.stringify(fleet)}\n`);
      return;
    }
    const result = await runBench(args);
    if (!args.json) process.stdout.write(`${humanSummary(result)}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}

stopChildrenOnSignal();
await main();
