/**
 * The fleet benchmark (`npm run bench -- --campaigns N --fleet [--json]`): for each remote, the
 * same N campaigns swept three ways in interleaved rounds: the fleet sweep (ListTasks pages +
 * one catch-up; `supervisor.sweep()` with the listing on), the per-task sweep (the same
 * supervisor with the listing off: one GetTask per campaign) and the raw undici GetTask floor.
 * Remotes, each in a process of its own: the simulator listing as the spec says, and a stock
 * @a2a-js/sdk server (DefaultRequestHandler + InMemoryTaskStore holding N tasks). Unchanged
 * beats only; it prints numbers and judges nothing (goals reported as ratios).
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createA2AClient } from '../adapters/a2a/index.js';
import { applyHeapGrowth, DEFAULT_HEAP_GROWTH_PERCENT } from '../services/runtime/heap-growth.js';
import { createSupervisor } from '../services/runtime/supervisor.js';
import type { BenchArgs } from './args.js';
import { tracked } from './child-processes.js';
import { benchConfig, createCampaigns, createSteadyTasks, log, round1, round3 } from './bench-setup.js';
import { firstLine, spawnSimulator } from './sim-child.js';
import { measure, median, rawLister, rawSweeper, settle } from './sweep-rounds.js';

/** The goals (issue 23): requests per unchanged beat, and the fleet sweep against the raw floor. */
export const FLEET_REQUESTS_GOAL = (n: number) => Math.ceil(n / 100) + 1;
export const FLEET_VS_RAW_GOAL = 0.1;
export const PER_TASK_VS_RAW_GOAL = 1.25;

export interface FleetRemoteResult {
  remote: 'simulator' | 'stock-sdk';
  /** Median wall time of one unchanged fleet beat (pages + catch-up + every campaign's tick), ms. */
  fleet_sweep_ms: number;
  /** ListTasks requests per unchanged fleet beat (median), and GetTask requests in those beats (total). */
  fleet_requests: number;
  fleet_get_requests: number;
  per_task_sweep_ms: number;
  raw_get_floor_ms: number;
  fleet_vs_raw: number;
  per_task_vs_raw: number;
  goals_met: { fleet_requests: boolean; fleet_vs_raw: boolean; per_task_vs_raw: boolean };
  /**
   * Median process CPU (user + system) of each way, ms, and the ratios on CPU: steadier than wall
   * time when the host's load exceeds its cores (the remote runs in a process of its own, so its
   * CPU is in none of them).
   */
  fleet_cpu_ms: number;
  per_task_cpu_ms: number;
  raw_cpu_ms: number;
  fleet_cpu_vs_raw: number;
  per_task_cpu_vs_raw: number;
  /** Median wall time of the listing alone (pages + catch-up, before the TICKs go out), ms. */
  fleet_list_ms: number;
  /**
   * The listing floor: one full listing of the same remote with raw undici (pages of 100 in
   * sequence, each parsed, nothing else), median ms, and its ratio to the raw GetTask floor.
   * No client's fleet sweep can beat it: when `list_floor_vs_raw` is above the 0.1 goal, the
   * goal is out of reach on that remote whatever the supervisor does.
   */
  raw_list_floor_ms: number;
  list_floor_vs_raw: number;
  fleet_vs_list_floor: number;
  unchanged_ticks: number;
  tick_errors: number;
  rounds_ms: { fleet: number[]; per_task: number[]; raw: number[]; raw_list: number[] };
}

export interface FleetBenchResult {
  campaigns: number;
  concurrency: number;
  rounds: number;
  node: string;
  cpus: number;
  load_avg: [number, number];
  remotes: FleetRemoteResult[];
}

async function spawnStockServer(count: number): Promise<{ base: string; rpcUrl: string; stop(): Promise<void> }> {
  const entry = fileURLToPath(new URL('./stock-sdk-child.js', import.meta.url));
  const child = tracked(spawn(process.execPath, [entry, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const ready = JSON.parse(await firstLine(child, 120_000)) as { base: string; rpcUrl: string };
    child.stdout!.resume();
    return { ...ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function benchOneRemote(
  remote: FleetRemoteResult['remote'],
  target: { base: string; rpcUrl: string; taskIds: string[] },
  args: BenchArgs,
): Promise<FleetRemoteResult> {
  const n = target.taskIds.length;
  const root = await mkdtemp(join(tmpdir(), 'argus-fleet-bench-'));
  let lists = 0;
  let gets = 0;
  const client = createA2AClient({
    baseUrl: target.base,
    connections: args.concurrency,
    onRequest: (method) => {
      if (method === 'ListTasks') lists++;
      else if (method === 'GetTask') gets++;
    },
  });
  const supervisor = await createSupervisor({ config: benchConfig(target.base, root), remote: client, concurrency: args.concurrency });
  try {
    await supervisor.start({ heartbeat: false, initialSweep: false });
    const described = await client.discover();
    if (!described.ok) throw new Error(`discovery failed: ${described.error.code}`);
    await createCampaigns(supervisor, target.taskIds);
    const fleet = supervisor.fleet!;
    const warm = await supervisor.sweep(); // first observations (material), listed
    log(`${remote}: warm-up sweep ${warm.ticked} ticked, ${warm.errors} errors, listing ${JSON.stringify(fleet.last)}`);
    const raw = rawSweeper(target.rpcUrl, { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': '1.0' }, target.taskIds, args.concurrency);
    const unchanged0 = (await supervisor.metrics.ticks.get()).values.find((v) => v.labels.result === 'unchanged')?.value ?? 0;
    const lister = rawLister(target.rpcUrl, { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': '1.0' });
    const rounds = { fleet: [] as number[], per_task: [] as number[], raw: [] as number[], raw_list: [] as number[] };
    const cpu = { fleet: [] as number[], per_task: [] as number[], raw: [] as number[], raw_list: [] as number[] };
    const listMs: number[] = [];
    const requests: number[] = [];
    let fleetGets = 0;
    let tickErrors = 0;
    const ways = {
      fleet: async () => {
        fleet.enabled = true;
        const [l, g] = [lists, gets];
        const report = await supervisor.sweep();
        tickErrors += report.errors;
        requests.push(lists - l);
        fleetGets += gets - g;
      },
      per_task: async () => {
        fleet.enabled = false;
        tickErrors += (await supervisor.sweep()).errors;
      },
      raw: async () => {
        const failures = await raw.sweep();
        if (failures) throw new Error(`${failures} raw reads failed`);
      },
      raw_list: async () => {
        const listed = await lister.sweep();
        if (listed.tasks < n) throw new Error(`the raw listing saw ${listed.tasks} of ${n} tasks`);
      },
    };
    const names = Object.keys(ways) as (keyof typeof ways)[];
    // One unmeasured run of each first (sockets, JIT), then interleaved rounds in rotating order.
    for (const name of names) await ways[name]();
    requests.length = 0;
    fleetGets = 0;
    for (let r = 0; r < args.rounds; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length]!;
        await settle();
        const m = await measure(ways[name]);
        rounds[name].push(m.wallMs);
        cpu[name].push(m.cpuMs);
        if (name === 'fleet' && fleet.last) listMs.push(fleet.last.listMs);
      }
      log(`${remote} round ${r + 1}/${args.rounds}: fleet ${Math.round(rounds.fleet[r]!)} ms, per-task ${Math.round(rounds.per_task[r]!)} ms, raw ${Math.round(rounds.raw[r]!)} ms, raw list ${Math.round(rounds.raw_list[r]!)} ms`);
    }
    await raw.close();
    await lister.close();
    const listFloorMs = median(rounds.raw_list);
    const fleetMs = median(rounds.fleet);
    const perTaskMs = median(rounds.per_task);
    const rawMs = median(rounds.raw);
    const fleetRequests = median(requests);
    const unchanged = ((await supervisor.metrics.ticks.get()).values.find((v) => v.labels.result === 'unchanged')?.value ?? 0) - unchanged0;
    return {
      remote,
      fleet_sweep_ms: round1(fleetMs),
      fleet_requests: fleetRequests,
      fleet_get_requests: fleetGets,
      per_task_sweep_ms: round1(perTaskMs),
      raw_get_floor_ms: round1(rawMs),
      fleet_vs_raw: round3(fleetMs / rawMs),
      per_task_vs_raw: round3(perTaskMs / rawMs),
      goals_met: {
        fleet_requests: fleetRequests <= FLEET_REQUESTS_GOAL(n),
        fleet_vs_raw: fleetMs / rawMs <= FLEET_VS_RAW_GOAL,
        per_task_vs_raw: perTaskMs / rawMs <= PER_TASK_VS_RAW_GOAL,
      },
      fleet_cpu_ms: round1(median(cpu.fleet)),
      per_task_cpu_ms: round1(median(cpu.per_task)),
      raw_cpu_ms: round1(median(cpu.raw)),
      fleet_cpu_vs_raw: round3(median(cpu.fleet) / median(cpu.raw)),
      per_task_cpu_vs_raw: round3(median(cpu.per_task) / median(cpu.raw)),
      fleet_list_ms: round1(median(listMs)),
      raw_list_floor_ms: round1(listFloorMs),
      list_floor_vs_raw: round3(listFloorMs / rawMs),
      fleet_vs_list_floor: round3(fleetMs / listFloorMs),
      unchanged_ticks: unchanged,
      tick_errors: tickErrors,
      rounds_ms: { fleet: rounds.fleet.map(round1), per_task: rounds.per_task.map(round1), raw: rounds.raw.map(round1), raw_list: rounds.raw_list.map(round1) },
    };
  } finally {
    await supervisor.stop().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
}

export async function runFleetBench(args: BenchArgs): Promise<FleetBenchResult> {
  const n = args.campaigns;
  const loadAtStart = loadavg()[0]!;
  applyHeapGrowth(args.v8HeapDefaults ? 0 : DEFAULT_HEAP_GROWTH_PERCENT);
  const remotes: FleetRemoteResult[] = [];
  const sim = await spawnSimulator({ scenario: 'steady', listing: 'spec' });
  try {
    const taskIds = await createSteadyTasks(sim.origin, n);
    remotes.push(await benchOneRemote('simulator', { base: sim.url, rpcUrl: `${sim.origin}/a2a/jsonrpc`, taskIds }, args));
  } finally {
    await sim.stop();
  }
  const stock = await spawnStockServer(n);
  try {
    const taskIds = Array.from({ length: n }, (_, i) => `stock-task-${i + 1}`);
    remotes.push(await benchOneRemote('stock-sdk', { base: stock.base, rpcUrl: stock.rpcUrl, taskIds }, args));
  } finally {
    await stock.stop();
  }
  return {
    campaigns: n,
    concurrency: args.concurrency,
    rounds: args.rounds,
    node: process.version,
    cpus: availableParallelism(),
    load_avg: [round1(loadAtStart), round1(loadavg()[0]!)],
    remotes,
  };
}
