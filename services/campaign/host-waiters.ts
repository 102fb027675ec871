/**
 * Who waits on a campaign's actor: operator events (collectors: everything the event caused,
 * until the snapshot that ends it) and heartbeat ticks (until neither the status read nor a
 * renewal it started runs). The host tells them what it saw; nothing here touches the store.
 * @module
 */
import type { CampaignEmitted } from '../../machines/campaign.types.js';
import type { IdempotencyRecord } from '../../persistence/idempotency.js';
import type { WriteResult } from '../../persistence/campaign-store.js';
import type { CampaignSnapshot } from './facts.js';

/** What an operator event caused, once the actor is quiescent again and its save is done. */
export interface SendOutcome {
  emitted: CampaignEmitted[];
  snapshot: CampaignSnapshot;
  /** The save that followed (null: nothing durable changed, nothing written). */
  save: WriteResult | null;
}

/**
 * The Idempotency-Key record of an operator event's outcome: plain data, taken when the outcome is
 * known (the snapshot that ends the event) and written in the same save as that outcome.
 */
export type RecordOutcome = (outcome: Omit<SendOutcome, 'save'>) => IdempotencyRecord;

export interface Collector {
  /** The snapshot that ends what the event caused. */
  done(snapshot: CampaignSnapshot): boolean;
  emitted: CampaignEmitted[];
  record: RecordOutcome | undefined;
  resolve(outcome: SendOutcome): void;
}

const NO_COLLECTORS: Collector[] = [];
/** Shared by every host with no operator event waiting; never added to (see `add`). */
const NO_WAITING: Set<Collector> = new Set();

/** The status read is in flight (the reader itself lives as long as the campaign: "reading" is the heartbeat's state). */
export const readInFlight = (snapshot: CampaignSnapshot): boolean => snapshot.matches({ active: { heartbeat: 'reading' } });
/** A renewal is in flight. */
export const renewalInFlight = (snapshot: CampaignSnapshot): boolean => (snapshot.children as Record<string, unknown>).renewLease !== undefined;

/** A tick is over when neither its status read nor a renewal it started is running. */
export const tickBusy = (snapshot: CampaignSnapshot): boolean => readInFlight(snapshot) || renewalInFlight(snapshot);

/**
 * A tick waits only for what it started: a read or renewal already in flight from an earlier
 * beat belongs to that beat, so a slow read never holds a later sweep.
 */
export interface TickWaiter {
  read: boolean;
  renewal: boolean;
  settled: () => void;
}
const waiterBusy = (w: TickWaiter, snapshot: CampaignSnapshot): boolean => (w.read && readInFlight(snapshot)) || (w.renewal && renewalInFlight(snapshot));

export class HostWaiters {
  /** Made on the first operator event: a campaign only ticked never needs one (~150 bytes each). */
  private collectors: Set<Collector> = NO_WAITING;
  private ticks: TickWaiter[] = [];

  add(collector: Collector): void {
    if (this.collectors === NO_WAITING) this.collectors = new Set();
    this.collectors.add(collector);
  }

  has(collector: Collector): boolean {
    return this.collectors.has(collector);
  }

  /** Every emitted event belongs to each operator event still waiting. */
  heard(event: CampaignEmitted): void {
    for (const c of this.collectors) c.emitted.push(event);
  }

  /** The collectors this snapshot finishes, no longer waiting. Most snapshots are a heartbeat's: no allocation then. */
  finishing(snapshot: CampaignSnapshot): Collector[] {
    if (this.collectors.size === 0) return NO_COLLECTORS;
    const done = [...this.collectors].filter((c) => c.done(snapshot));
    for (const c of done) this.collectors.delete(c);
    return done;
  }

  waitForTick(waiter: TickWaiter): void {
    this.ticks.push(waiter);
  }

  /** The ticks this snapshot ends: each is told once the writes queued so far are done. */
  releaseTicks(snapshot: CampaignSnapshot, writes: Promise<unknown>): void {
    if (this.ticks.length === 0) return;
    const over = this.ticks.filter((w) => !waiterBusy(w, snapshot));
    if (over.length === 0) return;
    this.ticks = this.ticks.length === over.length ? [] : this.ticks.filter((w) => waiterBusy(w, snapshot));
    void writes.then(() => over.forEach((w) => w.settled()));
  }

  /** The actor was stopped: a tick or an action waiting for it would wait forever (and hold its sweep). */
  releaseAll(snapshot: CampaignSnapshot, failed: Extract<WriteResult, { ok: false }>): void {
    const ticks = this.ticks;
    this.ticks = [];
    ticks.forEach((w) => w.settled());
    const stranded = [...this.collectors];
    this.collectors.clear();
    for (const c of stranded) c.resolve({ emitted: c.emitted, snapshot, save: failed });
  }
}
