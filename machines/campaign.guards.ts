/**
 * The rules of the campaign as named, pure predicates: one function per rule. The chart's
 * guards are these functions; `campaign.rules.ts` lists the ones an operator event must pass,
 * in order, with the stable code a refusal reports. Anyone outside `machines/` who needs a rule
 * imports it from here, so there is one answer to "is the lease still ours", not three.
 * @module
 */
import type {
  BindingFacts,
  CampaignContext,
  HostEnvironment,
  RemoteView,
  ClaimLeaseOutput,
  LeaseReadback,
  MutateEvent,
  OurLease,
  ReadBackIntentOutput,
  ReadLeaseOutput,
  RelayMutationOutput,
  RemoteCapabilities,
  RenewLeaseOutput,
  ReadStatusOutput,
  JournalIntentOutput,
} from './campaign.types.js';
import { LEASE_RENEW_MARGIN_MS, LEASE_SEND_MARGIN_MS, LEASE_TTL_BOUNDS, READBACK_FRESH_MS, TERMINAL_TASK_STATES } from './campaign.types.js';

const instant = (iso: string): number => Date.parse(iso);

// ---- the lease --------------------------------------------------------------------------------

/** The readback names us, with this epoch, and had not expired when it was read. */
export function readbackShowsOurLease(controllerId: string, epoch: number | null, readback: LeaseReadback | null): boolean {
  if (readback === null || epoch === null) return false;
  return readback.holder === controllerId && readback.epoch === epoch && instant(readback.expiresAt) > instant(readback.readAt);
}

/** Taken for this decision: not older than READBACK_FRESH_MS at `at`, and not from the future. */
export function readbackIsFresh(readback: LeaseReadback | null, at: string): boolean {
  if (readback === null) return false;
  const age = instant(at) - instant(readback.readAt);
  return Number.isFinite(age) && age >= 0 && age <= READBACK_FRESH_MS;
}

/** Our lease copy has not expired at `now` (a copy is never proof; a readback is). */
export const leaseUnexpiredAt = (lease: OurLease | null, now: string): boolean => lease !== null && instant(lease.expiresAt) > instant(now);

/**
 * Where in its window a lease's first renewal falls, from 0 to 1: a hash (FNV-1a, then murmur3's
 * finalizer) of the campaign id and the lease's expiry. Ids that differ only in their last
 * characters land anywhere in the window.
 */
export function renewalSpreadOf(campaignId: string, expiresAt: string): number {
  let h = 0x811c9dc5;
  const key = `${campaignId} ${expiresAt}`;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/**
 * Renew while at least two heartbeats remain before expiry, or half the TTL if that is longer:
 * one missed beat never lets the lease lapse. The first renewal after a grant (a claim or a
 * rotation: `confirmedAt` is still `heldSince`) comes earlier by `spread` (0 to 1) of what is
 * left before that, less a beat and a half, so it never falls on the beat right after the grant.
 * Leases granted in one beat (a takeover claims a whole share at once) so get different phases
 * and keep them: every later renewal is at the rule's own point, at the same rate as before.
 * Earlier only: the spread never delays a renewal past the rule without it.
 */
export function leaseDueForRenewal(lease: OurLease | null, now: string, cadenceMs: number, spread: number): boolean {
  if (lease === null) return false;
  const remaining = instant(lease.expiresAt) - instant(now);
  const ttlMs = lease.ttlSeconds * 1000;
  const due = Math.max(ttlMs / 2, 2.2 * cadenceMs);
  const early = lease.confirmedAt === lease.heldSince ? Math.max(0, ttlMs - due - 1.5 * cadenceMs) : 0;
  return remaining <= due + spread * early;
}

/** The chart's renewal rule: `leaseDueForRenewal` at this campaign's spread for its current lease. */
export const renewalDue = (campaignId: string, lease: OurLease | null, now: string, cadenceMs: number): boolean =>
  lease !== null && leaseDueForRenewal(lease, now, cadenceMs, renewalSpreadOf(campaignId, lease.expiresAt));

/** The renewal deadline of a lease: LEASE_RENEW_MARGIN_MS before it expires. */
export const renewalDeadlineOf = (lease: OurLease): string => new Date(instant(lease.expiresAt) - LEASE_RENEW_MARGIN_MS).toISOString();

/**
 * Past the renewal deadline (or expired): the lease can no longer be renewed in time, so it is
 * given up now, while it is still valid, rather than found lapsed after its expiry.
 */
export const leaseRenewalDeadlinePassed = (lease: OurLease | null, now: string): boolean =>
  lease !== null && instant(now) >= instant(renewalDeadlineOf(lease));

/**
 * A readback judges our lease only if its read was sent after the remote last confirmed the
 * lease (a read in flight across a claim or renewal predates it); then it must show us.
 */
export function readbackShowsLeaseLost(context: CampaignContext, readback: LeaseReadback | null, requestedAt: string): boolean {
  const lease = context.lease;
  if (lease === null || instant(requestedAt) < instant(lease.confirmedAt)) return false;
  return !readbackShowsOurLease(context.controllerId, lease.epoch, readback);
}

/** The readback taken before journaling is still fresh at the send, and the lease outlives the request. */
export function leaseOutlivesSend(readback: LeaseReadback | null, sendAt: string): boolean {
  return readbackIsFresh(readback, sendAt) && readback !== null && instant(readback.expiresAt) - instant(sendAt) >= LEASE_SEND_MARGIN_MS;
}

export const ttlWithinBounds = (ttlSeconds: number): boolean =>
  Number.isInteger(ttlSeconds) && ttlSeconds >= LEASE_TTL_BOUNDS.min && ttlSeconds <= LEASE_TTL_BOUNDS.max;

// ---- the remote ----------------------------------------------------------------------------

/** An answer is a fenced SendMessage to an existing task: the remote's fenced message/send (`submit`). */
const CAPABILITY_OF = { submit: 'submit', intervene: 'intervene', cancel: 'cancel', release: 'release', answer: 'submit' } as const;

/** The remote advertises this mutation and fences it by epoch (else nothing may be sent). */
export const remoteAllowsMutation = (capabilities: RemoteCapabilities | null, kind: MutateEvent['mutation']['kind']): boolean =>
  capabilities !== null && capabilities.epochEnforced && capabilities[CAPABILITY_OF[kind]];

/** A claim needs the lease operations and epoch fencing: a lease the remote cannot fence is no lease. */
export const remoteAllowsClaim = (capabilities: RemoteCapabilities | null): boolean =>
  capabilities !== null && capabilities.claim && capabilities.renew && capabilities.epochEnforced;

/**
 * The bound task's state as last observed: null when no task is bound, 'unobserved' when the
 * bound task has not been read since it was bound (e.g. right after a submit).
 */
export function boundTaskState(context: CampaignContext): string | null {
  const { taskId } = context.binding;
  if (taskId === null) return null;
  return context.remote !== null && context.remote.taskId === taskId ? context.remote.state : 'unobserved';
}

/** A bound task that is not (known to be) terminal is an attempt still running. */
export function attemptRunning(context: CampaignContext): boolean {
  const state = boundTaskState(context);
  return state !== null && !(TERMINAL_TASK_STATES as readonly string[]).includes(state);
}

/** Where a mutation is sent: the bound task, in the leased context (else the bound one). */
export const mutationTarget = (context: Pick<CampaignContext, 'binding' | 'lease'>): BindingFacts => ({
  taskId: context.binding.taskId,
  contextId: context.lease?.contextId ?? context.binding.contextId,
});

/**
 * Where the mutation acts must be known: a context for submit/release, a task for
 * intervene/cancel, a task in its context for an answer. The relay asks the same question of
 * the target it sends to, so the rule and the send cannot disagree.
 */
export function bindingFitsMutation(kind: MutateEvent['mutation']['kind'], target: BindingFacts): boolean {
  const needsTask = kind === 'intervene' || kind === 'cancel' || kind === 'answer';
  const needsContext = kind !== 'intervene' && kind !== 'cancel';
  return (!needsTask || target.taskId !== null) && (!needsContext || target.contextId !== null);
}

// ---- approval --------------------------------------------------------------------------------

/** An explicit action by an authenticated person (the API puts the principal here). */
export function operatorApproved(event: Pick<MutateEvent, 'approval'>): boolean {
  return event.approval.kind === 'operator' && event.approval.principal.length > 0;
}

/**
 * A Reviewer verdict authorizes only if it approves and names the event that last woke Argus:
 * an older review (for an earlier event) is stale, whatever it says.
 */
export function reviewFreshForEvent(context: CampaignContext, event: Pick<MutateEvent, 'approval'>): boolean {
  const { approval } = event;
  return (
    approval.kind === 'review' &&
    approval.verdict === 'approved' &&
    context.wakes.lastArgusEventKey !== null &&
    approval.eventKey === context.wakes.lastArgusEventKey
  );
}

// ---- the heartbeat -----------------------------------------------------------------------------

/** The backoff after failed reads has not elapsed at `nowMs`. */
export const backingOff = (context: CampaignContext, nowMs: number): boolean =>
  context.readFailures.nextReadAt !== null && instant(context.readFailures.nextReadAt) > nowMs;

/**
 * A task is bound and the backoff is over (an operator's OBSERVE has its own rule table). The
 * heartbeat ticks every active actor; this is the one place a tick asks about the binding.
 */
export const readDue = (context: CampaignContext, now: string): boolean => context.binding.taskId !== null && !backingOff(context, instant(now));

/** A read of the bound task names its context: a binding made with the task alone learns it. */
export const bindingSeenBy = (binding: BindingFacts, view: RemoteView | null): BindingFacts =>
  binding.contextId === null && view !== null && view.taskId === binding.taskId ? { ...binding, contextId: view.contextId } : binding;

/** A broadcast environment that says something new (an unchanged one is not even an assign). */
export const environmentChanged = (held: HostEnvironment, next: HostEnvironment): boolean =>
  held.argusAvailable !== next.argusAvailable || held.cadenceMs !== next.cadenceMs || !sameCapabilities(held.capabilities, next.capabilities);

function sameCapabilities(a: RemoteCapabilities | null, b: RemoteCapabilities | null): boolean {
  if (a === null || b === null) return a === b;
  return (Object.keys(a) as (keyof RemoteCapabilities)[]).every((k) => a[k] === b[k]);
}

/** The shortest lease the heartbeat can keep renewed: two beats. */
export const minTtlSeconds = (context: CampaignContext): number => Math.ceil((2 * context.environment.cadenceMs) / 1000);

/** Same material fingerprint as the last view, and no failure streak to end: nothing to do. */
export const statusUnchanged = (context: CampaignContext, output: ReadStatusOutput): boolean =>
  output.ok && context.remote !== null && output.fingerprint === context.remote.fingerprint && context.readFailures.consecutive === 0;

// ---- effect answers -------------------------------------------------------------------------

export function claimConfirmedByReadback(context: CampaignContext, output: ClaimLeaseOutput): boolean {
  const { claimed, readback } = output;
  return (
    claimed !== null &&
    output.contextId !== null &&
    claimed.holder === context.controllerId &&
    readbackShowsOurLease(context.controllerId, claimed.epoch, readback)
  );
}

export const renewalConfirmsLease = (context: CampaignContext, output: RenewLeaseOutput): boolean =>
  readbackShowsOurLease(context.controllerId, context.lease?.epoch ?? null, output.lease);

export const leaseReadFailed = (output: ReadLeaseOutput): boolean => output.code !== null;

export const readbackShowsUs = (context: CampaignContext, output: ReadLeaseOutput): boolean =>
  readbackShowsOurLease(context.controllerId, context.lease?.epoch ?? null, output.readback);

export const journaledInTime = (context: CampaignContext, output: JournalIntentOutput): boolean =>
  leaseOutlivesSend(context.pendingIntent?.readback ?? null, output.journaledAt);

export const relayApplied = (output: RelayMutationOutput): boolean => output.outcome === 'applied';
export const relayRejectedForLease = (output: RelayMutationOutput): boolean => output.outcome === 'rejected' && output.leaseLost;
export const relayRejected = (output: RelayMutationOutput): boolean => output.outcome === 'rejected';

export const intentSettledByReadback = (context: CampaignContext, output: ReadBackIntentOutput): boolean =>
  output.status !== 'unavailable' && output.requestId === context.pendingIntent?.requestId;
