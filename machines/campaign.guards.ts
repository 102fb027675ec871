/**
 * The rules of authority as named, pure predicates. The machine's guards are thin wrappers,
 * and `campaign.refusals.ts` evaluates the same functions to say *why* an event was refused,
 * so the chart and the operator's error message cannot disagree.
 * @module
 */
import type {
  CampaignContext,
  CampaignEvent,
  ClaimLeaseOutput,
  LeaseReadback,
  MutateEvent,
  ReadBackIntentOutput,
  RelayMutationOutput,
  RemoteObservedEvent,
  RenewLeaseOutput,
} from './campaign.types.js';
import { LEASE_TTL_BOUNDS, READBACK_FRESH_MS, TERMINAL_TASK_STATES } from './campaign.types.js';

type GuardArgs = { context: CampaignContext; event: CampaignEvent };

const instant = (iso: string): number => Date.parse(iso);

/** The readback names us, with this epoch, and had not expired when it was read. */
export function readbackShowsOurLease(controllerId: string, epoch: number | null, readback: LeaseReadback | null): boolean {
  if (readback === null || epoch === null) return false;
  return readback.holder === controllerId && readback.epoch === epoch && instant(readback.expiresAt) > instant(readback.readAt);
}

/** Taken for this decision: not older than READBACK_FRESH_MS, and not from the future. */
export function readbackIsFresh(readback: LeaseReadback | null, now: string): boolean {
  if (readback === null) return false;
  const age = instant(now) - instant(readback.readAt);
  return Number.isFinite(age) && age >= 0 && age <= READBACK_FRESH_MS;
}

const ourEpoch = (context: CampaignContext): number | null => context.lease?.epoch ?? null;

/** A bound task that is not (known to be) terminal is an attempt still running. */
export function attemptRunning(boundTaskState: string | null): boolean {
  return boundTaskState !== null && !(TERMINAL_TASK_STATES as readonly string[]).includes(boundTaskState);
}

// ---- mutation guards: every one must hold for MUTATE to reach `relaying` ----------------------

/** The ordered rules of a mutation, each with the stable code a refusal reports. */
export const MUTATION_RULES = [
  // First: a concurrent request is refused before anything else is looked at (no I/O at all).
  { guard: 'noMutationInFlight', code: 'mutation_in_progress', holds: (_c, e) => !e.mutationInFlight },
  { guard: 'readbackFresh', code: 'readback_stale', holds: (_c, e) => readbackIsFresh(e.readback, e.now) },
  { guard: 'leaseValidForEpoch', code: 'lease_not_held', holds: (c, e) => readbackShowsOurLease(c.controllerId, ourEpoch(c), e.readback) },
  { guard: 'remoteEnforcesEpochs', code: 'unsupported_capability', holds: (_c, e) => e.epochEnforced },
  { guard: 'requestedEpochMatchesLease', code: 'lease_stale_epoch', holds: (c, e) => e.epoch === ourEpoch(c) },
  { guard: 'approvalValid', code: 'approval_required', holds: (c, e) => operatorApproved(e) || reviewFreshForEvent(c, e) },
  // One remote attempt at a time: the operator cancels (and observes the end) before submitting.
  { guard: 'noAttemptRunning', code: 'attempt_running', holds: (_c, e) => e.mutation.kind !== 'submit' || !attemptRunning(e.boundTaskState) },
  { guard: 'attemptBoundNotExceeded', code: 'attempt_limit_reached', holds: (c, e) => e.mutation.kind !== 'submit' || c.attemptsSubmitted < c.maxAttempts },
  { guard: 'noOpenIntent', code: 'intent_unresolved', holds: (c) => c.pendingIntent === null },
] as const satisfies readonly { guard: string; code: string; holds: (c: CampaignContext, e: MutateEvent) => boolean }[];

/** An explicit action by an authenticated person (the API puts the principal here). */
export function operatorApproved(event: MutateEvent): boolean {
  return event.approval.kind === 'operator' && event.approval.principal.length > 0;
}

/**
 * A Reviewer verdict authorizes only if it approves and names the event that last woke Argus:
 * an older review (for an earlier event) is stale, whatever it says.
 */
export function reviewFreshForEvent(context: CampaignContext, event: MutateEvent): boolean {
  const { approval } = event;
  return (
    approval.kind === 'review' &&
    approval.verdict === 'approved' &&
    context.wakes.lastArgusEventKey !== null &&
    approval.eventKey === context.wakes.lastArgusEventKey
  );
}

type MutationRuleName = (typeof MUTATION_RULES)[number]['guard'];

/** A machine guard for one mutation rule (false for any event other than MUTATE). */
function onMutate(name: MutationRuleName) {
  const rule = MUTATION_RULES.find((r) => r.guard === name)!;
  return ({ context, event }: GuardArgs): boolean => event.type === 'MUTATE' && rule.holds(context, event);
}

// ---- observation guards ------------------------------------------------------------------

const observed = (event: CampaignEvent): RemoteObservedEvent | null => (event.type === 'REMOTE_OBSERVED' ? event : null);

/** Authority is lost when this tick's readback does not show our lease (or shows none). */
export function readbackShowsLeaseLost(context: CampaignContext, event: RemoteObservedEvent): boolean {
  return !readbackShowsOurLease(context.controllerId, ourEpoch(context), event.readback);
}

// ---- the guard table handed to setup() ----------------------------------------------------

export const campaignGuards = {
  readbackFresh: onMutate('readbackFresh'),
  leaseValidForEpoch: onMutate('leaseValidForEpoch'),
  remoteEnforcesEpochs: onMutate('remoteEnforcesEpochs'),
  requestedEpochMatchesLease: onMutate('requestedEpochMatchesLease'),
  operatorApproved: ({ event }: GuardArgs) => event.type === 'MUTATE' && operatorApproved(event),
  reviewFreshForEvent: ({ context, event }: GuardArgs) => event.type === 'MUTATE' && reviewFreshForEvent(context, event),
  attemptBoundNotExceeded: onMutate('attemptBoundNotExceeded'),
  noOpenIntent: ({ context }: GuardArgs) => context.pendingIntent === null,
  noMutationInFlight: onMutate('noMutationInFlight'),
  noAttemptRunning: onMutate('noAttemptRunning'),
  intentOpen: ({ context }: GuardArgs) => context.pendingIntent !== null,

  ttlWithinBounds: ({ event }: GuardArgs) =>
    event.type === 'OPERATOR_CLAIM' && Number.isInteger(event.ttlSeconds) && event.ttlSeconds >= LEASE_TTL_BOUNDS.min && event.ttlSeconds <= LEASE_TTL_BOUNDS.max,

  readbackShowsLeaseLost: ({ context, event }: GuardArgs) => {
    const obs = observed(event);
    return obs !== null && readbackShowsLeaseLost(context, obs);
  },
  remoteReportsBlocked: ({ event }: GuardArgs) => observed(event)?.events.some((e) => e.class === 'BLOCKED') ?? false,
  observationWakesArgus: ({ event }: GuardArgs) => observed(event)?.wakes.some((w) => w.target === 'argus') ?? false,
  /** The remote asked, and is no longer blocked: someone answered it elsewhere. */
  remoteQuestionWithdrawn: ({ context, event }: GuardArgs) => {
    const obs = observed(event);
    return obs !== null && !obs.remoteBlocked && context.pendingQuestion?.source === 'remote';
  },
  answerMatchesQuestion: ({ context, event }: GuardArgs) =>
    event.type === 'OPERATOR_ANSWER' && context.pendingQuestion !== null && event.questionKey === context.pendingQuestion.key,
  foremanWantsArgus: ({ event }: GuardArgs) => event.type === 'FOREMAN_ASSESSED' && event.wakeArgus,

  // Effect results arrive as params (typed from the done event at the transition).
  claimConfirmedByReadback: ({ context }: GuardArgs, params: { result: ClaimLeaseOutput }) => {
    const { claimed, readback } = params.result;
    return claimed !== null && claimed.holder === context.controllerId && readbackShowsOurLease(context.controllerId, claimed.epoch, readback);
  },
  renewalConfirmsLease: ({ context }: GuardArgs, params: { result: RenewLeaseOutput }) =>
    readbackShowsOurLease(context.controllerId, ourEpoch(context), params.result.lease),
  relayApplied: (_: GuardArgs, params: { result: RelayMutationOutput }) => params.result.outcome === 'applied',
  relayAppliedRelease: ({ context }: GuardArgs, params: { result: RelayMutationOutput }) =>
    params.result.outcome === 'applied' && context.pendingIntent?.kind === 'release',
  relayRejectedForLease: (_: GuardArgs, params: { result: RelayMutationOutput }) => params.result.outcome === 'rejected' && params.result.leaseLost,
  relayRejected: (_: GuardArgs, params: { result: RelayMutationOutput }) => params.result.outcome === 'rejected',
  intentSettledByReadback: ({ context }: GuardArgs, params: { result: ReadBackIntentOutput }) =>
    params.result.status !== 'unavailable' && params.result.requestId === context.pendingIntent?.requestId,
};
