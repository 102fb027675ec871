/**
 * The live feed behind the event stream: which campaign's view changed (with the chart states
 * its actor is in) and which public events arrived, heard from the read model's emitted events.
 *
 * Cost rules: while no one listens, the feed holds no subscription to the read model, so
 * nothing of it runs per change (10,000 quiet campaigns pay nothing). While someone listens, a
 * burst of changes to one campaign is coalesced: its id is marked dirty and, at most
 * `coalesceMs` after the first mark, one message carries its latest view. Each message is
 * serialized once, whatever the number of listeners.
 * @module
 */
import type { CampaignSummary, PublicEventView, ReadModel } from './read-model.js';

/** A campaign's latest view and the chart's active state node ids (ancestors included). */
export interface CampaignChange {
  campaign: CampaignSummary;
  active: string[];
}

export type LiveMessage =
  | { kind: 'campaign'; campaignId: string; data: CampaignChange; json: string }
  | { kind: 'public'; campaignId: string; data: PublicEventView; json: string };

export interface LiveFeedSource {
  readonly readModel: ReadModel;
  activeStates(campaignId: string): string[] | null;
}

export interface LiveFeedOptions {
  /** Upper bound between a read-model update and its message (default 100 ms; the contract says ≤ 250). */
  coalesceMs?: number;
}

type Listener = (message: LiveMessage) => void;

export class LiveFeed {
  private readonly listeners = new Set<Listener>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private detach: (() => void) | null = null;
  private readonly coalesceMs: number;

  constructor(
    private readonly source: LiveFeedSource,
    options: LiveFeedOptions = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? 100;
  }

  /** The read model's revision now (the stream's `hello`). */
  revision(): number {
    return this.source.readModel.getSnapshot().context.revision;
  }

  /** How many listeners are attached (0: the feed is detached from the read model). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Whether the feed holds its read-model subscriptions now. */
  get attached(): boolean {
    return this.detach !== null;
  }

  /** Adds a listener; the first one attaches the feed, the last one to leave detaches it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (!this.detach) this.attach();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  private attach(): void {
    const model = this.source.readModel;
    const subs = [
      model.on('campaignChanged', (e) => this.mark(e.campaignId)),
      model.on('campaignsReloaded', () => {
        for (const id of model.getSnapshot().context.campaigns.keys()) this.mark(id);
      }),
      model.on('publicEventsAdded', (e) => {
        for (const event of e.events) this.publish({ kind: 'public', campaignId: event.campaign_id, data: event, json: JSON.stringify(event) });
      }),
    ];
    this.detach = () => {
      for (const sub of subs) sub.unsubscribe();
    };
  }

  /** Detached from the read model; pending changes are dropped (no one is left to hear them). */
  private stop(): void {
    this.detach?.();
    this.detach = null;
    this.dirty.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private mark(campaignId: string): void {
    this.dirty.add(campaignId);
    if (this.timer) return;
    // Not re-armed by later marks: the first change of a burst waits at most coalesceMs.
    this.timer = setTimeout(() => this.flush(), this.coalesceMs);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    const ids = [...this.dirty];
    this.dirty.clear();
    const campaigns = this.source.readModel.getSnapshot().context.campaigns;
    for (const id of ids) {
      if (this.listeners.size === 0) return;
      const campaign = campaigns.get(id);
      if (!campaign) continue;
      const data: CampaignChange = { campaign, active: this.source.activeStates(id) ?? [] };
      this.publish({ kind: 'campaign', campaignId: id, data, json: JSON.stringify(data) });
    }
  }

  /**
   * Public events are published from inside the read model's emit, that is inside the campaign
   * host's update: a failing listener must never reach back into it, so it is dropped instead.
   */
  private publish(message: LiveMessage): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(message);
      } catch {
        this.listeners.delete(listener);
        if (this.listeners.size === 0) this.stop();
      }
    }
  }
}
