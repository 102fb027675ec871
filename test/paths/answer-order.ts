/**
 * Makes the effect answers of one planned group arrive in the planned order, and keeps a
 * decision effect's answer back for the group that plans it.
 *
 * A running system races: after a TICK, the status read and the binding's verification both
 * answer, in whichever order the loopback and the Argus child happen to give. The plan names
 * one order (and the chart takes different arrows for the other). And a decision effect may be
 * planned to answer only in a LATER group (Foreman still assessing when the next read comes,
 * the binding still in flight when the heartbeat ticks), or never (a pause stops it).
 *
 * So, once the runner starts, every call a decision effect makes at its port (a bridge method,
 * the Foreman runner) is PARKED until its answer's turn, and the read's GetTask is held at the
 * simulator (`sim.hold`) when an earlier answer of its group must come first. An answer's turn
 * comes when the group's performed event and every answer planned before it have arrived at
 * the actor. Nothing is answered for the effect: a released call goes on to the SIMULATED Argus
 * or Foreman as it was made, and the chart gets whatever they say. Only the timing is the
 * harness's (as if Argus took longer to answer).
 */
import type { Received } from './driven-world.js';

/** The port a decision effect calls first (decision-runtime.ts, effects-decisions.ts). */
export type Port = 'status' | 'createProject' | 'message' | 'assess';
const PORT_OF: Record<string, Port> = { argusTurn: 'message', argusCheck: 'status', verifyBinding: 'status', bindMission: 'createProject', foremanAssess: 'assess' };

interface Entry {
  /** A decision effect's id, or `read` (the status reader). */
  source: string;
  released: boolean;
  /** For a read held at the simulator: serves it. */
  release?: () => void;
}

const LIFECYCLE = new Set(['xstate.init', 'xstate.stop']);
const answersOf = (received: readonly Received[], source: string): number =>
  received.filter((r) =>
    source === 'read' ? r.event.type === 'READ_DONE' || r.event.type === 'READ_CRASHED' : r.event.type === `xstate.done.actor.${source}` || r.event.type === `xstate.error.actor.${source}`,
  ).length;

/** Gives up ordering after this long without progress (the path is then reported, not hung). */
const STALL_MS = 20_000;

export class AnswerOrder {
  private active = false;
  private group: readonly Received[] | null = null;
  private entries: Entry[] = [];
  private readonly parked: { port: Port; go: () => void }[] = [];
  /** Calls allowed through before they were made (their turn came first). */
  private readonly allowed: Port[] = [];
  private timer: NodeJS.Timeout | null = null;
  private afterwards: (() => void)[] = [];
  private progressAt = Date.now();

  constructor(private readonly peek: () => readonly Received[]) {}

  /** From now on, decision calls wait for their turn (root preparation is over). */
  start(): void {
    this.active = true;
    this.timer = setInterval(() => this.pump(), 2);
    this.timer.unref();
  }

  /** Stops ordering; `release` lets every waiting call and held read go on (else they are dropped with the world). */
  stop(release: boolean): void {
    this.active = false;
    if (this.timer) clearInterval(this.timer);
    const parked = this.parked.splice(0);
    if (!release) return;
    for (const p of parked) p.go();
    for (const e of this.entries) e.release?.();
    for (const release of this.afterwards.splice(0)) release();
  }

  /** The runner drained what arrived: a new group's plan begins. */
  private current(): Entry[] {
    const received = this.peek();
    if (received !== this.group) {
      this.group = received;
      this.entries = [];
      this.allowed.length = 0;
      for (const release of this.afterwards.splice(0)) release();
      this.progressAt = Date.now();
    }
    return this.entries;
  }

  /** A planned answer of the current group, in plan order; `holdRead` holds the read at the simulator when it must wait. */
  plan(source: string, holdRead?: () => () => void): void {
    const entries = this.current();
    const entry: Entry = { source, released: false };
    if (source === 'read' && entries.length > 0 && holdRead) entry.release = holdRead();
    entries.push(entry);
  }

  /** Something held until every planned answer of the group has arrived (e.g. a renewal the plan does not answer yet). */
  holdUntilAnswered(hold: () => () => void): void {
    this.current();
    this.afterwards.push(hold());
  }

  /** A decision effect's call at `port`: goes on now if its turn has come, else when it comes. */
  gate(port: Port): Promise<void> {
    if (!this.active) return Promise.resolve();
    const i = this.allowed.indexOf(port);
    if (i >= 0) {
      this.allowed.splice(i, 1);
      return Promise.resolve();
    }
    return new Promise((go) => this.parked.push({ port, go }));
  }

  /** True while a decision call waits for its turn: its effect is not "in flight" for settling. */
  get holding(): boolean {
    return this.parked.length > 0;
  }

  /**
   * True while a decision effect's answer planned for this group has not arrived: a call parked
   * for such a turn is about to be let through (the pump runs every 2 ms), so the group is not
   * over yet, however quiet the campaign looks right now.
   */
  get expecting(): boolean {
    if (!this.active) return false;
    const entries = this.current();
    const received = this.peek();
    const seen = new Map<string, number>();
    return entries.some((entry) => {
      const nth = (seen.get(entry.source) ?? 0) + 1;
      seen.set(entry.source, nth);
      return entry.source !== 'read' && answersOf(received, entry.source) < nth;
    });
  }

  private pump(): void {
    const entries = this.current();
    const received = this.peek();
    if (!received.some((r) => !LIFECYCLE.has(r.event.type))) return;
    const seen = new Map<string, number>();
    for (const entry of entries) {
      const nth = (seen.get(entry.source) ?? 0) + 1;
      seen.set(entry.source, nth);
      if (!entry.released) {
        entry.released = true;
        this.progressAt = Date.now();
        if (entry.source === 'read') entry.release?.();
        else this.allow(PORT_OF[entry.source]!);
      }
      // The next entry waits for this one's answer.
      if (answersOf(received, entry.source) < nth) {
        if (Date.now() - this.progressAt > STALL_MS) this.stop(true);
        return;
      }
    }
    for (const release of this.afterwards.splice(0)) release();
  }

  private allow(port: Port): void {
    const i = this.parked.findIndex((p) => p.port === port);
    if (i >= 0) this.parked.splice(i, 1)[0]!.go();
    else this.allowed.push(port);
  }
}
