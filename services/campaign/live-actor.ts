/**
 * A campaign's live XState actor, as its host holds it: built (and rebuilt after a rewind) from
 * the last durable snapshot, started with one subscription and one emitted-event listener,
 * stopped the way XState lets an actor under a shared root stop. What the snapshots and events
 * mean (saves, waiters, ticks) is the host's (campaign-host.ts).
 * @module
 */
import type { Actor, Subscription } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEmitted } from '../../machines/campaign.types.js';
import { restoreActor, type RestoreDeps } from './host-restore.js';
import type { CampaignSnapshot } from './facts.js';

/** XState's own stop event (see `stopActor`). */
const XSTATE_STOP = 'xstate.stop';

export abstract class LiveActor {
  protected actor!: Actor<CampaignMachine>;
  /** The persisted snapshot as last known on disk: a failed save rewinds the actor to it. */
  protected durable: unknown;
  private subscription: Subscription | null = null;
  /** Made on the first subscriber: most campaigns never have one (an empty Set is ~150 bytes each). */
  private listeners: Set<(snapshot: CampaignSnapshot) => void> | null = null;
  /** What settling the restored snapshot emitted (an interrupted turn): heard at start. */
  private restoredEvents: CampaignEmitted[] = [];

  protected constructor(
    readonly id: string,
    private readonly restore: RestoreDeps,
  ) {}

  /** Every event the actor emits, and what settling its restored snapshot emitted. */
  protected abstract onEmitted(event: CampaignEmitted): void;
  protected abstract onSnapshot(snapshot: CampaignSnapshot): void;
  /** The actor was (re)built from `durable`: what it shows now is what is on disk. */
  protected abstract restored(snapshot: CampaignSnapshot): void;

  /** @throws MachineRestoreError when XState cannot restore the durable snapshot. */
  protected spawn(): void {
    const { actor, emitted } = restoreActor(this.id, this.durable, this.restore);
    this.actor = actor;
    this.restoredEvents = emitted;
    this.restored(actor.getSnapshot());
  }

  /** Subscribes, starts, and hears what the restore emitted (the first save carries its receipt). */
  protected startActor(): void {
    this.actor.on('*', (event) => this.onEmitted(event as CampaignEmitted));
    this.subscription = this.actor.subscribe({
      next: (snapshot) => this.onSnapshot(snapshot),
      complete: () => this.onSnapshot(this.actor.getSnapshot()),
      error: () => this.onSnapshot(this.actor.getSnapshot()),
    });
    this.actor.start();
    const restored = this.restoredEvents;
    this.restoredEvents = [];
    for (const event of restored) this.onEmitted(event);
  }

  getSnapshot(): CampaignSnapshot {
    return this.actor.getSnapshot();
  }

  subscribe(listener: (snapshot: CampaignSnapshot) => void): () => void {
    const listeners = (this.listeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  protected tellListeners(snapshot: CampaignSnapshot): void {
    if (this.listeners) for (const listener of this.listeners) listener(snapshot);
  }

  /**
   * The actor lives under the fleet root (one shared system), and XState lets only a root call
   * `stop()`: the stop event is what `stop()` itself enqueues, and it stops the actor's children
   * (the status reader, any effect) with it, synchronously when nothing else is being processed.
   */
  protected stopActor(): void {
    this.subscription?.unsubscribe();
    // A closed campaign's actor is done already (a final state): XState would warn, nothing to stop.
    if (this.actor.getSnapshot().status === 'active') this.actor.send({ type: XSTATE_STOP } as never);
  }
}
