/**
 * Public options and handles of the OpenTraining simulator. Kept apart from the server code
 * so callers (the CLI, tests, benchmarks) can import the types without pulling express in.
 * @module
 */
import type { LeaseView } from '../adapters/a2a/control-contract.js';
import type { FaultSpec } from './http/fault-spec.js';
import type { ArrivalListener, LedgerPage } from './world/request-log.js';
import type { SimulatorStats } from './world/stats.js';
import type { ScenarioName, SimListing, SimProtocol } from './names.js';
import type { SimState } from './world/scenarios.js';
import type { CreatedTasks, TaskSummary } from './world/world.js';

export type { ScenarioName, SimListing, SimProtocol } from './names.js';
export type { CreatedTasks } from './world/world.js';

/** The subset of a pino logger the simulator uses; a pino instance fits as is. */
export interface SimulatorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SimulatorOptions {
  /** TCP port on 127.0.0.1; 0 (the default) picks an ephemeral one. */
  port?: number;
  /** Wire dialect: '1.0' (SDK), '0.3' (SDK legacy compat) or '0.2' (FastA2A-like, own layer). */
  protocol?: SimProtocol;
  /** Advertise and implement the control extension (default true); false = read-only remote. */
  control?: boolean;
  /** Scenario of tasks created by SendMessage / message/send (default 'training'). */
  scenario?: ScenarioName;
  /** When set, A2A endpoints require `Authorization: Bearer <token>` or `X-API-KEY: <token>`. */
  token?: string;
  /**
   * Reject stale fenced mutations (default true). False models a naive remote that applies
   * them anyway and counts them in `staleMutationsApplied`, so a test can prove that the
   * client's own gate never sent one.
   */
  enforceEpochs?: boolean;
  /**
   * What the card claims in `params.epochEnforcement` (default true, even when
   * `enforceEpochs` is false: the naive remote *claims* fencing it does not do, otherwise a
   * correct client would never mutate it and its own gate could not be exercised).
   */
  advertiseEpochEnforcement?: boolean;
  /**
   * ListTasks on the 1.0 endpoint (default 'off': method not found). 'spec' and 'sdk-memory'
   * list as pure reads: a listing never advances a scenario (see simulator/names.ts).
   */
  listing?: SimListing;
  /** Polls spent in each stage of the staged scenarios (default 3). */
  pollsPerStage?: number;
  /** Poll of a `takeover` task at which the rival claims its context (default 2). */
  takeoverAtPoll?: number;
  /** Time source in epoch milliseconds (default Date.now); `advanceClock` adds to it. */
  clock?: () => number;
  logger?: SimulatorLogger;
}

export interface RunningSimulator {
  /** The A2A base URL, e.g. http://127.0.0.1:PORT/a2a (cards and endpoints hang below it). */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly protocol: SimProtocol;
  readonly control: boolean;
  close(): Promise<void>;
  /** Creates tasks directly (each in a fresh context unless `contextId` is given). */
  createTasks(count: number, scenario?: ScenarioName, contextId?: string): string[];
  createTasksDetailed(count: number, scenario?: ScenarioName, contextId?: string): CreatedTasks;
  /** One scenario step for one task, or for every unfinished task; returns how many moved. */
  advance(taskId?: string): number;
  /**
   * Jumps a task to the first phase of its scenario in `state` without a poll; false when it has
   * none, or the task has finished. Moved into input-required again, it asks a new question.
   */
  moveTask(taskId: string, state: SimState): boolean;
  /** Publishes one more checkpoint artifact on an unfinished task (1.0/0.3 render it); false once it finished. */
  addCheckpoint(taskId: string): boolean;
  /**
   * Holds every A2A request of these methods (counted on arrival, nothing applied yet) until
   * `release()`, which serves them in arrival order (armed faults still apply) and lifts the
   * hold: a driver orders answers that would otherwise race.
   */
  hold(methods: string[]): { release(): number };
  /** Force-claims a context for another controller, bumping the epoch. */
  takeover(contextId: string, controllerId: string, ttlSeconds?: number): LeaseView;
  injectFaults(spec: FaultSpec | FaultSpec[]): void;
  clearFaults(): void;
  /** Releases every hold (`hold`); returns how many requests were parked. */
  releaseHeld(): number;
  /** Requests parked by holds now. */
  readonly holding: number;
  /** The live lease on a context (null: none, or expired). */
  lease(contextId: string): LeaseView | null;
  /** Moves the simulator's clock forward (lease expiry without sleeping). */
  advanceClock(seconds: number): void;
  /** A compact view of one task without advancing it. */
  task(taskId: string): TaskSummary | undefined;
  stats(): SimulatorStats;
  /** The remote's log of mutation requests from `since` (a seq) on: the `/_sim/ledger` page. */
  ledger(since?: number): LedgerPage;
  /** Calls `listener` as each mutation request arrives, before it is applied; returns an unsubscribe. */
  onMutationRequest(listener: ArrivalListener): () => void;
}
