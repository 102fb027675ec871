/**
 * What a replica shows of the campaigns OTHER replicas host (issue 22, part 5: any replica
 * answers any campaign):
 *
 * - Their public events reach this replica's feed (the read model, hence the SSE stream and the
 *   `get` answers): the owner NOTIFYs a notice (campaign id, seq range, origin) after each save
 *   that appended public events (command-relay.ts `publish`); here every notice from another
 *   origin is followed by a read of that campaign's document, and the outbox events in the range
 *   join the feed. Also for a campaign hosted here now: a notice from another origin names events
 *   its previous owner saved, which this replica's actor never produced. Deduplicated by event id
 *   (the feed's, and a bounded memory of what was added here). Notices of one campaign are
 *   coalesced: one read at a time, covering every range heard meanwhile.
 * - After the listener reconnects (`gap`: notices may have been lost) and once at start, every
 *   other campaign's latest events are read again (bounded: CATCH_UP_PER_CAMPAIGN each, the
 *   feed's size in all).
 * - `elsewhere()`: their views for `list`, projected from their documents (stored-summary.ts).
 *
 * Everything here is read-only: no right, no fence, no write, no remote call.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { MachineVersionCheck } from '../../persistence/document-db.js';
import type { Database } from '../../persistence/postgres/database.js';
import { documentOf, documentsById, eachDocumentElsewhere, ELSEWHERE_PAGE, versionsElsewhere } from '../../persistence/postgres/campaign-reads.js';
import type { EventsNotice } from '../../persistence/postgres/relay-events.js';
import { describeError } from '../../persistence/store-errors.js';
import { corruptSummary, eventViews } from '../api/campaign-projection.js';
import { FEED_LIMIT, type CampaignSummary, type PublicEventView, type ReadModel } from '../api/read-model.js';
import { storedSummary, type StoredSummaryDeps } from './stored-summary.js';

/** How many of each other campaign's latest events a catch-up reads again. */
export const CATCH_UP_PER_CAMPAIGN = 20;
/** Event ids remembered as added here (beyond the feed itself), so a re-read adds none twice. */
const SEEN_LIMIT = 20_000;

export interface ReplicaReadsDeps {
  db: Database;
  readModel: ReadModel;
  /** Campaign ids hosted here now (their views come from the actors). */
  hosted(): readonly string[];
  summaries: StoredSummaryDeps;
  /** False once the replica stopped (its relay and pool are closed): nothing more is read or added. */
  open(): boolean;
  machineVersionKnown?: MachineVersionCheck;
  logger: Logger;
  /** Default CATCH_UP_PER_CAMPAIGN. */
  catchUpPerCampaign?: number;
  /** Documents per statement when paging through every other campaign (default ELSEWHERE_PAGE; tests). */
  pageSize?: number;
}

export interface EventsSource {
  onEvents(listener: (notice: EventsNotice) => void): () => void;
}

export class ReplicaReads {
  private readonly seen = new Set<string>();
  /** `list`'s views of the campaigns hosted elsewhere, by document row version. */
  private readonly views = new Map<string, { version: string; summary: CampaignSummary }>();
  private viewsEnvironment = '';
  private readonly pending = new Map<string, { from: number; to: number }>();
  private readonly reading = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  /** Reads in flight (a test, or stop, may wait for them). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: ReplicaReadsDeps) {}

  /** Subscribes, then catches up (so nothing published between the boot load and now is missed). */
  attach(source: EventsSource): void {
    if (this.closed || this.unsubscribe) return;
    this.unsubscribe = source.onEvents((notice) => this.heard(notice));
    this.track(this.catchUp());
  }

  heard(notice: EventsNotice): void {
    if (this.closed || !this.deps.open()) return;
    if (notice.kind === 'gap') return this.track(this.catchUp());
    if (notice.fromSelf) return;
    const { campaignId, fromSeq, toSeq } = notice;
    const was = this.pending.get(campaignId);
    this.pending.set(campaignId, was ? { from: Math.min(was.from, fromSeq), to: Math.max(was.to, toSeq) } : { from: fromSeq, to: toSeq });
    if (!this.reading.has(campaignId)) this.track(this.drain(campaignId));
  }

  /** Resolves once every read started so far has ended (bounded by the pool's query timeout). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * The views of every campaign another replica hosts (or none does now), in id order: all of
   * them, read a page at a time (never cut short at a page size). Only the
   * documents written since the last `list` are read and projected again (by row version); the
   * others' views are kept, and judged at read time as every view is (a lease's expiry).
   */
  async elsewhere(): Promise<CampaignSummary[]> {
    const pageSize = this.deps.pageSize ?? ELSEWHERE_PAGE;
    const versions = await versionsElsewhere(this.deps.db, this.deps.hosted(), pageSize);
    // A view is projected with this process's environment (what the rules allow): a new one (discovery answered) re-projects all.
    const environment = JSON.stringify(this.deps.summaries.environment());
    if (environment !== this.viewsEnvironment) this.views.clear();
    this.viewsEnvironment = environment;
    const stale = versions.filter((v) => this.views.get(v.campaignId)?.version !== v.version).map((v) => v.campaignId);
    for (const row of stale.length > 0 ? await documentsById(this.deps.db, stale, this.deps.machineVersionKnown, pageSize) : []) {
      const summary = (row.read.ok ? storedSummary(row.read.doc, null, this.deps.summaries) : null) ?? corruptSummary(row.campaignId);
      this.views.set(row.campaignId, { version: row.version, summary });
    }
    const listed = new Set(versions.map((v) => v.campaignId));
    for (const id of this.views.keys()) if (!listed.has(id)) this.views.delete(id);
    const out: CampaignSummary[] = [];
    for (const v of versions) {
      const kept = this.views.get(v.campaignId);
      if (kept) out.push(Object.assign(kept.summary, { hosted_by: v.owner }));
    }
    return out;
  }

  detach(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.pending.clear();
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** One read at a time per campaign; ranges heard meanwhile are merged into the next one. */
  private async drain(campaignId: string): Promise<void> {
    this.reading.add(campaignId);
    try {
      for (let range = this.pending.get(campaignId); range && !this.closed; range = this.pending.get(campaignId)) {
        this.pending.delete(campaignId);
        await this.follow(campaignId, range.from, range.to);
      }
    } finally {
      this.reading.delete(campaignId);
    }
  }

  private async follow(campaignId: string, from: number, to: number): Promise<void> {
    try {
      const read = await documentOf(this.deps.db, campaignId, this.deps.machineVersionKnown);
      if (!read?.ok) return;
      this.append(eventViews(read.doc.outbox.events.filter((e) => e.seq >= from && e.seq <= to)));
    } catch (error) {
      if (this.deps.open()) this.deps.logger.warn({ campaignId, code: 'events_read_failed', reason: describeError(error) }, 'public events of a campaign another replica hosts could not be read; the next catch-up reads them');
    }
  }

  /** Every other campaign's latest events, again (after a reconnect, and at start). */
  private async catchUp(): Promise<void> {
    try {
      let events: PublicEventView[] = [];
      const latest = (docs: Parameters<Parameters<typeof eachDocumentElsewhere>[2]>[0]) => {
        for (const row of docs) if (row.read.ok) events.push(...eventViews(row.read.doc.outbox.events.slice(-(this.deps.catchUpPerCampaign ?? CATCH_UP_PER_CAMPAIGN))));
        // Only the feed's size is ever shown: kept per page, so memory stays bounded however many campaigns.
        events.sort((a, b) => (a.at === b.at ? a.id.localeCompare(b.id) : a.at.localeCompare(b.at)));
        events = events.slice(-FEED_LIMIT);
      };
      await eachDocumentElsewhere(this.deps.db, this.deps.hosted(), latest, this.deps.machineVersionKnown, this.deps.pageSize ?? ELSEWHERE_PAGE);
      this.append(events);
    } catch (error) {
      if (this.deps.open()) this.deps.logger.warn({ code: 'events_read_failed', reason: describeError(error) }, 'public events of campaigns other replicas host could not be read again; the next notice or reconnect tries again');
    }
  }

  /** Adds what the feed has not shown yet, in the order given. */
  private append(events: PublicEventView[]): void {
    if (this.closed || !this.deps.open() || events.length === 0) return;
    const inFeed = new Set(this.deps.readModel.getSnapshot().context.events.map((e) => e.id));
    const fresh = events.filter((e) => !inFeed.has(e.id) && !this.seen.has(e.id));
    if (fresh.length === 0) return;
    for (const e of fresh) {
      this.seen.add(e.id);
      if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
    }
    this.deps.readModel.trigger.publicEventsAppended({ events: fresh });
  }
}
