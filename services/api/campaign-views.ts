/**
 * What the live actors tell the read side: the read model (@xstate/store) of views and the
 * public feed, the metrics, `last_read_at` (memory only) and the wake handlers. Views are
 * projected from the host's snapshot, never stored; public events reach the feed only once
 * their save is durable.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { CampaignEmitted } from '../../machines/campaign.types.js';
import type { WakeTarget } from '../../machines/vocabulary.js';
import type { CampaignDocument, WakeRequest as RecordedWake } from '../../persistence/campaign-document.js';
import type { CampaignHost } from '../campaign/campaign-host.js';
import type { SaveResult } from '../campaign/campaign-save.js';
import { shownMessageChanged } from './campaign-health.js';
import { corruptSummary, eventViews, projectCampaign, type CampaignFacts, type CampaignSnapshot } from './campaign-projection.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { CampaignSummary, PublicEventView, ReadModel } from './read-model.js';

/**
 * Where wake requests go. The Argus and Foreman bridges are a later issue; until then the
 * requests are only recorded durably (and counted), and tests pass a counting bridge here.
 */
export type WakeHandler = (campaignId: string, wake: RecordedWake) => Promise<void>;

export interface CampaignViewsDeps {
  readModel: ReadModel;
  metrics: SupervisorMetrics;
  logger: Logger;
  wakeHandlers?: Partial<Record<WakeTarget, WakeHandler>> | undefined;
  allowedActions(host: CampaignHost, snapshot: CampaignSnapshot): string[];
  /** The supervisor's clock: a view read past its lease's expiry never shows `controlling`. */
  now?: () => Date;
}

export class CampaignViews {
  private loading: { summaries: CampaignSummary[]; events: PublicEventView[] } | null = null;

  constructor(private readonly deps: CampaignViewsDeps) {}

  /** `allowed`: how an action's answer asks (see CampaignActions); by default, live when read. */
  summary(host: CampaignHost, facts: CampaignFacts = host.facts, snapshot: CampaignSnapshot = host.getSnapshot(), allowed?: () => string[]): CampaignSummary {
    if (host.corrupt) return corruptSummary(host.id);
    return projectCampaign(facts, snapshot, { ...memoryOf(host), allowedActions: allowed ?? (() => this.live(host)), ...this.readAt(host) });
  }

  /** The view now, as plain data (`allowed_actions` asked of the live snapshot, once): an answer's `campaign`. */
  plainSummary(host: CampaignHost | undefined): CampaignSummary | undefined {
    return host ? (JSON.parse(JSON.stringify(this.summary(host))) as CampaignSummary) : undefined;
  }

  /**
   * `allowed_actions` at the moment the view is read: the live snapshot and the clock of now (the
   * lease's expiry), never those of when the view was projected (issue 18 item 7: a view
   * refreshed mid-mutation offered nothing).
   */
  private live(host: CampaignHost): string[] {
    return host.corrupt ? [] : this.deps.allowedActions(host, host.getSnapshot());
  }

  /** The view start-up (or a rediscovery) builds for every campaign; `allowed_actions` is asked only when read. */
  private lazySummary(host: CampaignHost): CampaignSummary {
    if (host.corrupt) return corruptSummary(host.id);
    return projectCampaign(host.facts, host.getSnapshot(), { ...memoryOf(host), allowedActions: () => this.live(host), ...this.readAt(host) });
  }

  /** A controlling view is judged again at the moment it is read (its lease may have lapsed since). */
  private readAt(host: CampaignHost) {
    const now = this.deps.now;
    return now ? { readAt: { now, allowedActions: () => this.live(host) } } : {};
  }

  /** Collects views and feeds while the system loads; one read-model update at the end. */
  beginLoad(): void {
    this.loading = { summaries: [], events: [] };
  }

  loaded(doc: CampaignDocument): void {
    this.loading?.events.push(...eventViews(doc.outbox.events));
  }

  endLoad(hosts: Iterable<CampaignHost>, corrupt: Iterable<{ id: string }>): void {
    const summaries = [...hosts].map((h) => this.lazySummary(h));
    for (const c of corrupt) summaries.push(corruptSummary(c.id));
    this.deps.readModel.trigger.campaignsLoaded({ summaries, events: this.loading?.events ?? [] });
    this.loading = null;
  }

  /** Every view again (the remote's capabilities changed), each `allowed_actions` asked when next read. */
  refreshAll(hosts: Iterable<CampaignHost>): void {
    if (this.loading) return;
    for (const host of hosts) this.deps.readModel.trigger.campaignUpdated({ summary: this.lazySummary(host) });
  }

  refresh(host: CampaignHost): void {
    if (this.loading) return;
    this.deps.readModel.trigger.campaignUpdated({ summary: this.summary(host) });
  }

  /** The campaign's actor is no longer in this process (a replica handed it over or lost its right). */
  left(campaignId: string): void {
    this.deps.readModel.trigger.campaignLeft({ campaignId });
  }

  corrupt(campaignId: string): void {
    if (this.loading) return;
    this.deps.readModel.trigger.campaignUpdated({ summary: corruptSummary(campaignId) });
  }

  /** A successful status read: `last_read_at` moves in memory only (an unchanged tick writes nothing). */
  read(host: CampaignHost, at: string, message: string | null = null): void {
    host.lastReadAt = at;
    // The status text is memory only. Only a change the view shows re-projects it (e.g. the first
    // read of a failed task after a restart): a working task's noisy text costs nothing per tick.
    const before = host.remoteMessage;
    host.remoteMessage = message;
    if (this.loading) return;
    if (!host.corrupt && shownMessageChanged(host.getSnapshot().context.remote?.state ?? null, before, message)) this.refresh(host);
    // `send` with the event as is: `trigger` would copy it (a spread per read of every sweep).
    this.deps.readModel.send({ type: 'campaignRead', campaignId: host.id, at });
  }

  emitted(host: CampaignHost, event: CampaignEmitted): void {
    if (event.type === 'READ_SETTLED' && event.result === 'failed' && event.code !== null) host.lastFailedRead = { code: event.code, at: event.at };
    // An operator's observe is not a heartbeat tick.
    if (event.type === 'READ_SETTLED' && host.observing === 0) this.deps.metrics.ticks.inc({ result: event.result });
  }

  /** The save is durable: publish its events, count them, and hand its wakes to the bridges. */
  saved(host: CampaignHost, saved: SaveResult): void {
    const { metrics, readModel } = this.deps;
    for (const event of saved.appended) metrics.publicEvents.inc({ kind: event.kind });
    // While the system loads, the feed is being assembled: a save made meanwhile joins it there.
    if (saved.appended.length && this.loading) this.loading.events.push(...eventViews(saved.appended));
    else if (saved.appended.length) readModel.trigger.publicEventsAppended({ events: eventViews(saved.appended) });
    for (const wake of saved.wakes) {
      // A wake is a request, not a model call: model_calls is counted only where a model is
      // actually called (services/decisions/decision-runtime.ts, per argus_message / Foreman run).
      metrics.wakeRequests.inc({ target: wake.target });
      const handler = this.deps.wakeHandlers?.[wake.target];
      if (!handler) continue;
      // A wake is durable before the handler runs; a failing (or slow) handler never blocks observation.
      void handler(host.id, wake).catch((error: unknown) =>
        this.deps.logger.error({ campaignId: host.id, target: wake.target, err: String(error) }, 'wake handler failed'),
      );
    }
  }
}

/** What the host keeps in memory only (never persisted, so never written by a tick). */
function memoryOf(host: CampaignHost) {
  return { lastReadAt: host.lastReadAt, lastFailedRead: host.lastFailedRead, remoteMessage: host.remoteMessage };
}
