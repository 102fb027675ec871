/**
 * The one projection of a campaign onto what the API shows: its binding and objective (from
 * the document), its live snapshot (the machine context is the one truth for lease, attempts,
 * question, remote view and read failures) and its outbox. Never a stored copy, never a
 * credential, never the remote URL.
 * @module
 */
import { authorityAt, describeStates } from '../../machines/campaign.projection.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { CampaignFacts, CampaignSnapshot } from '../campaign/facts.js';
import { campaignHealth, lastErrorView, statusMessageView } from './campaign-health.js';
import type { CampaignSummary, PublicEventView } from './read-model.js';

export type { CampaignFacts, CampaignSnapshot } from '../campaign/facts.js';

export interface ViewExtras {
  /** The last successful read (memory only: an unchanged tick writes nothing). */
  lastReadAt: string | null;
  /** Computed each time the view is read (it asks `can()` of every operator action, live). */
  allowedActions: () => string[];
  /** The last failed read this process saw (memory only): gives `last_error.at`. */
  lastFailedRead?: { code: string; at: string } | null;
  /** The remote's status text from the last successful read (memory only, sanitized by the normalizer). */
  remoteMessage?: string | null;
  /**
   * The clock a view is read at, with `allowedActions` asked afresh then: a controlling view read
   * past its lease's `expires_at` shows `control-lost` and no lease, whatever was projected before.
   */
  readAt?: { now: () => Date; allowedActions: () => string[] };
}

export function projectCampaign(facts: CampaignFacts, snapshot: CampaignSnapshot, extras: ViewExtras): CampaignSummary {
  const states = describeStates(snapshot);
  const ctx = snapshot.context;
  const controlling = states.authority === 'controlling';
  const q = ctx.pendingQuestion;
  // `allowed_actions` is added last, as an accessor (withLazyAllowedActions).
  const summary: Omit<CampaignSummary, 'allowed_actions'> = {
    campaign_id: facts.campaignId,
    objective: facts.objective,
    state: states.authority,
    attention: states.attention,
    paused: snapshot.matches('paused'),
    corrupt: false,
    remote: {
      // The chart's binding (the document's copy is written with the same save).
      task_id: ctx.binding.taskId,
      context_id: ctx.binding.contextId ?? ctx.remote?.contextId ?? null,
      state: ctx.remote?.state ?? null,
      stage: ctx.remote?.stage ?? null,
      attempt: ctx.remote?.attempt ?? null,
      observed_at: ctx.remote?.observedAt ?? null,
      last_read_at: extras.lastReadAt,
      status_message: statusMessageView(ctx.remote?.state ?? null, extras.remoteMessage ?? null),
    },
    // Outside `controlling` no lease is shown: a local record is never authority.
    lease: {
      mode: controlling ? 'controller' : 'observer',
      epoch: controlling ? (ctx.lease?.epoch ?? null) : null,
      expires_at: controlling ? (ctx.lease?.expiresAt ?? null) : null,
    },
    pending_question: q ? { key: q.key, text: q.text, asked_at: q.askedAt, source: q.source } : null,
    decisions: decisionsView(ctx, states.attention, snapshot),
    open_intent: facts.openIntent ? { request_id: facts.openIntent.requestId, action: facts.openIntent.action } : null,
    max_attempts: ctx.maxAttempts,
    attempts_submitted: ctx.attemptsSubmitted,
    consecutive_read_failures: ctx.readFailures.consecutive,
    health: campaignHealth({ authority: states.authority, remote: ctx.remote, readFailures: ctx.readFailures }),
    last_error: lastErrorView(ctx.lastErrorCode, extras.lastFailedRead ?? null),
  };
  const lazy = withLazyAllowedActions(summary, extras.allowedActions);
  return controlling && extras.readAt ? withLeaseExpiry(lazy, snapshot, extras.readAt) : lazy;
}

/**
 * A controlling view is judged again each time it is read: past `expires_at` (the chart's own
 * lease-expiry guard, `authorityAt`) it says `control-lost` with no lease, and its allowed
 * actions are asked again at that moment, so none needs the lapsed lease.
 */
function withLeaseExpiry(summary: CampaignSummary, snapshot: CampaignSnapshot, readAt: NonNullable<ViewExtras['readAt']>): CampaignSummary {
  const allowedAsProjected = Object.getOwnPropertyDescriptor(summary, 'allowed_actions')!.get!;
  const held = { state: summary.state, lease: summary.lease, allowed: () => allowedAsProjected.call(summary) as string[] };
  const lapsed = () => authorityAt(snapshot, readAt.now().toISOString()) !== 'controlling';
  const define = (key: keyof CampaignSummary, get: () => unknown) => Object.defineProperty(summary, key, { enumerable: true, configurable: true, get });
  define('state', () => (lapsed() ? 'control-lost' : held.state));
  define('lease', () => (lapsed() ? { mode: 'observer', epoch: null, expires_at: null } : held.lease));
  define('allowed_actions', () => (lapsed() ? readAt.allowedActions() : held.allowed()));
  // A lapsed lease is control-lost, so its health is judged as control-lost's.
  const ctx = snapshot.context;
  const heldHealth = summary.health;
  define('health', () => (lapsed() ? campaignHealth({ authority: 'control-lost', remote: ctx.remote, readFailures: ctx.readFailures }) : heldHealth));
  return summary;
}

const APPROVED = new Set(['relayed', 'approved', 'held', 'refused', 'consumed']);

function decisionsView(ctx: CampaignSnapshot['context'], attention: string, snapshot: CampaignSnapshot): CampaignSummary['decisions'] {
  const a = ctx.argus;
  const binding = a.projectId === null ? 'none' : a.bindingLost ? 'lost' : a.bindingVerified ? 'live' : 'unverified';
  const inFlight = attention === 'assessing' ? 'assessing' : attention === 'awaiting-review' ? (snapshot.matches({ active: { attention: { 'awaiting-review': 'turn' } } }) ? 'turn' : 'mission') : null;
  const last = a.last;
  const verdict = last === null ? null : APPROVED.has(last.outcome) ? 'approved' : last.outcome === 'rejected' ? 'rejected' : null;
  return {
    mission: { project_id: a.projectId, binding },
    in_flight: inFlight,
    event_key: inFlight ? (a.wake?.eventKey ?? a.mission?.eventKey ?? null) : null,
    last: last
      ? { event_key: last.eventKey, outcome: last.outcome, code: last.code, decision_id: last.decisionId, kind: last.kind, foreman_directive: last.directive, at: last.at }
      : null,
    reviewer_verdict: verdict,
  };
}

/** A campaign whose document cannot be trusted: reported, never replaced. */
export function corruptSummary(campaignId: string): CampaignSummary {
  return {
    campaign_id: campaignId,
    objective: '',
    state: 'corrupt',
    attention: 'idle',
    paused: false,
    corrupt: true,
    remote: { task_id: null, context_id: null, state: null, stage: null, attempt: null, observed_at: null, last_read_at: null, status_message: null },
    lease: { mode: 'observer', epoch: null, expires_at: null },
    pending_question: null,
    decisions: { mission: { project_id: null, binding: 'none' }, in_flight: null, event_key: null, last: null, reviewer_verdict: null },
    open_intent: null,
    max_attempts: 0,
    attempts_submitted: 0,
    consecutive_read_failures: 0,
    // A document that cannot be trusted is a CRITICAL nobody has resolved.
    health: 'critical',
    last_error: { code: 'campaign_corrupt', sentence: 'The campaign document cannot be trusted; it is reported, never replaced.', at: null },
    allowed_actions: [],
  };
}

export function eventViews(events: CampaignDocument['outbox']['events']): PublicEventView[] {
  return events.map((e) => ({ id: e.id, seq: e.seq, kind: e.kind, campaign_id: e.campaignId, at: e.at, summary: e.summary, data: e.data }));
}

/**
 * `allowed_actions` is computed each time it is read, from the campaign's live snapshot (which
 * holds every fact the rules read) and the clock of the one time-based guard: a view projected
 * mid-mutation, or before a lease expired, never answers with what was true then. Never computed for a view nobody reads (at
 * start-up every campaign gets a view; asking the chart for 10,000 unread ones would double the
 * restart's cost); `CampaignActions.allowedActions` memoizes what cannot have changed.
 */
function withLazyAllowedActions(summary: Omit<CampaignSummary, 'allowed_actions'>, compute: () => string[]): CampaignSummary {
  // One getter function shared by every view, reading the view's own (non-enumerable) compute:
  // a getter closure per view would give each of 10,000 views a hidden class of its own, and
  // turning a data property into an accessor would put each in dictionary mode (~1 KB a view).
  Object.defineProperty(summary, COMPUTE_ALLOWED, { value: compute, writable: true, configurable: true });
  Object.defineProperty(summary, 'allowed_actions', { enumerable: true, configurable: true, get: readAllowedActions });
  return summary as CampaignSummary;
}

const COMPUTE_ALLOWED = Symbol('allowedActions');

function readAllowedActions(this: { [COMPUTE_ALLOWED]: () => string[] }): string[] {
  return this[COMPUTE_ALLOWED]();
}
