/**
 * What `npm run bench -- --replicas N` reports: one replica's numbers from its measured runs,
 * the whole result's shape, the human lines, and the entry point the heartbeat benchmark
 * dispatches to.
 * @module
 */
import { BenchArgsError } from './args.js';
import { log, round1, round3 } from './bench-setup.js';
import type { MeasuredRun, ReplicaMethod } from './replica-child.js';
import { totalOf, type StatementCounts } from './replica-statements.js';
import { parseReplicasArgs, REPLICAS_USAGE } from './replicas-args.js';
import type { DbWrites } from './replicas-db.js';
import { median } from './sweep-rounds.js';

export interface ReplicaSummary {
  index: number;
  replica_id: string;
  /** Campaigns its actors hosted during the measured sweeps (the last one's share). */
  campaigns_hosted: number;
  /** What it had claimed and loaded when start() returned. */
  hosted_at_start: number;
  start_ms: number;
  /** Median wall time of an unchanged per-task sweep (one GetTask per campaign), ms. */
  sweep_ms: number;
  /** Median raw undici GetTask sweep of the same share, same process, same concurrency, ms. */
  raw_floor_ms: number;
  sweep_vs_raw: number;
  cpu_vs_raw: number;
  /** Median unchanged fleet sweep (ListTasks pages + catch-up), ms. */
  fleet_sweep_ms: number;
  fleet_vs_raw: number;
  /** Durable writes the store counted during every measured sweep (goal 0). */
  store_writes: number;
  model_calls: number;
  wake_requests: number;
  unchanged_ticks: number;
  ticks: number;
  tick_errors: number;
  /** Ticks still in flight when a sweep's budget ended (over all measured sweeps; goal 0). */
  stragglers: number;
  /** argus_supervisor_ownership_changes_total during the measured sweeps, by kind (goal: none). */
  ownership_changes: Record<string, number>;
  /** Statements a measured sweep itself sent (its async context), per sweep: median and max. */
  sweep_round_trips: number;
  sweep_round_trips_max: number;
  fleet_round_trips_max: number;
  /** Statements the replica's timers sent during its own measured sweeps, summed. */
  background_during_sweeps: Partial<Record<string, number>>;
  /** Every statement of the replica over the whole measured window, by kind, per second. */
  window_statements_per_s: Record<string, number>;
  beat: { statements: number; kinds: Partial<Record<string, number>>; renewed: number; hosted: number; ms: number };
  warmup: { sweep_ms: number; writes: number; errors: number; stragglers: number };
  rounds_ms: Record<ReplicaMethod, number[]>;
}

export interface RehomeResult {
  victim: string;
  campaigns: number;
  ttl_ms: number;
  /** How long the victim's rows still had to live when it was killed (database clock), ms. */
  rows_expired_after_kill_ms: number | null;
  first_taken_ms: number | null;
  /** SIGKILL until every one of its campaigns is held by a live survivor with a greater fence. */
  rehomed_ms: number | null;
  rehomed_with_greater_fence: number;
  /** SIGKILL until the survivors' actors host every campaign (documents loaded). */
  survivors_host_all_ms: number | null;
  survivors_actors: number;
}

export interface ReplicasResult {
  campaigns: number;
  replicas: number;
  concurrency: number;
  rounds: number;
  ttl_seconds: number;
  node: string;
  cpus: number;
  load_avg: [number, number];
  schema: string;
  per_replica: ReplicaSummary[];
  hosted_total: number;
  database_writes_in_measured_window: DbWrites;
  measured_window_ms: number;
  rehome: RehomeResult;
  setup: { tasks_ms: number; seed_ms: number; seeded: { via_api: number; cloned: number }; replicas_start_ms: number };
  goals: Record<string, number | boolean>;
}

interface SummaryInput {
  index: number;
  replicaId: string;
  started: { hosted: number; startMs: number };
  warm: { warmMs: number; writes: number; errors: number; stragglers: number };
  runs: Record<ReplicaMethod, MeasuredRun[]>;
  beat: { renewed: number; ms: number; hosted: number; statements: StatementCounts[string] };
  window: StatementCounts;
  windowMs: number;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function summarizeReplica(s: SummaryInput): ReplicaSummary {
  const { sweep, raw, fleet } = s.runs;
  const ours = [...sweep, ...fleet];
  const sweepMs = median(sweep.map((m) => m.wallMs));
  const rawMs = median(raw.map((m) => m.wallMs));
  const fleetMs = median(fleet.map((m) => m.wallMs));
  const background: Partial<Record<string, number>> = {};
  for (const run of ours) for (const [kind, k] of Object.entries(run.background)) background[kind] = (background[kind] ?? 0) + (k ?? 0);
  const perSecond: Record<string, number> = {};
  for (const byKind of Object.values(s.window)) for (const [kind, k] of Object.entries(byKind)) perSecond[kind] = (perSecond[kind] ?? 0) + (k ?? 0);
  for (const kind of Object.keys(perSecond)) perSecond[kind] = round3(perSecond[kind]! / (s.windowMs / 1000));
  return {
    index: s.index,
    replica_id: s.replicaId,
    campaigns_hosted: sweep.at(-1)?.share ?? 0,
    hosted_at_start: s.started.hosted,
    start_ms: Math.round(s.started.startMs),
    sweep_ms: round1(sweepMs),
    raw_floor_ms: round1(rawMs),
    sweep_vs_raw: round3(sweepMs / rawMs),
    cpu_vs_raw: round3(median(sweep.map((m) => m.cpuMs)) / median(raw.map((m) => m.cpuMs))),
    fleet_sweep_ms: round1(fleetMs),
    fleet_vs_raw: round3(fleetMs / rawMs),
    store_writes: sum(ours.map((m) => m.storeWrites)),
    model_calls: sum(ours.map((m) => m.modelCalls)),
    wake_requests: sum(ours.map((m) => m.wakes)),
    unchanged_ticks: sum(ours.map((m) => m.unchanged)),
    ticks: sum(ours.map((m) => m.ticked)),
    tick_errors: sum(ours.map((m) => m.errors)),
    stragglers: sum(ours.map((m) => m.stragglers)),
    ownership_changes: ours.reduce<Record<string, number>>((acc, m) => {
      for (const [k, v] of Object.entries(m.ownershipChanges)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
    sweep_round_trips: median(sweep.map((m) => totalOf(m.statements))),
    sweep_round_trips_max: Math.max(...sweep.map((m) => totalOf(m.statements))),
    fleet_round_trips_max: Math.max(...fleet.map((m) => totalOf(m.statements))),
    background_during_sweeps: background,
    window_statements_per_s: perSecond,
    beat: { statements: totalOf(s.beat.statements), kinds: s.beat.statements, renewed: s.beat.renewed, hosted: s.beat.hosted, ms: round1(s.beat.ms) },
    warmup: { sweep_ms: Math.round(s.warm.warmMs), writes: s.warm.writes, errors: s.warm.errors, stragglers: s.warm.stragglers },
    rounds_ms: { sweep: sweep.map((m) => round1(m.wallMs)), raw: raw.map((m) => round1(m.wallMs)), fleet: fleet.map((m) => round1(m.wallMs)) },
  };
}

export function humanLines(r: ReplicasResult): string {
  const w = r.database_writes_in_measured_window;
  const lines = [
    `${r.campaigns} campaigns on ${r.replicas} replica processes, concurrency ${r.concurrency}, ${r.rounds} rounds, TTL ${r.ttl_seconds} s, node ${r.node}, ${r.cpus} cpus, load ${r.load_avg[0]} -> ${r.load_avg[1]}`,
    ...r.per_replica.map(
      (p) =>
        `replica ${p.index}: ${p.campaigns_hosted} hosted; sweep ${p.sweep_ms} ms vs raw ${p.raw_floor_ms} ms = ${p.sweep_vs_raw} (cpu ${p.cpu_vs_raw}); fleet ${p.fleet_sweep_ms} ms; ` +
        `writes ${p.store_writes}; round trips/sweep ${p.sweep_round_trips} (max ${p.sweep_round_trips_max}); beat ${p.beat.statements} statement renewing ${p.beat.renewed}`,
    ),
    `database during the measured window (${Math.round(r.measured_window_ms / 1000)} s): documents changed ${w.documents_changed}, command rows ${w.commands_changed}; ` +
      `pg_stat campaign_documents ins/upd ${w.table_stats.campaign_documents.ins}/${w.table_stats.campaign_documents.upd}, campaign_owner upd ${w.table_stats.campaign_owner.upd} (renewals)`,
    `SIGKILL of replica 0 (${r.rehome.campaigns} campaigns, TTL ${r.rehome.ttl_ms} ms, its rows had ${r.rehome.rows_expired_after_kill_ms} ms left): ` +
      `first taken ${r.rehome.first_taken_ms} ms, all re-homed with greater fences ${r.rehome.rehomed_ms ?? 'NOT'} ms, survivors host all ${r.rehome.survivors_host_all_ms ?? 'NOT'} ms`,
    `goals: ${Object.entries(r.goals).map(([k, v]) => `${k}=${v}`).join(' ')}`,
  ];
  if (r.load_avg.some((l) => l > r.cpus)) lines.push('(load average above the cpu count: wall times are indicative only)');
  return lines.join('\n');
}

/** `heartbeat-sweep.ts` hands argv here when it carries `--replicas`. */
export async function runReplicasMain(argv: readonly string[]): Promise<void> {
  let args;
  try {
    args = parseReplicasArgs(argv);
  } catch (error) {
    if (!(error instanceof BenchArgsError)) throw error;
    process.stderr.write(`${error.message}\n${REPLICAS_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    const { runReplicasBench } = await import('./replicas-bench.js');
    const result = await runReplicasBench(args);
    if (!args.json) process.stdout.write(`${humanLines(result)}\n`);
    else log(humanLines(result).split('\n').join('\n[bench] '));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
