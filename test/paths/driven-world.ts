/**
 * The running system a driven path goes through: a real supervisor (its command API, hosts,
 * effects, store and outbox) against a real loopback simulator, on one clock the test moves,
 * with every event a campaign actor receives recorded through the supervisor's `inspect`
 * option (the door a plugin host attaches an inspector to) and every request the remote
 * receives counted by the simulator. Each path gets its own world: state root and simulator.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyActorRef, AnyEventObject, InspectionEvent } from 'xstate';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { CampaignDocuments } from '../../persistence/campaign-store.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { removeScratch } from '../fixtures/scratch.js';
import { declaredTransitions, type DeclaredTransition } from '../machines/statechart-coverage.js';
import type { CampaignCommand } from '../../services/library/library-types.js';
import { argusEnv, DrivenArgus, prepareArgusRoot, type ArgusWorldOptions } from './driven-argus.js';
import { worldStore, type StoreChoice } from './driven-store.js';

/** The model's first instant (graph-events.ts NOW): the world's clock starts there. */
export const START_MS = Date.parse('2030-01-01T00:00:10.000Z');
export const CAMPAIGN = 'path-1';

/** What one campaign actor received, and the declared transitions each event took. */
export interface Received {
  event: AnyEventObject;
  taken: string[];
}

export interface DrivenWorld {
  readonly sim: RunningSimulator;
  readonly supervisor: Supervisor;
  readonly root: string;
  readonly taskId: string | null;
  /** The SIMULATED Argus and Foreman and their levers (driven-argus.ts); null without them. */
  readonly argus: DrivenArgus | null;
  /** The shared clock (epoch ms): the supervisor's `now` and the simulator's time. */
  now(): number;
  setClock(ms: number): void;
  /** Events the campaign actor received since the last `drain`. */
  drain(): Received[];
  /**
   * Runs `then` once, as the campaign actor receives the next event of `type` (before the chart
   * takes it): how a driver makes time pass between two steps of one command (a read sent a
   * while after its tick, a journal write that took long after its readback).
   */
  whenReceived(type: string, then: (event: AnyEventObject) => void): void;
  /** The environment the campaign actor held when it last started (a restore puts the process's in). */
  startEnvironment(): unknown;
  /** Resolves once the campaign actor has received nothing for `ms` (bounded: 3 s). */
  quiet(ms: number): Promise<void>;
  /** The same, left in place (a new array after each `drain`). */
  peek(): readonly Received[];
  command(command: CampaignCommand): Promise<{ ok: boolean; value?: any; error?: { code: string; message: string } }>;
  view(): Promise<any>;
  document(): Promise<CampaignDocument>;
  /**
   * Makes the next call of one remote-client method throw instead of answering: a defect below
   * the chart (the client turns every remote failure into a code; only a bug throws), which is
   * what an effect's `xstate.error.actor.*` answer means.
   */
  defect(method: DefectMethod): void;
  /** The store's next document write fails the way a full disk does (ENOSPC; on PostgreSQL 53100 disk_full), once. */
  failNextWrite(): void;
  /** Which store the supervisor persists to (driven-store.ts). */
  readonly store: StoreChoice['kind'];
  /** Writes the campaign's document from outside the process (it must be stopped): what a crash left behind. */
  offline<T>(write: (store: CampaignDocuments) => Promise<T>): Promise<T>;
  /** Stops the supervisor (every write settled); a later `restart` starts the next one. */
  stop(): Promise<void>;
  /** Remote requests by method since the world started. */
  requests(): Record<string, number>;
  /** Stops the supervisor (every write settled) and starts a new one on the same state root. */
  restart(): Promise<void>;
  /** How many times `restart` began: a group that restarted the process whatever its driver answered. */
  restarts(): number;
  close(): Promise<void>;
}

export type DefectMethod = 'getTask' | 'leaseGet' | 'leaseClaim' | 'leaseRenew' | 'leaseRelease' | 'requestGet' | 'intervene';

/**
 * The real HTTP client for the simulator, with one lever: an armed method throws once. Every
 * other call goes to the simulator as the supervisor's own client would send it.
 */
function clientWithDefects(url: string, armed: Set<DefectMethod>): A2AClient {
  const real = createA2AClient({ baseUrl: url });
  const guard = <F extends (...args: never[]) => unknown>(name: DefectMethod, fn: F): F =>
    ((...args: never[]) => {
      if (armed.delete(name)) return Promise.reject(new TypeError(`planted defect: ${name} threw`));
      return fn(...args);
    }) as F;
  const c = real.control;
  return {
    ...real,
    getTask: guard('getTask', real.getTask),
    control: {
      ...c,
      leaseGet: guard('leaseGet', c.leaseGet),
      leaseClaim: guard('leaseClaim', c.leaseClaim),
      leaseRenew: guard('leaseRenew', c.leaseRenew),
      leaseRelease: guard('leaseRelease', c.leaseRelease),
      requestGet: guard('requestGet', c.requestGet),
      intervene: guard('intervene', c.intervene),
    },
  };
}

export interface WorldOptions {
  /** Create the campaign on a task (the simulator's `blocker` scenario, held still) or with none. */
  bound: boolean;
  /** With the SIMULATED Argus and Foreman (roots `argus`, `argus-restored`). */
  argus?: ArgusWorldOptions;
  /** The embedded file store (default) or PostgreSQL, one replica (driven-store.ts). */
  store?: StoreChoice;
}

/**
 * Turns inspection events into per-event records for one actor: `@xstate.event` opens a record,
 * each `@xstate.microstep` adds the declared transitions it took (named by id against the live
 * logic, the same chart the model walks, with its effects provided).
 */
function recorder(campaignId: string) {
  let received: Received[] = [];
  let current: Received | null = null;
  let lastAt = Date.now();
  let startEnvironment: unknown = null;
  const hooks: { type: string; then: (event: AnyEventObject) => void }[] = [];
  // Each supervisor provides its own copy of the chart (a restart makes a new one): named per logic.
  const namedBy = new WeakMap<object, Map<unknown, DeclaredTransition>>();
  const inspect = (ev: InspectionEvent) => {
    const ref = ev.actorRef as AnyActorRef & { logic?: { root?: unknown } };
    if (ref.id !== campaignId || !ref.logic?.root) return;
    if (ev.type === '@xstate.event') {
      lastAt = Date.now();
      if (ev.event.type === 'xstate.init') startEnvironment = (ref.getSnapshot() as { context: { environment: unknown } }).context.environment;
      current = { event: ev.event, taken: [] };
      received.push(current);
      const hook = hooks.findIndex((h) => h.type === ev.event.type);
      if (hook >= 0) hooks.splice(hook, 1)[0]!.then(ev.event);
    } else if (ev.type === '@xstate.microstep' && current) {
      let named = namedBy.get(ref.logic);
      if (!named) namedBy.set(ref.logic, (named = declaredTransitions(ref.logic as never).byDefinition as Map<unknown, DeclaredTransition>));
      for (const t of (ev as unknown as { _transitions: unknown[] })._transitions) current.taken.push(named.get(t)?.id ?? '(undeclared)');
    }
  };
  return {
    inspect,
    whenReceived: (type: string, then: (event: AnyEventObject) => void) => void hooks.push({ type, then }),
    startEnvironment: () => startEnvironment,
    async quiet(ms: number): Promise<void> {
      const until = Date.now() + 3000;
      while (Date.now() - lastAt < ms && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    },
    peek: (): readonly Received[] => received,
    drain(): Received[] {
      const out = received;
      received = [];
      current = null;
      return out;
    },
  };
}

export async function drivenWorld(opts: WorldOptions): Promise<DrivenWorld> {
  let clock = START_MS;
  // Stages never end by polling: the remote changes only when a driver moves it.
  const sim = await startSimulator({ port: 0, clock: () => clock, pollsPerStage: 1_000_000 });
  const root = await mkdtemp(join(tmpdir(), 'argus-paths-'));
  const record = recorder(CAMPAIGN);
  const { logger } = captureLogs();
  const argus = opts.argus ? new DrivenArgus(root, logger, clock) : null;
  const config = () =>
    loadConfig({
      ARGUS_SUPERVISOR_ENABLED: '1',
      OPENTRAINING_A2A_URL: sim.url,
      ARGUS_SUPERVISOR_STATE_ROOT: root,
      ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60',
      ...(opts.argus ? argusEnv(opts.argus) : {}),
    });
  const armed = new Set<DefectMethod>();
  const store = worldStore(opts.store ?? { kind: 'file' }, root);
  const make = async () => {
    const remote = clientWithDefects(sim.url, armed);
    const c = config();
    const s = await createSupervisor({ config: c, logger, remote, ...(await store.forSupervisor()), now: () => new Date(clock), inspect: record.inspect, ...(argus ? { decisions: argus.runtime(c) } : {}) });
    await s.start({ heartbeat: false, initialSweep: false });
    return s;
  };
  let supervisor = await make();
  let stopped = false;
  let restarts = 0;
  const stop = async () => {
    if (!stopped) await supervisor.stop();
    stopped = true;
  };
  const taskId = opts.bound ? sim.createTasks(1, 'blocker')[0]! : null;
  const created = await supervisor.campaigns({ action: 'create', campaign_id: CAMPAIGN, objective: 'fine-tune a model', max_attempts: 1, ...(taskId ? { remote_task_id: taskId } : {}) });
  if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const world: DrivenWorld = {
    sim,
    root,
    taskId,
    argus,
    get supervisor() {
      return supervisor;
    },
    now: () => clock,
    setClock(ms) {
      if (ms < clock) throw new Error('the clock only moves forward');
      clock = ms;
      argus?.setClock(ms);
    },
    drain: () => record.drain(),
    whenReceived: (type, then) => record.whenReceived(type, then),
    quiet: (ms) => record.quiet(ms),
    startEnvironment: () => record.startEnvironment(),
    peek: () => record.peek(),
    command: async (command) => (await supervisor.campaignAction({ campaign_id: CAMPAIGN, ...command } as never)) as never,
    async view() {
      const r = (await supervisor.campaigns({ action: 'get', campaign_id: CAMPAIGN })) as { ok: true; value: { campaign: unknown } };
      return r.value.campaign;
    },
    async document() {
      const loaded = await store.read(supervisor, CAMPAIGN);
      if (!loaded.ok) throw new Error(`load failed: ${loaded.code}`);
      return loaded.doc;
    },
    defect: (method) => void armed.add(method),
    failNextWrite: () => store.failNextWrite(),
    store: store.kind,
    offline: (write) => store.offline(CAMPAIGN, write),
    stop,
    requests: () => ({ ...sim.stats().requests }),
    restarts: () => restarts,
    async restart() {
      restarts++;
      await stop();
      supervisor = await make();
      stopped = false;
    },
    async close() {
      // A request a `hold` parked goes on now (its effect is long gone); nothing waits for it.
      sim.releaseHeld();
      argus?.close();
      await stop();
      await sim.close();
      await store.close();
      await removeScratch(root);
    },
  } as DrivenWorld;
  if (opts.argus) await prepareArgusRoot(world, opts.argus);
  // A path begins once discovery (in the background since start) has answered and every actor
  // was told: otherwise its ENVIRONMENT and card fetch race the path's first group (seen on
  // PostgreSQL, whose restart is slower, but a race on either store).
  for (let i = 0; i < 300 && supervisor.health().remote.discovery !== 'discovered'; i++) await new Promise((r) => setTimeout(r, 10));
  await record.quiet(50);
  return world;
}
