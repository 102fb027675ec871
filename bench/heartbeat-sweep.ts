/**
 * The heartbeat benchmark: `npm run bench -- --campaigns N [--concurrency C] [--rounds R] [--json]`.
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
 *
 * The goals are reported as ratios, never asserted: `sweep_vs_raw` (goal <= 1.25) and
 * `sweep_below_sdk`. On a host whose load exceeds its cores, prefer `cpu_vs_raw`.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { ClientFactory } from '@a2a-js/sdk/client';
import { CONTROL_EXTENSION_URI, createA2AClient } from '../adapters/a2a/index.js';
import { loadConfig } from '../services/runtime/config.js';
import { createSupervisor, type Supervisor, type WakeHandler } from '../services/runtime/supervisor.js';
import { BENCH_USAGE, BenchArgsError, parseBenchArgs, type BenchArgs } from './args.js';
import { spawnSimulator, type SimChild } from './sim-child.js';

/** The goal: our sweep costs at most this much more wall time than raw HTTP. */
export const SWEEP_VS_RAW_GOAL = 1.25;
/** Parallel campaign creations during setup (each writes one document). */
const CREATE_CONCURRENCY = 32;

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
  heap_used_mb: number;
  /** Durable writes during every unchanged sweep after setup (goal: 0). */
  store_writes: number;
  /** Model calls during every unchanged sweep after setup (goal: 0). */
  model_calls: number;
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

const METHODS = ['sweep', 'raw', 'sdk'] as const;
type Method = (typeof METHODS)[number];

interface Sweeper {
  /** Builds and warms the method the first time; a no-op afterwards. */
  prepare(): Promise<void>;
  run(): Promise<void>;
}

interface Measured {
  wallMs: number;
  cpuMs: number;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const mb = (bytes: number) => round1(bytes / (1024 * 1024));

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function measure(fn: () => Promise<void>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** A sweeper whose set-up (and one unmeasured warm-up sweep) runs once, on first `prepare`. */
function lazily(build: () => Promise<() => Promise<void>>): Sweeper {
  let run: (() => Promise<void>) | null = null;
  return {
    async prepare() {
      if (run) return;
      run = await build();
      await run();
    },
    run: () => run!(),
  };
}

/** A comparison sweep that must read every task: a failed read would flatter its time. */
function checked(name: string, sweep: () => Promise<number>): () => Promise<void> {
  return async () => {
    const failures = await sweep();
    if (failures) throw new Error(`${failures} reads failed in the ${name} sweep`);
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A short pause before each measured sweep, so the simulator finishes the previous sweep's
 * stragglers. (A forced GC here was tried and doubled every method's measured CPU time on
 * Node 20, so none is forced.)
 */
const settle = () => sleep(100);

async function counterTotal(counter: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);
}

async function unchangedTicks(supervisor: Supervisor): Promise<number> {
  return (await supervisor.metrics.ticks.get()).values.find((v) => v.labels.result === 'unchanged')?.value ?? 0;
}

async function createSteadyTasks(origin: string, count: number): Promise<string[]> {
  const res = await request(`${origin}/_sim/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count, scenario: 'steady' }),
  });
  const body = (await res.body.json()) as { ids?: string[] };
  if (res.statusCode !== 200 || !Array.isArray(body.ids) || body.ids.length !== count) {
    throw new Error(`the simulator admin API answered ${res.statusCode} to POST /_sim/tasks`);
  }
  return body.ids;
}

/** One sweep of raw undici POSTs: what any HTTP client must do at least. */
function rawSweeper(rpcUrl: string, headers: Record<string, string>, ids: readonly string[], concurrency: number) {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  let nextId = 1;
  const sweep = async (): Promise<number> => {
    const limit = pLimit(concurrency);
    let failures = 0;
    await Promise.all(
      ids.map((id) =>
        limit(async () => {
          const res = await request(rpcUrl, {
            method: 'POST',
            dispatcher: agent,
            headers,
            body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'GetTask', params: { id, historyLength: 0 } }),
          });
          const reply = JSON.parse(await res.body.text()) as { result?: unknown };
          if (res.statusCode !== 200 || reply.result === undefined) failures++;
        }),
      ),
    );
    return failures;
  };
  return { sweep, close: () => agent.close() };
}

/** One sweep through the reference SDK client (global fetch under the hood). */
async function sdkSweeper(url: string, ids: readonly string[], concurrency: number) {
  const client = await new ClientFactory().createFromUrl(`${url}/`);
  return async (): Promise<number> => {
    const limit = pLimit(concurrency);
    let failures = 0;
    await Promise.all(
      ids.map((id) =>
        limit(async () => {
          try {
            await client.getTask({ tenant: '', id, historyLength: 0 });
          } catch {
            failures++;
          }
        }),
      ),
    );
    return failures;
  };
}

async function createCampaigns(supervisor: Supervisor, taskIds: readonly string[]): Promise<void> {
  const limit = pLimit(CREATE_CONCURRENCY);
  let done = 0;
  const step = Math.max(1000, Math.ceil(taskIds.length / 10));
  await Promise.all(
    taskIds.map((taskId, i) =>
      limit(async () => {
        const campaignId = `bench-${String(i).padStart(6, '0')}`;
        const created = await supervisor.campaigns({ action: 'create', campaign_id: campaignId, objective: 'heartbeat benchmark', remote_task_id: taskId });
        if (!created.ok) throw new Error(`creating ${campaignId} failed: ${created.error.code}`);
        if (++done % step === 0) log(`created ${done}/${taskIds.length} campaigns`);
      }),
    ),
  );
}

export async function runBench(args: BenchArgs): Promise<BenchResult> {
  const { campaigns: n, concurrency, rounds } = args;
  const loadAtStart = loadavg()[0]!;
  let sim: SimChild | null = null;
  let root: string | null = null;
  let supervisor: Supervisor | null = null;
  const closers: (() => Promise<void>)[] = [];
  try {
    let t = performance.now();
    sim = await spawnSimulator({ scenario: 'steady' });
    log(`simulator pid ${sim.pid} at ${sim.url}`);
    const taskIds = await createSteadyTasks(sim.origin, n);
    const tasksMs = performance.now() - t;
    log(`created ${n} steady tasks in ${Math.round(tasksMs)} ms`);

    root = await mkdtemp(join(tmpdir(), 'argus-bench-'));
    const config = loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: root });
    let wakes = 0;
    const countWake: WakeHandler = async () => {
      wakes++;
    };
    // The client the supervisor would build itself, with as many sockets as reads in flight.
    const remote = createA2AClient({ baseUrl: sim.url, connections: concurrency });
    supervisor = await createSupervisor({ config, remote, concurrency, wakeHandlers: { argus: countWake, foreman: countWake } });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    const described = await remote.discover();
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
    const models0 = (await counterTotal(metrics.modelCalls)) + wakes;

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'a2a-version': '1.0',
      ...(described.value.controlExtension ? { 'a2a-extensions': CONTROL_EXTENSION_URI } : {}),
    };

    let ticked = 0;
    let firstUnchangedMs = 0;
    let tickErrors = 0;
    let rss = 0;
    let heapUsed = 0;
    const methods: Record<Method, Sweeper> = {
      // Every method gets one unmeasured sweep on its own path (sockets, JIT) just before its
      // first measured one. Ours is a sweep of unchanged ticks, timed apart as
      // `setup.first_unchanged_sweep_ms`; the comparison clients are built then too, so the
      // first measured sweep is ours, with nothing else in the process yet (rss is read then).
      sweep: lazily(async () => {
        let first = true;
        return async () => {
          const started = performance.now();
          const report = await supervisor!.sweep();
          if (first) firstUnchangedMs = performance.now() - started;
          first = false;
          ticked = report.ticked;
          tickErrors += report.errors;
        };
      }),
      raw: lazily(async () => {
        const raw = rawSweeper(described.value.rpcUrl, headers, taskIds, concurrency);
        closers.push(raw.close);
        return checked('raw', raw.sweep);
      }),
      sdk: lazily(async () => checked('sdk', await sdkSweeper(sim!.url, taskIds, concurrency))),
    };
    const measured: Record<Method, Measured[]> = { sweep: [], raw: [], sdk: [] };
    let unchanged0 = 0;
    for (let r = 0; r < rounds; r++) {
      // Interleaved, and the order rotates each round so no method always follows another.
      const order = METHODS.map((_, i) => METHODS[(i + r) % METHODS.length]!);
      for (const method of order) {
        await methods[method].prepare();
        if (method === 'sweep' && r === 0) unchanged0 = await unchangedTicks(supervisor);
        await settle();
        measured[method].push(await measure(methods[method].run));
        if (method === 'sweep' && r === 0) {
          const mem = process.memoryUsage();
          rss = mem.rss;
          heapUsed = mem.heapUsed;
        }
      }
      log(
        `round ${r + 1}/${rounds}: ` +
          METHODS.map((m) => `${m} ${Math.round(measured[m][r]!.wallMs)} ms (cpu ${Math.round(measured[m][r]!.cpuMs)})`).join(', '),
      );
    }
    const ours = measured.sweep;
    const raws = measured.raw;
    const sdks = measured.sdk;

    const storeWrites = (await counterTotal(metrics.storeWrites)) - writes0;
    const modelCalls = (await counterTotal(metrics.modelCalls)) + wakes - models0;
    const sweepMs = median(ours.map((m) => m.wallMs));
    const rawMs = median(raws.map((m) => m.wallMs));
    const sdkMs = median(sdks.map((m) => m.wallMs));
    const ratio = sweepMs / rawMs;
    return {
      campaigns: n,
      concurrency,
      rounds,
      node: process.version,
      cpus: availableParallelism(),
      sweep_ms: round1(sweepMs),
      cpu_ms: round1(median(ours.map((m) => m.cpuMs))),
      rss_mb: mb(rss),
      heap_used_mb: mb(heapUsed),
      store_writes: storeWrites,
      model_calls: modelCalls,
      ticked,
      unchanged_ticks: (await unchangedTicks(supervisor)) - unchanged0,
      tick_errors: tickErrors,
      raw_sweep_ms: round1(rawMs),
      raw_cpu_ms: round1(median(raws.map((m) => m.cpuMs))),
      sdk_sweep_ms: round1(sdkMs),
      sdk_cpu_ms: round1(median(sdks.map((m) => m.cpuMs))),
      sweep_vs_raw: round3(ratio),
      sweep_vs_raw_goal: SWEEP_VS_RAW_GOAL,
      sweep_vs_raw_ok: ratio <= SWEEP_VS_RAW_GOAL,
      sweep_below_sdk: sweepMs < sdkMs,
      cpu_vs_raw: round3(median(ours.map((m) => m.cpuMs)) / median(raws.map((m) => m.cpuMs))),
      load_avg: [round1(loadAtStart), round1(loadavg()[0]!)],
      rounds_ms: {
        sweep: ours.map((m) => round1(m.wallMs)),
        raw: raws.map((m) => round1(m.wallMs)),
        sdk: sdks.map((m) => round1(m.wallMs)),
      },
      setup: { tasks_ms: Math.round(tasksMs), create_ms: Math.round(createMs), warmup_sweep_ms: Math.round(warmupMs), warmup_writes: warmupWrites, first_unchanged_sweep_ms: Math.round(firstUnchangedMs) },
    };
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    await supervisor?.stop().catch(() => undefined);
    await sim?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  }
}

function humanSummary(r: BenchResult): string {
  return [
    `campaigns ${r.campaigns}, concurrency ${r.concurrency}, ${r.rounds} rounds, node ${r.node}`,
    `sweep   ${r.sweep_ms} ms  cpu ${r.cpu_ms} ms  rss ${r.rss_mb} MB  writes ${r.store_writes}  model calls ${r.model_calls}  [${r.rounds_ms.sweep.join(', ')}]`,
    `raw     ${r.raw_sweep_ms} ms  cpu ${r.raw_cpu_ms} ms  [${r.rounds_ms.raw.join(', ')}]`,
    `sdk     ${r.sdk_sweep_ms} ms  cpu ${r.sdk_cpu_ms} ms  [${r.rounds_ms.sdk.join(', ')}]`,
    `sweep/raw ${r.sweep_vs_raw} (goal <= ${r.sweep_vs_raw_goal}: ${r.sweep_vs_raw_ok ? 'met' : 'MISSED'}); below sdk: ${r.sweep_below_sdk}; cpu sweep/raw ${r.cpu_vs_raw}`,
    `setup   tasks ${r.setup.tasks_ms} ms, ${r.campaigns} creates ${r.setup.create_ms} ms, first-observation sweep ${r.setup.warmup_sweep_ms} ms (${r.setup.warmup_writes} writes), first unchanged sweep ${r.setup.first_unchanged_sweep_ms} ms`,
    `load average ${r.load_avg[0]} -> ${r.load_avg[1]} on ${r.cpus} cpus${Math.max(...r.load_avg) > r.cpus ? ' (busy host: wall times are noisy)' : ''}`,
  ].join('\n');
}

async function main(): Promise<void> {
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
    const result = await runBench(args);
    if (!args.json) process.stdout.write(`${humanSummary(result)}\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}

await main();
