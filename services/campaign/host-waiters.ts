/**
 * Who waits on a campaign's actor: operator events (collectors: everything the event caused,
 * until the snapshot that ends it) and heartbeat ticks (until neither the status read nor a
 * renewal it started runs). The host tells them what it saw; nothing here touches the store.
 * @module
 */
import type { CampaignEmitted } from '../../machines/campaign.types.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { WriteResult } from '../../persistence/campaign-store.js';
import type { CampaignSnapshot } from './projection.js';

/** What an operator event caused, once the actor is quiescent again and its save is done. */
export interface SendOutcome {
  emitted: CampaignEmitted[];
  snapshot: CampaignSnapshot;
  /** The save that followed (null: nothing durable changed, nothing written). */
  save: WriteResult | null;
}

/** Kept in the same write as the outcome (an Idempotency-Key answer), built from the outcome. */
export type KeepInSave = (doc: CampaignDocument, outcome: Omit<SendOutcome, 'save'>) => CampaignDocument;

export interface Collector {
  /** The snapshot that ends what the event caused. */
  done(snapshot: CampaignSnapshot): boolean;
  emitted: CampaignEmitted[];
  keep: KeepInSave | undefined;
  resolve(outcome: SendOutcome): void;
}

const NO_COLLECTORS: Collector[] = [];

/** A tick is over when neither its status read nor a renewal it started is running. */
export const tickBusy = (snapshot: CampaignSnapshot): boolean => {
  const children = snapshot.children as Record<string, unknown>;
  // The reader itself lives as long as the campaign: "reading" is the heartbeat's state.
  return snapshot.matches({ active: { heartbeat: 'reading' } }) || children.renewLease !== undefined;
};

export class HostWaiters {
  private readonly collectors = new Set<Collector>();
  private ticks: (() => void)[] = [];

  add(collector: Collector): void {
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

  waitForTick(): Promise<void> {
    return new Promise<void>((resolve) => this.ticks.push(resolve));
  }

  /** The tick is over at this snapshot: its waiters resolve once the writes queued so far are done. */
  releaseTicks(snapshot: CampaignSnapshot, writes: Promise<unknown>): void {
    if (this.ticks.length === 0 || tickBusy(snapshot)) return;
    const waiters = this.ticks;
    this.ticks = [];
    void writes.then(() => waiters.forEach((resolve) => resolve()));
  }

  /** The actor was stopped: a tick or an action waiting for it would wait forever (and hold its sweep). */
  releaseAll(snapshot: CampaignSnapshot, failed: Extract<WriteResult, { ok: false }>): void {
    const ticks = this.ticks;
    this.ticks = [];
    ticks.forEach((resolve) => resolve());
    const stranded = [...this.collectors];
    this.collectors.clear();
    for (const c of stranded) c.resolve({ emitted: c.emitted, snapshot, save: failed });
  }
}
