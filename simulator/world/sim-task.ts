/**
 * One remote task as a handful of counters. Everything shown on the wire (progress, status
 * text, artifacts) is derived from these on render, so 10,000 tasks stay cheap to hold.
 * @module
 */
import type { ScenarioScript, SimState } from './scenarios.js';
import { isTerminal } from './scenarios.js';

export class SimTask {
  /** Index into the script's phases. */
  phase = 0;
  /** Polls spent in the current phase. */
  inPhase = 0;
  /** Every advance of this task while unfinished (drives the takeover trigger). */
  polls = 0;
  /** Noise steps taken (drives step, loss and stdout cursor). */
  ticks = 0;
  /** Own changes; the rendered revision also adds the context's lease changes. */
  revision = 1;
  canceled = false;
  interventions = 0;
  /** Checkpoints the training published so far (a driver's lever: each is an artifact). */
  checkpoints = 0;
  /** How many times a driver moved the task into input-required (`moveTo`): each time is a new question. */
  asked = 0;
  /** Last answer or intervention text, echoed back in the status while working. */
  note: string | null = null;
  updatedAt: number;

  constructor(
    readonly id: string,
    readonly contextId: string,
    readonly script: ScenarioScript,
    readonly attempt: number,
    readonly createdAt: number,
    /** Text of the submitting message (null for tasks created through the admin API). */
    readonly instruction: string | null,
    readonly userMessageId: string | null,
  ) {
    this.updatedAt = createdAt;
  }

  get state(): SimState {
    return this.canceled ? 'canceled' : this.current.state;
  }

  get stage(): string | null {
    return this.current.stage;
  }

  get current() {
    // The script always ends in an infinite phase, so the index never runs past it.
    return this.script.phases[this.phase]!;
  }

  get finished(): boolean {
    return isTerminal(this.state);
  }

  get awaitingAnswer(): boolean {
    return !this.canceled && this.current.awaitsAnswer === true;
  }

  /** One scenario step. Returns false when nothing changed (finished, or waiting for an answer). */
  step(now: number): boolean {
    if (this.finished) return false;
    this.polls++;
    if (this.awaitingAnswer) return false;
    this.inPhase++;
    if (this.inPhase >= this.current.length) {
      this.phase++;
      this.inPhase = 0;
    }
    if (this.current.noise) this.ticks++;
    this.touch(now);
    return true;
  }

  /** An answer releases an input-required phase; otherwise it is just recorded. */
  answer(text: string, now: number): void {
    if (this.awaitingAnswer) {
      this.phase++;
      this.inPhase = 0;
    }
    this.note = text;
    this.touch(now);
  }

  cancel(now: number): void {
    this.canceled = true;
    this.touch(now);
  }

  touch(now: number): void {
    this.revision++;
    this.updatedAt = now;
  }
}
