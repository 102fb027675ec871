/**
 * The soak: a supervisor holding leases on N campaigns beats `sweeps` times against the
 * in-process simulator (listing as the spec says), on a fast simulated clock shared by both (no
 * real waiting: each beat moves the clock one cadence), with faults at a fixed seeded rate:
 * slow reads, failed reads, lost renewal answers, lease takeovers by a rival, material changes
 * at 1% of tasks per beat, and a restart (a new supervisor on the same state root) every
 * `restartEvery` beats. It measures, and judges nothing: RSS and heap at beat 100 and at the
 * last, tick errors, leases that lapsed without CONTROL_LOST, writes per material change.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { CONTROL_METHODS } from '../adapters/a2a/control-contract.js';
import { silentLogger, type Logger } from '../adapters/logger.js';
import { loadConfig } from '../services/config/config.js';
import { createMetrics } from '../services/metrics/metrics.js';
import { createSupervisor, type Supervisor } from '../services/runtime/supervisor.js';
import { RIVAL_CONTROLLER_ID, startSimulator, type FaultSpec } from '../simulator/index.js';
import { counterTotal, mb, round1, round3 } from './bench-setup.js';

export interface SoakOptions {
  campaigns: number;
  sweeps: number;
  seed?: number;
  restartEvery?: number;
  /** Delay of an injected slow read, real ms (default 200). */
  slowMs?: number;
  logger?: Logger;
  progress?: (line: string) => void;
}

export interface SoakResult {
  campaigns: number;
  sweeps: number;
  seed: number;
  /** Memory after a GC when the process runs with --expose-gc (`gc_forced`), MB. */
  rss_mb: Record<string, number>;
  heap_used_mb: Record<string, number>;
  gc_forced: boolean;
  /** RSS at the last beat over RSS at beat 100 (goal ≤ 1.05). */
  rss_last_vs_100: number | null;
  tick_errors: number;
  failed_reads: number;
  /** Leases the remote no longer showed as ours (expired or taken over) with no CONTROL_LOST within the grace beats. */
  silent_lapses: number;
  /** The first few silent lapses as the campaign saw them (what to look at when the count is not 0). */
  silent_lapse_samples: Record<string, unknown>[];
  lost_with_control_lost: number;
  takeovers: number;
  material_changes: number;
  store_writes: number;
  writes_per_material_change: number;
  restarts: number;
  faults_armed: Record<string, number>;
  listed_beats: number;
  sweep_ms_median: number;
  /** Remote requests per beat, by method (the soak's whole run over its beats). */
  requests_per_beat: Record<string, number>;
}

/** mulberry32: a small seeded PRNG, so a soak's faults are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CADENCE_S = 60;
const TTL_S = 3600;
/** Beats a campaign has to say CONTROL_LOST after the remote stopped showing its lease. */
const GRACE_BEATS = 3;
const gc = (globalThis as { gc?: () => void }).gc;

export async function runSoak(opts: SoakOptions): Promise<SoakResult> {
  const { campaigns: n, sweeps } = opts;
  const seed = opts.seed ?? 23;
  const restartEvery = opts.restartEvery ?? 200;
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const say = opts.progress ?? (() => undefined);
  let t = Date.now();
  const clock = () => t;
  const sim = await startSimulator({ port: 0, clock, listing: 'spec', scenario: 'steady' });
  const root = await mkdtemp(join(tmpdir(), 'argus-soak-'));
  const config = loadConfig({
    ARGUS_SUPERVISOR_ENABLED: '1',
    OPENTRAINING_A2A_URL: sim.url,
    ARGUS_SUPERVISOR_STATE_ROOT: root,
    ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: String(CADENCE_S),
    ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: String(TTL_S),
  });
  const metrics = createMetrics({ defaultMetrics: false });
  const logger = opts.logger ?? silentLogger();
  /**
   * Campaigns whose CONTROL_LOST reached the public events, as each was appended (the feed keeps
   * only the latest FEED_LIMIT: a burst of losses would push the earliest out before they are checked).
   */
  const saidControlLost = new Set<string>();
  const boot = async (): Promise<Supervisor> => {
    const s = await createSupervisor({ config, logger, metrics, now: () => new Date(clock()) });
    s.readModel.on('publicEventsAdded', ({ events }) => {
      for (const e of events) if (e.kind === 'CRITICAL' && /control/i.test(e.summary)) saidControlLost.add(e.campaign_id);
    });
    await s.start({ heartbeat: false, initialSweep: true });
    return s;
  };
  let supervisor = await boot();
  const result: SoakResult = {
    campaigns: n,
    sweeps,
    seed,
    rss_mb: {},
    heap_used_mb: {},
    gc_forced: gc !== undefined,
    rss_last_vs_100: null,
    tick_errors: 0,
    failed_reads: 0,
    silent_lapses: 0,
    silent_lapse_samples: [],
    lost_with_control_lost: 0,
    takeovers: 0,
    material_changes: 0,
    store_writes: 0,
    writes_per_material_change: 0,
    restarts: 0,
    faults_armed: { slow: 0, failed: 0, lost: 0 },
    listed_beats: 0,
    sweep_ms_median: 0,
    requests_per_beat: {},
  };
  try {
    const taskIds = sim.createTasks(n, 'steady');
    const ids = taskIds.map((_, i) => `soak-${i}`);
    const contextOf = new Map<string, string>();
    const limit = pLimit(32);
    await Promise.all(
      ids.map((id, i) =>
        limit(async () => {
          const created = await supervisor.campaigns({ action: 'create', campaign_id: id, objective: 'soak', remote_task_id: taskIds[i] });
          if (!created.ok) throw new Error(`create ${id}: ${created.error.code}`);
          // Set-up, not measured: a claim the loaded in-process remote did not answer in time is asked again (an operator would).
          let claim = await supervisor.campaignAction({ campaign_id: id, action: 'claim' });
          for (let retry = 0; !claim.ok && retry < 3; retry++) claim = await supervisor.campaignAction({ campaign_id: id, action: 'claim' });
          if (!claim.ok) throw new Error(`claim ${id}: ${claim.error.code}`);
          contextOf.set(id, sim.task(taskIds[i]!)!.contextId);
        }),
      ),
    );
    say(`${n} campaigns created and claimed`);
    await supervisor.sweep(); // first observations
    const writes0 = await counterTotal(metrics.storeWrites);
    const requests0 = { ...sim.stats().requests };
    const failed0 = (await metrics.ticks.get()).values.find((v) => v.labels.result === 'failed')?.value ?? 0;
    /** Campaigns whose lease the remote no longer shows as ours: the beat it was first seen. */
    const lapsedAt = new Map<string, number>();
    const settled = new Set<string>();
    const controlLost = (id: string) => saidControlLost.has(id);
    const durations: number[] = [];
    const memory = (label: string) => {
      gc?.();
      const m = process.memoryUsage();
      result.rss_mb[label] = mb(m.rss);
      result.heap_used_mb[label] = mb(m.heapUsed);
    };

    for (let beat = 1; beat <= sweeps; beat++) {
      t += CADENCE_S * 1000;
      const faults: FaultSpec[] = [];
      if (random() < 0.2) (faults.push({ kind: 'slow', count: 2, methods: ['GetTask', 'ListTasks'], delayMs: opts.slowMs ?? 200 }), result.faults_armed['slow']!++);
      if (random() < 0.2) (faults.push({ kind: 'http-5xx', count: 3, methods: ['GetTask', 'ListTasks'] }), result.faults_armed['failed']!++);
      if (random() < 0.1) (faults.push({ kind: 'lost-response', count: 1, methods: [CONTROL_METHODS.leaseRenew] }), result.faults_armed['lost']!++);
      if (faults.length) sim.injectFaults(faults);
      if (random() < 0.1) {
        const id = pick(ids);
        if (!lapsedAt.has(id)) {
          sim.takeover(contextOf.get(id)!, RIVAL_CONTROLLER_ID, TTL_S);
          result.takeovers++;
        }
      }
      const changes = Math.max(1, Math.round(n / 100));
      for (let i = 0; i < changes; i++) if (sim.addCheckpoint(pick(taskIds))) result.material_changes++;

      const started = performance.now();
      const report = await supervisor.sweep();
      durations.push(performance.now() - started);
      sim.clearFaults();
      result.tick_errors += report.errors;
      if (supervisor.fleet?.last?.mode === 'listed') result.listed_beats++;

      // Every lease the remote no longer shows as ours must be said (CONTROL_LOST) within the grace.
      for (const id of ids) {
        if (settled.has(id)) continue;
        const lease = sim.lease(contextOf.get(id)!);
        const ours = lease !== null && lease.holder === config.controllerId;
        if (!ours && !lapsedAt.has(id)) lapsedAt.set(id, beat);
        const since = lapsedAt.get(id);
        if (since === undefined) continue;
        if (controlLost(id)) {
          settled.add(id);
          result.lost_with_control_lost++;
        } else if (beat - since >= GRACE_BEATS) {
          settled.add(id);
          result.silent_lapses++;
          if (result.silent_lapse_samples.length < 5) {
            const snapshot = supervisor.system?.host(id)?.getSnapshot();
            const remoteLease = sim.lease(contextOf.get(id)!);
            result.silent_lapse_samples.push({
              campaign: id,
              beat,
              lapsed_at_beat: since,
              state: snapshot ? JSON.stringify(snapshot.value) : 'not hosted',
              read_failures: snapshot?.context.readFailures ?? null,
              last_error: snapshot?.context.lastErrorCode ?? null,
              local_epoch: snapshot?.context.lease?.epoch ?? null,
              remote_lease: remoteLease ? { holder: remoteLease.holder === config.controllerId ? 'us' : remoteLease.holder, epoch: remoteLease.epoch, expiresAt: remoteLease.expiresAt } : null,
            });
            say(`silent lapse: ${JSON.stringify(result.silent_lapse_samples.at(-1))}`);
          }
        }
      }
      if (beat === 100 || beat === sweeps) memory(String(beat));
      if (beat % 50 === 0) say(`beat ${beat}/${sweeps}: ${Math.round(durations[durations.length - 1]!)} ms, tick errors ${result.tick_errors}, silent lapses ${result.silent_lapses}`);
      if (beat % restartEvery === 0 && beat < sweeps) {
        await supervisor.stop();
        supervisor = await boot();
        await supervisor.initialSweep();
        result.restarts++;
      }
    }
    result.store_writes = (await counterTotal(metrics.storeWrites)) - writes0;
    result.failed_reads = ((await metrics.ticks.get()).values.find((v) => v.labels.result === 'failed')?.value ?? 0) - failed0;
    result.writes_per_material_change = round3(result.store_writes / Math.max(1, result.material_changes));
    const sorted = [...durations].sort((a, b) => a - b);
    result.sweep_ms_median = round1(sorted[sorted.length >> 1] ?? 0);
    for (const [method, count] of Object.entries(sim.stats().requests)) result.requests_per_beat[method] = round1((count - (requests0[method] ?? 0)) / sweeps);
    const at100 = result.rss_mb['100'];
    result.rss_last_vs_100 = at100 && sweeps > 100 ? round3(result.rss_mb[String(sweeps)]! / at100) : null;
    return result;
  } finally {
    await supervisor.stop().catch(() => undefined);
    await sim.close();
    await rm(root, { recursive: true, force: true });
  }
}
