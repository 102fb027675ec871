/**
 * One replica of `npm run bench -- --replicas N`: a real child process (so SIGKILL is real)
 * running a supervisor on the shared PostgreSQL schema with the heartbeat off, driven by the
 * parent over Node's IPC channel (`process.send`): one request `{ id, cmd, ... }`, one answer
 * `{ id, ok, value | error }`. Commands:
 *
 * - `init`: opens the backend (`selectStoreBackend`, which registers this replica's row) and
 *   builds the supervisor; not started, so the parent can start every replica once all are
 *   registered (each then claims ⌈campaigns / N⌉, not all of them).
 * - `start`: `supervisor.start({ heartbeat: false, initialSweep: false })` and discovery.
 * - `warm`: the first-observation sweep (material: it writes), then one unmeasured sweep of
 *   each measured method (sockets, JIT).
 * - `measure`: one measured run of `sweep` (per task: the listing off), `fleet` (the listing
 *   on) or `raw` (undici GetTask of exactly the tasks this replica hosts, same concurrency).
 * - `beat`: one explicit ownership beat, its statements counted.
 * - `counts`, `hosted`, `stop`.
 *
 * Statements are counted by `replica-statements.ts`, installed before any pool exists.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { createA2AClient, CONTROL_EXTENSION_URI } from '../adapters/a2a/index.js';
import { selectStoreBackend, type PostgresBackend } from '../persistence/postgres/backend.js';
import { createSupervisor, type Supervisor, type WakeHandler } from '../services/runtime/supervisor.js';
import { benchConfig, counterTotal, unchangedTicks } from './bench-setup.js';
import { diffCounts, installStatementCounter, statementCounts, tagged } from './replica-statements.js';
import { measure, rawSweeper, settle } from './sweep-rounds.js';

installStatementCounter();

export interface ReplicaInit {
  databaseUrl: string;
  schema: string;
  ttlMs: number;
  simUrl: string;
  stateRoot: string;
  concurrency: number;
}

export type ReplicaMethod = 'sweep' | 'fleet' | 'raw';

interface Request {
  id: number;
  cmd: string;
  init?: ReplicaInit;
  method?: ReplicaMethod;
  concurrency?: number;
}

let supervisor: Supervisor | null = null;
let backend: PostgresBackend | null = null;
let raw: ReturnType<typeof rawSweeper> | null = null;
let rpcUrl = '';
let headers: Record<string, string> = {};
let wakes = 0;

function need<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`${what} is not ready (send init/start first)`);
  return value;
}

/** The remote task ids of the campaigns this replica's actors host now. */
function shareTaskIds(): string[] {
  const s = need(supervisor, 'the supervisor');
  const ids: string[] = [];
  for (const id of s.system?.list() ?? []) {
    const taskId = s.system?.host(id)?.getSnapshot().context.binding?.taskId;
    if (taskId) ids.push(taskId);
  }
  return ids;
}

async function init(input: ReplicaInit): Promise<{ replicaId: string }> {
  const selected = await selectStoreBackend(
    { ARGUS_SUPERVISOR_DATABASE_URL: input.databaseUrl, ARGUS_SUPERVISOR_DATABASE_SCHEMA: input.schema },
    { ownership: { ttlMs: input.ttlMs } },
  );
  if (!selected.ok) throw new Error(`${selected.code}: ${selected.message}`);
  if (selected.kind !== 'postgres') throw new Error('expected the PostgreSQL backend');
  backend = selected;
  const countWake: WakeHandler = async () => {
    wakes++;
  };
  const remote = createA2AClient({ baseUrl: input.simUrl, connections: input.concurrency });
  supervisor = await createSupervisor({
    config: benchConfig(input.simUrl, input.stateRoot),
    remote,
    concurrency: input.concurrency,
    wakeHandlers: { argus: countWake, foreman: countWake },
    database: backend,
  });
  const described = await remote.discover();
  if (!described.ok) throw new Error(`discovery failed: ${described.error.code}`);
  rpcUrl = described.value.rpcUrl;
  headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    'a2a-version': '1.0',
    ...(described.value.controlExtension ? { 'a2a-extensions': CONTROL_EXTENSION_URI } : {}),
  };
  return { replicaId: backend.ownership.replicaId };
}

async function start(): Promise<{ hosted: number; startMs: number }> {
  const t = performance.now();
  await need(supervisor, 'the supervisor').start({ heartbeat: false, initialSweep: false });
  return { hosted: shareTaskIds().length, startMs: performance.now() - t };
}

async function warm(concurrency: number): Promise<{ warmMs: number; ticked: number; errors: number; stragglers: number; writes: number }> {
  const s = need(supervisor, 'the supervisor');
  const writes0 = await counterTotal(s.metrics.storeWrites);
  const fleet = s.fleet;
  if (fleet) fleet.enabled = false;
  const t = performance.now();
  const first = await s.sweep();
  const warmMs = performance.now() - t;
  const writes = (await counterTotal(s.metrics.storeWrites)) - writes0;
  raw = rawSweeper(rpcUrl, headers, shareTaskIds(), concurrency);
  for (const method of ['sweep', 'fleet', 'raw'] as const) await runMethod(method);
  return { warmMs, ticked: first.ticked, errors: first.errors, stragglers: first.stragglers ?? 0, writes };
}

async function runMethod(method: ReplicaMethod): Promise<{ ticked: number; errors: number; stragglers: number }> {
  const s = need(supervisor, 'the supervisor');
  if (method === 'raw') {
    const failures = await need(raw, 'the raw sweeper').sweep();
    if (failures) throw new Error(`${failures} raw reads failed`);
    return { ticked: 0, errors: 0, stragglers: 0 };
  }
  if (s.fleet) s.fleet.enabled = method === 'fleet';
  const report = await s.sweep();
  return { ticked: report.ticked, errors: report.errors, stragglers: report.stragglers ?? 0 };
}

async function ownershipChanges(s: Supervisor): Promise<Record<string, number>> {
  return Object.fromEntries((await s.metrics.ownershipChanges.get()).values.map((v) => [String(v.labels.kind), v.value]));
}

async function measureOne(method: ReplicaMethod) {
  const s = need(supervisor, 'the supervisor');
  await settle();
  const writes0 = await counterTotal(s.metrics.storeWrites);
  const models0 = await counterTotal(s.metrics.modelCalls);
  const unchanged0 = await unchangedTicks(s);
  const wakes0 = wakes;
  const counts0 = statementCounts();
  const changes0 = await ownershipChanges(s);
  let outcome = { ticked: 0, errors: 0, stragglers: 0 };
  const m = await measure(async () => {
    outcome = await tagged(method, () => runMethod(method));
  });
  const statements = diffCounts(statementCounts(), counts0);
  return {
    method,
    wallMs: m.wallMs,
    cpuMs: m.cpuMs,
    ...outcome,
    share: shareTaskIds().length,
    unchanged: (await unchangedTicks(s)) - unchanged0,
    storeWrites: (await counterTotal(s.metrics.storeWrites)) - writes0,
    modelCalls: (await counterTotal(s.metrics.modelCalls)) - models0,
    wakes: wakes - wakes0,
    ownershipChanges: Object.fromEntries(Object.entries(await ownershipChanges(s)).map(([k, v]) => [k, v - (changes0[k] ?? 0)]).filter(([, d]) => d !== 0)) as Record<string, number>,
    /** This run's own statements (its tag) and whatever the background timers sent meanwhile. */
    statements: statements[method] ?? {},
    background: statements['background'] ?? {},
  };
}

export type MeasuredRun = Awaited<ReturnType<typeof measureOne>>;

async function beat() {
  const ownership = need(backend, 'the backend').ownership;
  const counts0 = statementCounts();
  const t = performance.now();
  const report = await tagged('beat', () => ownership.beat());
  const ms = performance.now() - t;
  return { ...report, ms, hosted: ownership.hosted().length, statements: diffCounts(statementCounts(), counts0)['beat'] ?? {} };
}

async function handle(req: Request): Promise<unknown> {
  switch (req.cmd) {
    case 'init':
      return init(req.init!);
    case 'start':
      return start();
    case 'warm':
      return warm(req.concurrency ?? 64);
    case 'measure':
      return measureOne(req.method!);
    case 'beat':
      return beat();
    case 'counts':
      return statementCounts();
    case 'hosted':
      return { actors: supervisor?.system?.list().length ?? 0, rights: backend?.ownership.hosted().length ?? 0 };
    case 'stop':
      await raw?.close().catch(() => undefined);
      await supervisor?.stop();
      setImmediate(() => process.exit(0));
      return { stopped: true };
    default:
      throw new Error(`unknown command ${req.cmd}`);
  }
}

// One request at a time, in order: the parent waits for each answer anyway.
let queue: Promise<void> = Promise.resolve();
process.on('message', (req: Request) => {
  queue = queue.then(async () => {
    try {
      process.send!({ id: req.id, ok: true, value: await handle(req) });
    } catch (error) {
      process.send!({ id: req.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
});
process.on('disconnect', () => process.exit(0));
