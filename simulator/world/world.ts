/**
 * The simulated remote: tasks, contexts (campaigns) and their leases. Every dialect renders
 * from this one model, so the SDK's task store, the 0.2 layer and the admin API agree.
 * @module
 */
import type { ScenarioName } from '../names.js';
import { LeaseBook } from './leases.js';
import { RequestLedger } from './request-ledger.js';
import { RpcError, RPC_CODES } from './rpc-error.js';
import { RIVAL_CONTROLLER_ID, ScenarioBook, type SimState } from './scenarios.js';
import { SimTask } from './sim-task.js';
import { StatsRecorder } from './stats.js';

export interface TaskSummary {
  id: string;
  contextId: string;
  scenario: ScenarioName;
  state: SimState;
  stage: string | null;
  revision: number;
  attempt: number;
  polls: number;
}

/** Ids of tasks created in bulk, index-aligned with their context ids. */
export interface CreatedTasks {
  ids: string[];
  contextIds: string[];
}

export interface NewTask {
  id?: string;
  contextId?: string;
  scenario: ScenarioName;
  instruction?: string | null;
  userMessageId?: string | null;
}

export interface WorldOptions {
  now: () => number;
  pollsPerStage: number;
  takeoverAtPoll: number;
}

/** Instruction texts are data we echo back; cap what a client can make us hold. */
const MAX_INSTRUCTION_CHARS = 2000;

export class World {
  readonly tasks = new Map<string, SimTask>();
  readonly leases: LeaseBook;
  readonly ledger = new RequestLedger();
  readonly stats = new StatsRecorder();
  readonly now: () => number;
  private readonly scenarios: ScenarioBook;
  /** Attempts so far per context; a context exists once it has a task or a lease. */
  private readonly attempts = new Map<string, number>();
  private taskSeq = 0;
  private contextSeq = 0;

  constructor(options: WorldOptions) {
    this.now = options.now;
    this.leases = new LeaseBook(options.now);
    this.scenarios = new ScenarioBook(options.pollsPerStage, options.takeoverAtPoll);
  }

  /** A server-generated context id (claim without contextId, admin-created tasks). */
  newContextId(): string {
    let id: string;
    do id = `ctx-${++this.contextSeq}`;
    while (this.attempts.has(id));
    this.attempts.set(id, 0);
    return id;
  }

  createTask(spec: NewTask): SimTask {
    const contextId = spec.contextId ?? this.newContextId();
    const attempt = (this.attempts.get(contextId) ?? 0) + 1;
    this.attempts.set(contextId, attempt);
    let id = spec.id;
    if (id === undefined) {
      do id = `task-${++this.taskSeq}`;
      while (this.tasks.has(id));
    }
    const instruction = spec.instruction == null ? null : spec.instruction.slice(0, MAX_INSTRUCTION_CHARS);
    const task = new SimTask(id, contextId, this.scenarios.get(spec.scenario), attempt, this.now(), instruction, spec.userMessageId ?? null);
    this.tasks.set(id, task);
    this.stats.tasksCreated++;
    return task;
  }

  createMany(count: number, scenario: ScenarioName, contextId?: string): CreatedTasks {
    const ids: string[] = new Array(count);
    const contextIds: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const task = this.createTask(contextId === undefined ? { scenario } : { scenario, contextId });
      ids[i] = task.id;
      contextIds[i] = task.contextId;
    }
    return { ids, contextIds };
  }

  get(taskId: string): SimTask | undefined {
    return this.tasks.get(taskId);
  }

  /** One scenario step for a task: what every GetTask / tasks/get does before answering. */
  poll(taskId: string): SimTask | undefined {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    task.step(this.now());
    if (task.script.takeoverAtPoll !== null && task.polls === task.script.takeoverAtPoll && !task.finished) {
      this.leases.force(task.contextId, RIVAL_CONTROLLER_ID);
    }
    return task;
  }

  /**
   * Jumps a task to the first phase of its script in `state` (a change between two reads that
   * no poll made: driven tests script the remote with it). False when the script has no such
   * phase, or the task has finished.
   */
  moveTo(taskId: string, state: SimState): boolean {
    const task = this.require(taskId);
    const phase = task.script.phases.findIndex((p) => p.state === state);
    // A finished task never changes (A2A's terminal states are final).
    if (phase < 0 || task.finished) return false;
    task.phase = phase;
    task.inPhase = 0;
    if (state === 'input-required') task.asked++;
    task.touch(this.now());
    return true;
  }

  /** Publishes one more checkpoint artifact on an unfinished task; false when it has finished. */
  addCheckpoint(taskId: string): boolean {
    const task = this.require(taskId);
    if (task.finished) return false;
    task.checkpoints++;
    task.touch(this.now());
    return true;
  }

  /** Steps every unfinished task once; returns how many moved. */
  advanceAll(): number {
    let moved = 0;
    for (const task of this.tasks.values()) {
      if (task.finished) continue;
      const before = task.revision;
      this.poll(task.id);
      if (task.revision !== before) moved++;
    }
    return moved;
  }

  require(taskId: string): SimTask {
    const task = this.tasks.get(taskId);
    if (!task) throw new RpcError(RPC_CODES.taskNotFound, `Task not found: ${taskId}`);
    return task;
  }

  /** Cancels an unfinished task; canceling a canceled task is a no-op (A2A: idempotent). */
  cancel(taskId: string): SimTask {
    const task = this.require(taskId);
    if (task.state === 'canceled') return task;
    if (task.finished) throw new RpcError(RPC_CODES.taskNotCancelable, `Task not cancelable: ${taskId} is ${task.state}`);
    task.cancel(this.now());
    return task;
  }

  /** A follow-up message or an intervention: recorded, and it releases an input-required wait. */
  answer(taskId: string, text: string): SimTask {
    const task = this.require(taskId);
    if (task.finished) throw new RpcError(RPC_CODES.unsupportedOperation, `Task ${taskId} is ${task.state} and cannot be modified`);
    task.answer(text.slice(0, MAX_INSTRUCTION_CHARS), this.now());
    return task;
  }

  intervene(taskId: string, instruction: string): SimTask {
    const task = this.answer(taskId, instruction);
    task.interventions++;
    return task;
  }

  /** Task revision as shown: own changes plus the context's lease changes, both monotonic. */
  revisionOf(task: SimTask): number {
    return task.revision + this.leases.changes(task.contextId);
  }

  summary(task: SimTask): TaskSummary {
    return {
      id: task.id,
      contextId: task.contextId,
      scenario: task.script.name,
      state: task.state,
      stage: task.stage,
      revision: this.revisionOf(task),
      attempt: task.attempt,
      polls: task.polls,
    };
  }
}
