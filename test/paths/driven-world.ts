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
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { removeScratch } from '../fixtures/scratch.js';
import { declaredTransitions, type DeclaredTransition } from '../machines/statechart-coverage.js';
import type { CampaignCommand } from '../../services/library/library-types.js';
import { argusEnv, DrivenArgus, prepareArgusRoot, type ArgusWorldOptions } from './driven-argus.js';

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
  /** The same, left in place (a new array after each `drain`). */
  peek(): readonly Received[];
  command(command: CampaignCommand): Promise<{ ok: boolean; value?: any; error?: { code: string; message: string } }>;
  view(): Promise<any>;
  document(): Promise<CampaignDocument>;
  /** Remote requests by method since the world started. */
  requests(): Record<string, number>;
  /** Stops the supervisor (every write settled) and starts a new one on the same state root. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** Create the campaign on a task (the simulator's `blocker` scenario, held still) or with none. */
  bound: boolean;
  /** With the SIMULATED Argus and Foreman (roots `argus`, `argus-restored`). */
  argus?: ArgusWorldOptions;
}

/**
 * Turns inspection events into per-event records for one actor: `@xstate.event` opens a record,
 * each `@xstate.microstep` adds the declared transitions it took (named by id against the live
 * logic, the same chart the model walks, with its effects provided).
 */
function recorder(campaignId: string) {
  let received: Received[] = [];
  let current: Received | null = null;
  // Each supervisor provides its own copy of the chart (a restart makes a new one): named per logic.
  const namedBy = new WeakMap<object, Map<unknown, DeclaredTransition>>();
  const inspect = (ev: InspectionEvent) => {
    const ref = ev.actorRef as AnyActorRef & { logic?: { root?: unknown } };
    if (ref.id !== campaignId || !ref.logic?.root) return;
    if (ev.type === '@xstate.event') {
      current = { event: ev.event, taken: [] };
      received.push(current);
    } else if (ev.type === '@xstate.microstep' && current) {
      let named = namedBy.get(ref.logic);
      if (!named) namedBy.set(ref.logic, (named = declaredTransitions(ref.logic as never).byDefinition as Map<unknown, DeclaredTransition>));
      for (const t of (ev as unknown as { _transitions: unknown[] })._transitions) current.taken.push(named.get(t)?.id ?? '(undeclared)');
    }
  };
  return {
    inspect,
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
  const make = async () => {
    const c = config();
    const s = await createSupervisor({ config: c, logger, now: () => new Date(clock), inspect: record.inspect, ...(argus ? { decisions: argus.runtime(c) } : {}) });
    await s.start({ heartbeat: false, initialSweep: false });
    return s;
  };
  let supervisor = await make();
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
    peek: () => record.peek(),
    command: async (command) => (await supervisor.campaignAction({ campaign_id: CAMPAIGN, ...command } as never)) as never,
    async view() {
      const r = (await supervisor.campaigns({ action: 'get', campaign_id: CAMPAIGN })) as { ok: true; value: { campaign: unknown } };
      return r.value.campaign;
    },
    async document() {
      const loaded = await supervisor.store!.load(CAMPAIGN);
      if (!loaded.ok) throw new Error(`load failed: ${loaded.code}`);
      return loaded.doc;
    },
    requests: () => ({ ...sim.stats().requests }),
    async restart() {
      await supervisor.stop();
      supervisor = await make();
    },
    async close() {
      argus?.close();
      await supervisor.stop();
      await sim.close();
      await removeScratch(root);
    },
  } as DrivenWorld;
  if (opts.argus) await prepareArgusRoot(world, opts.argus);
  return world;
}
