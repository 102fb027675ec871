/**
 * The replicas benchmark: `npm run bench -- --campaigns C --replicas N [--ttl-seconds S] [--json]`
 * (issue 22, "Done when"). Prints numbers and judges nothing: goals are reported beside them.
 *
 * 1. A fresh schema on PostgreSQL (dropped at the end), the simulator in its own process with C
 *    `steady` tasks (every read moves revision and progress text, nothing material changes).
 * 2. Seeding: a short-lived replica IN THIS PROCESS creates the C campaigns through the
 *    supervisor's own API (claim, fenced create), then stops, which releases every right.
 * 3. N replica processes (bench/replica-child.ts), heartbeat off, each register, then start
 *    together and take their share. Each runs one first-observation sweep (material: it writes),
 *    then one unmeasured run of each method.
 * 4. Measured rounds, one replica at a time (the others idle), rotating order: `sweep` (per
 *    task: one GetTask per campaign, the listing off), `raw` (undici GetTask of exactly the
 *    tasks that replica hosts, same concurrency, in the same process) and `fleet` (the listing
 *    on). Every statement each replica sends is counted, by kind and by what sent it.
 * 5. Database writes over the whole measured window, on the server: documents and command rows
 *    whose xmin changed, and pg_stat_user_tables deltas (see replicas-db.ts for the wait).
 * 6. One explicit ownership beat per replica, its statements counted (goal: 1).
 * 7. SIGKILL of replica 0; the time until every campaign it held is held by a live survivor
 *    with a greater fence (database clock, polled every 100 ms), then until the survivors' actors
 *    host every campaign again.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSteadyTasks, log, round1 } from './bench-setup.js';
import { seedCampaigns } from './replicas-seed.js';
import type { MeasuredRun, ReplicaInit, ReplicaMethod } from './replica-child.js';
import { ReplicaProc } from './replica-proc.js';
import { diffCounts, type StatementCounts } from './replica-statements.js';
import type { ReplicasArgs } from './replicas-args.js';
import { dropSchema, openBenchClient, owners, snapshot, STATS_FLUSH_MS, writesBetween } from './replicas-db.js';
import { summarizeReplica, type ReplicasResult, type RehomeResult } from './replicas-report.js';
import { spawnSimulator, type SimChild } from './sim-child.js';

const METHODS: readonly ReplicaMethod[] = ['sweep', 'raw', 'fleet'];
type WarmReport = { warmMs: number; ticked: number; errors: number; stragglers: number; writes: number };
type BeatProbe = { renewed: number; lost: number; answered: boolean; ms: number; hosted: number; statements: StatementCounts[string] };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function runReplicasBench(args: ReplicasArgs): Promise<ReplicasResult> {
  const { campaigns: n, replicas: count, concurrency, rounds } = args;
  const ttlMs = Math.round(args.ttlSeconds * 1000);
  const schema = `bench_replicas_${process.pid}_${randomBytes(3).toString('hex')}`;
  const loadAtStart = loadavg()[0]!;
  const roots: string[] = [];
  const procs: ReplicaProc[] = [];
  let sim: SimChild | null = null;
  let client: Awaited<ReturnType<typeof openBenchClient>> | null = null;
  const tempRoot = async () => {
    const root = await mkdtemp(join(tmpdir(), 'argus-bench-replica-'));
    roots.push(root);
    return root;
  };
  try {
    let t = performance.now();
    sim = await spawnSimulator({ scenario: 'steady' });
    const taskIds = await createSteadyTasks(sim.origin, n);
    const tasksMs = performance.now() - t;
    log(`simulator pid ${sim.pid}: ${n} steady tasks in ${Math.round(tasksMs)} ms; schema ${schema}`);

    // Seeding: one campaign through a replica's API, the rest its clones through the fenced path.
    t = performance.now();
    const seeded = await seedCampaigns({ databaseUrl: args.databaseUrl, schema, simUrl: sim.url, stateRoot: await tempRoot(), taskIds });
    const seedMs = performance.now() - t;
    log(`seeded ${n} campaigns (${seeded.via_api} through a replica's API, ${seeded.cloned} cloned through the fenced path) in ${Math.round(seedMs)} ms`);
    client = await openBenchClient(args.databaseUrl, schema);

    // N replica processes: all registered before any starts, so each takes ⌈C / N⌉.
    t = performance.now();
    for (let i = 0; i < count; i++) procs.push(new ReplicaProc(i));
    const ids = await Promise.all(
      procs.map(async (p) => {
        const init: ReplicaInit = { databaseUrl: args.databaseUrl, schema, ttlMs, simUrl: sim!.url, stateRoot: await tempRoot(), concurrency };
        return (await p.call<{ replicaId: string }>('init', { init })).replicaId;
      }),
    );
    const started = await Promise.all(procs.map((p) => p.call<{ hosted: number; startMs: number }>('start')));
    const startMs = performance.now() - t;
    log(`${count} replicas started in ${Math.round(startMs)} ms, hosting ${started.map((s) => s.hosted).join(' + ')} campaigns`);

    await settledPlacement(procs, n, ttlMs);
    const warm: WarmReport[] = [];
    for (const p of procs) warm.push(await p.call<WarmReport>('warm', { concurrency }));
    log(`first-observation sweeps: ${warm.map((w) => `${Math.round(w.warmMs)} ms / ${w.writes} writes`).join(', ')}`);

    log(`waiting ${STATS_FLUSH_MS / 1000} s so every backend's table counters reach pg_stat_user_tables`);
    await sleep(STATS_FLUSH_MS);
    const before = await snapshot(client, schema);
    const counts0 = await Promise.all(procs.map((p) => p.call<StatementCounts>('counts')));
    const windowStart = performance.now();

    const runs: Record<ReplicaMethod, MeasuredRun[]>[] = procs.map(() => ({ sweep: [], raw: [], fleet: [] }));
    for (let r = 0; r < rounds; r++) {
      for (const [i, p] of procs.entries()) {
        for (let k = 0; k < METHODS.length; k++) {
          const method = METHODS[(k + r + i) % METHODS.length]!;
          runs[i]![method].push(await p.call<MeasuredRun>('measure', { method }));
        }
        const last = runs[i]!;
        log(`round ${r + 1}/${rounds} replica ${i}: ${METHODS.map((m) => `${m} ${Math.round(last[m][r]!.wallMs)} ms`).join(', ')}`);
      }
    }
    const beats: BeatProbe[] = [];
    for (const p of procs) beats.push(await p.call<BeatProbe>('beat'));
    const windowMs = performance.now() - windowStart;
    const counts1 = await Promise.all(procs.map((p) => p.call<StatementCounts>('counts')));
    log(`waiting ${STATS_FLUSH_MS / 1000} s again before reading the database's counters`);
    await sleep(STATS_FLUSH_MS);
    const after = await snapshot(client, schema);
    const writes = writesBetween(before, after);

    const perReplica = procs.map((_, i) =>
      summarizeReplica({ index: i, replicaId: ids[i]!, started: started[i]!, warm: warm[i]!, runs: runs[i]!, beat: beats[i]!, window: diffCounts(counts1[i]!, counts0[i]!), windowMs }),
    );

    const rehome = await killAndRehome(procs, ids, client, n, ttlMs);
    return {
      campaigns: n,
      replicas: count,
      concurrency,
      rounds,
      ttl_seconds: args.ttlSeconds,
      node: process.version,
      cpus: availableParallelism(),
      load_avg: [round1(loadAtStart), round1(loadavg()[0]!)],
      schema,
      per_replica: perReplica,
      hosted_total: perReplica.reduce((a, r) => a + r.campaigns_hosted, 0),
      database_writes_in_measured_window: writes,
      measured_window_ms: Math.round(windowMs),
      rehome,
      setup: { tasks_ms: Math.round(tasksMs), seed_ms: Math.round(seedMs), seeded, replicas_start_ms: Math.round(startMs) },
      goals: {
        sweep_vs_raw_each: 1.25,
        sweep_vs_raw_met: perReplica.every((r) => r.sweep_vs_raw <= 1.25),
        document_writes_zero: writes.documents_changed === 0 && writes.table_stats.campaign_documents.ins + writes.table_stats.campaign_documents.upd === 0 && perReplica.every((r) => r.store_writes === 0),
        command_rows_zero: writes.commands_changed === 0 && writes.table_stats.campaign_commands.ins + writes.table_stats.campaign_commands.upd === 0,
        sweep_round_trips_zero: perReplica.every((r) => r.sweep_round_trips_max === 0),
        renewal_statements_per_beat_one: perReplica.every((r) => r.beat.statements === 1),
        rehomed_within_ttl_plus_sixth: rehome.rehomed_ms !== null && rehome.rehomed_ms <= ttlMs + ttlMs / 6 + 2000,
      },
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
    await client?.end().catch(() => undefined);
    await sim?.stop();
    await dropSchema(args.databaseUrl, schema).catch((error: unknown) => log(`could not drop schema ${schema}: ${String(error)}`));
    for (const root of roots) await rm(root, { recursive: true, force: true });
  }
}

/**
 * Replicas that start together race for orphans, and a fast one may take more than its share,
 * then hand the excess back at a later rebalance (above share + 1). A sweep that runs across
 * such a hand-over waits its whole budget for the ticks of actors that were dropped, so the
 * first sweep waits until placement settles: every campaign hosted by one actor, every replica
 * at most share + 1, the same for two polls in a row.
 */
async function settledPlacement(procs: ReplicaProc[], n: number, ttlMs: number): Promise<void> {
  const share = Math.ceil(n / procs.length);
  const t0 = performance.now();
  let previous = '';
  while (performance.now() - t0 < 3 * ttlMs + 60_000) {
    const hosted = await Promise.all(procs.map((p) => p.call<{ actors: number; rights: number }>('hosted')));
    const settled = hosted.reduce((a, h) => a + h.actors, 0) === n && hosted.every((h) => h.actors === h.rights && h.actors <= share + 1);
    const now = hosted.map((h) => h.actors).join(' + ');
    if (settled && now === previous) {
      log(`placement settled: ${now} (${Math.round(performance.now() - t0)} ms after start)`);
      return;
    }
    previous = settled ? now : '';
    await sleep(Math.max(500, Math.floor(ttlMs / 6)));
  }
  log('placement did not settle; the first sweep may wait for dropped actors');
}

/** SIGKILL replica 0; poll the database (100 ms) until a live survivor holds each of its campaigns with a greater fence. */
async function killAndRehome(procs: ReplicaProc[], ids: string[], client: NonNullable<Awaited<ReturnType<typeof openBenchClient>>>, n: number, ttlMs: number): Promise<RehomeResult> {
  const victim = procs[0]!;
  const victimId = ids[0]!;
  const survivors = new Set(ids.slice(1));
  const held = [...(await owners(client))].filter(([, o]) => o.holder === victimId && o.live).map(([id, o]) => [id, o.fence] as const);
  const expiry = await client.query<{ ms: string | null }>('SELECT (extract(epoch FROM max(expires_at) - now()) * 1000)::text AS ms FROM campaign_owner WHERE holder = $1', [victimId]);
  if (held.length === 0) log('replica 0 held no live right when it was to be killed: nothing to re-home (see ownership_changes)');
  const t0 = performance.now();
  await victim.kill();
  log(`SIGKILL replica 0 (pid ${victim.pid}, ${held.length} campaigns, TTL ${ttlMs} ms)`);
  const limitMs = 10 * ttlMs + 120_000;
  let firstTakenMs: number | null = null;
  let rehomedMs: number | null = null;
  let greater = 0;
  while (held.length > 0 && performance.now() - t0 < limitMs) {
    const now = await owners(client);
    greater = held.filter(([id, fence]) => {
      const o = now.get(id);
      return o !== undefined && o.live && o.holder !== null && survivors.has(o.holder) && o.fence > fence;
    }).length;
    if (greater > 0 && firstTakenMs === null) firstTakenMs = performance.now() - t0;
    if (greater === held.length) {
      rehomedMs = performance.now() - t0;
      break;
    }
    await sleep(100);
  }
  // Held in the database is not yet hosted: the survivors' actors load each document and read it.
  let adoptedMs: number | null = null;
  let actors = 0;
  while (rehomedMs !== null && performance.now() - t0 < limitMs) {
    const hosted = await Promise.all(procs.slice(1).map((p) => p.call<{ actors: number; rights: number }>('hosted')));
    actors = hosted.reduce((a, h) => a + h.actors, 0);
    if (actors === n) {
      adoptedMs = performance.now() - t0;
      break;
    }
    await sleep(100);
  }
  const round = (v: number | null) => (v === null ? null : Math.round(v));
  log(`re-homed ${greater}/${held.length} in ${round(rehomedMs) ?? 'TIMEOUT'} ms; survivors' actors host ${actors}/${n} at ${round(adoptedMs) ?? 'TIMEOUT'} ms`);
  return {
    victim: victimId,
    campaigns: held.length,
    ttl_ms: ttlMs,
    rows_expired_after_kill_ms: expiry.rows[0]?.ms === null || expiry.rows[0] === undefined ? null : Math.round(Number(expiry.rows[0].ms)),
    first_taken_ms: round(firstTakenMs),
    rehomed_ms: round(rehomedMs),
    rehomed_with_greater_fence: greater,
    survivors_host_all_ms: round(adoptedMs),
    survivors_actors: actors,
  };
}

