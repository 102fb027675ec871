/**
 * The read model the API and the operator page read: campaign summaries and the public event
 * feed, in an @xstate/store. It is a projection of the durable documents, rebuilt at start and
 * updated only when a document changes — never the source of truth.
 * @module
 */
import { createStore } from '@xstate/store';
import { z } from 'zod';
import type { PublicEventKind } from '../../machines/vocabulary.js';
import type { Health, LastErrorView } from './campaign-health.js';

/** What the API shows about one campaign. Never a credential, never the remote URL. */
export interface CampaignSummary {
  campaign_id: string;
  objective: string;
  state: string;
  attention: string;
  paused: boolean;
  corrupt: boolean;
  remote: {
    task_id: string | null;
    context_id: string | null;
    state: string | null;
    stage: string | null;
    attempt: number | null;
    /** The last material change the supervisor recorded (persisted). */
    observed_at: string | null;
    /** The last successful read, material or not (memory only: an unchanged tick writes nothing). */
    last_read_at: string | null;
    /** The remote's own status text for a failed or blocked task (sanitized, bounded, untrusted; memory only). */
    status_message: string | null;
  };
  lease: { mode: 'observer' | 'controller'; epoch: number | null; expires_at: string | null };
  /**
   * The question waiting for `answer` (sanitized, bounded, untrusted text); `key` names it in
   * `question_key`. `source`: the remote's own question (answered by a fenced mutation, needs the
   * lease) or Argus's (answered to Argus, one turn).
   */
  pending_question: { key: string; text: string; asked_at: string; source: 'remote' | 'argus' } | null;
  /** The decision boundaries: the mission binding, what is being decided, and the last decision. */
  decisions: {
    mission: { project_id: string | null; binding: 'none' | 'live' | 'unverified' | 'lost' };
    /** `assessing` (Foreman), `turn` (one argus_message), `mission` (polled), or null. */
    in_flight: string | null;
    event_key: string | null;
    last: {
      event_key: string;
      outcome: string;
      code: string | null;
      decision_id: string | null;
      kind: string | null;
      foreman_directive: string | null;
      at: string;
    } | null;
    /** The Reviewer's verdict behind the last decision: approved (relayed, held, applied or refused) or rejected. */
    reviewer_verdict: 'approved' | 'rejected' | null;
  };
  open_intent: { request_id: string; action: string } | null;
  max_attempts: number;
  attempts_submitted: number;
  consecutive_read_failures: number;
  /** Failure in plain sight: projected from the live snapshot (services/api/campaign-health.ts), never stored. */
  health: Health;
  last_error: LastErrorView | null;
  /** The operator actions the campaign's actor can take now; every other action is refused (409). */
  allowed_actions: string[];
  /**
   * Replicas only: set on the view of a campaign ANOTHER replica hosts (read from its document in
   * the shared store): that replica's id, or null while it is being re-homed. Absent when hosted here.
   */
  hosted_by?: string | null;
}

export interface PublicEventView {
  id: string;
  seq: number;
  kind: PublicEventKind;
  campaign_id: string;
  at: string;
  summary: string;
  data: Record<string, unknown>;
}

/** The feed keeps the most recent events in memory; the documents keep their own outboxes. */
export const FEED_LIMIT = 1000;

/**
 * What the store emits, so a live feed (services/api/live-feed.ts) knows WHICH campaign changed
 * without diffing 10,000 summaries. The schemas only type the events (no validation runs); with
 * no listener an emit costs one small object and a map lookup that finds nothing.
 */
const emitted = {
  /** One campaign's view changed (or only its `last_read_at`). */
  campaignChanged: z.object({ campaignId: z.string() }),
  /** Every view was replaced at once (the boot load). */
  campaignsReloaded: z.object({}),
  /** Public events reached the feed, durable already. */
  publicEventsAdded: z.object({ events: z.custom<PublicEventView[]>() }),
};

export function createReadModel() {
  return createStore({
    schemas: { emitted },
    context: {
      /**
       * Updated in place: copying 10,000 summaries on every change made start-up and busy
       * sweeps quadratic. `revision` is what changes for subscribers.
       */
      campaigns: new Map<string, CampaignSummary>(),
      revision: 0,
      events: [] as PublicEventView[],
    },
    on: {
      campaignsLoaded: (ctx, ev: { summaries: CampaignSummary[]; events: PublicEventView[] }, enq) => {
        enq.emit.campaignsReloaded({});
        return {
          campaigns: new Map(ev.summaries.map((s) => [s.campaign_id, s])),
          revision: ctx.revision + 1,
          events: sortFeed(ev.events).slice(-FEED_LIMIT),
        };
      },
      campaignUpdated: (ctx, ev: { summary: CampaignSummary }, enq) => {
        ctx.campaigns.set(ev.summary.campaign_id, ev.summary);
        enq.emit.campaignChanged({ campaignId: ev.summary.campaign_id });
        return { ...ctx, revision: ctx.revision + 1 };
      },
      /** The campaign is no longer hosted here (another replica took it, or it was handed over). */
      campaignLeft: (ctx, ev: { campaignId: string }, enq) => {
        if (!ctx.campaigns.delete(ev.campaignId)) return ctx;
        enq.emit.campaignsReloaded({});
        return { ...ctx, revision: ctx.revision + 1 };
      },
      /** A successful read: only `last_read_at` moves, so no revision bump (nothing material changed). */
      campaignRead: (ctx, ev: { campaignId: string; at: string }, enq) => {
        const summary = ctx.campaigns.get(ev.campaignId);
        // Not material (no revision), but a page showing "last read" wants to hear of it.
        if (summary) enq.emit.campaignChanged({ campaignId: ev.campaignId });
        // The field in place, like campaignUpdated: a copy of the summary would also evaluate its
        // lazy `allowed_actions` (see projection.ts), and even a copy of `remote` alone is an
        // old-generation garbage object per read. Each summary owns its `remote` object.
        if (summary) summary.remote.last_read_at = ev.at;
        return ctx;
      },
      publicEventsAppended: (ctx, ev: { events: PublicEventView[] }, enq) => {
        if (ev.events.length === 0) return ctx;
        enq.emit.publicEventsAdded({ events: ev.events });
        return { ...ctx, events: [...ctx.events, ...ev.events].slice(-FEED_LIMIT) };
      },
    },
  });
}

export type ReadModel = ReturnType<typeof createReadModel>;

function sortFeed(events: PublicEventView[]): PublicEventView[] {
  return [...events].sort((a, b) => (a.at === b.at ? a.id.localeCompare(b.id) : a.at.localeCompare(b.at)));
}
