/**
 * One rule table per operator event: the ordered conditions under which the chart takes it,
 * each with the stable code a refusal reports. The chart's guards are built from the `guard`
 * rows (see `operatorGuards`), and `explainRefusal` walks the same rows, so what the API refuses
 * and what the chart would do cannot disagree. `where` rows are the chart's structure (the
 * states the event is handled in); they need the snapshot, not just context and event.
 * @module
 */
import type { AnyMachineSnapshot } from 'xstate';
import {
  attemptRunning,
  bindingFitsMutation,
  leaseUnexpiredAt,
  minTtlSeconds,
  mutationTarget,
  operatorApproved,
  remoteAllowsClaim,
  remoteAllowsMutation,
  reviewFreshForEvent,
  ttlWithinBounds,
} from './campaign.guards.js';
import { describeStates, type CampaignStates } from './campaign.projection.js';
import type { CampaignContext, OperatorEvent } from './campaign.types.js';

type EventOf<T extends OperatorEvent['type']> = Extract<OperatorEvent, { type: T }>;

export interface StateProbe extends CampaignStates {
  closed: boolean;
  paused: boolean;
  effectInFlight: boolean;
  /** Who asked the pending question (an answer goes back to them), if one is pending. */
  questionSource: 'remote' | 'argus' | null;
  /** A fenced mutation of this campaign is between its acceptance and its outcome (a mutation step of controlling). */
  mutationInFlight: boolean;
}

/** A condition on where the campaign is (the chart handles the event only in some states). */
export interface WhereRule {
  where: string;
  code: string;
  holds: (state: StateProbe) => boolean;
}
/** A named guard of the chart: a condition on the context and the event's facts. */
export interface GuardRule<E> {
  guard: string;
  code: string;
  holds: (context: CampaignContext, event: E) => boolean;
}
export type Rule<E> = WhereRule | GuardRule<E>;

const isGuard = <E>(rule: Rule<E>): rule is GuardRule<E> => 'guard' in rule;

const open: WhereRule = { where: 'notClosed', code: 'campaign_closed', holds: (s: StateProbe) => !s.closed };
const running: WhereRule = { where: 'notPaused', code: 'campaign_paused', holds: (s: StateProbe) => !s.paused };
const quiet: WhereRule = { where: 'noEffectInFlight', code: 'effect_in_flight', holds: (s: StateProbe) => !s.effectInFlight };
const noIntent = <E>(): GuardRule<E> => ({ guard: 'noOpenIntent', code: 'intent_unresolved', holds: (c: CampaignContext) => c.pendingIntent === null });

export const OBSERVE_RULES: readonly Rule<EventOf<'OBSERVE'>>[] = [
  open,
  running,
  { guard: 'taskBound', code: 'no_task_bound', holds: (c: CampaignContext) => c.binding.taskId !== null },
  // One read at a time; the operator's waits for nothing and is refused instead.
  { where: 'notReading', code: 'effect_in_flight', holds: (s: StateProbe) => s.heartbeat !== 'reading' },
];

export const CLAIM_RULES: readonly Rule<EventOf<'OPERATOR_CLAIM'>>[] = [
  open,
  running,
  { where: 'notControlling', code: 'already_controlling', holds: (s: StateProbe) => s.authority !== 'controlling' },
  { where: 'notClaiming', code: 'effect_in_flight', holds: (s: StateProbe) => s.authority !== 'claiming' },
  { where: 'notInDoubt', code: 'intent_unresolved', holds: (s: StateProbe) => s.authority !== 'ambiguous-intent' },
  { guard: 'ttlWithinBounds', code: 'ttl_out_of_bounds', holds: (_c, e) => ttlWithinBounds(e.ttlSeconds) },
  // The heartbeat renews once per beat: a lease shorter than two beats would lapse between them.
  { guard: 'ttlRenewableByHeartbeat', code: 'ttl_below_heartbeat', holds: (c, e) => e.ttlSeconds >= minTtlSeconds(c) },
  { guard: 'remoteDiscovered', code: 'remote_unavailable', holds: (c: CampaignContext) => c.environment.capabilities !== null },
  { guard: 'remoteAllowsClaim', code: 'unsupported_capability', holds: (c: CampaignContext) => remoteAllowsClaim(c.environment.capabilities) },
  // One controller per remote context among the campaigns is not a fact of this campaign: the
  // claim asks the index of contexts when it knows the context, and answers `lease_held`.
  noIntent(),
];

export const MUTATION_RULES: readonly Rule<EventOf<'MUTATE'>>[] = [
  // First: a concurrent mutation is refused before anything else is looked at (no I/O at all).
  { where: 'noMutationInFlight', code: 'mutation_in_progress', holds: (s: StateProbe) => !s.mutationInFlight },
  open,
  running,
  // What the remote can do comes before what this campaign holds: no lease makes an unfenced remote safe.
  { guard: 'remoteDiscovered', code: 'remote_unavailable', holds: (c: CampaignContext) => c.environment.capabilities !== null },
  { guard: 'remoteAllowsMutation', code: 'unsupported_capability', holds: (c, e) => remoteAllowsMutation(c.environment.capabilities, e.mutation.kind) },
  { where: 'notInDoubt', code: 'intent_unresolved', holds: (s: StateProbe) => s.authority !== 'ambiguous-intent' },
  { where: 'controlling', code: 'lease_required', holds: (s: StateProbe) => s.authority === 'controlling' },
  quiet,
  { guard: 'bindingFitsMutation', code: 'no_remote_task', holds: (c, e) => bindingFitsMutation(e.mutation.kind, mutationTarget(c)) },
  { guard: 'leaseUnexpired', code: 'lease_not_held', holds: (c, e) => leaseUnexpiredAt(c.lease, e.now) },
  { guard: 'requestedEpochMatchesLease', code: 'lease_stale_epoch', holds: (c, e) => e.epoch === (c.lease?.epoch ?? null) },
  {
    guard: 'approvalGiven',
    code: 'approval_required',
    holds: (_c, e) => operatorApproved(e) || (e.approval.kind === 'review' && e.approval.verdict === 'approved'),
  },
  { guard: 'approvalFresh', code: 'review_stale', holds: (c, e) => operatorApproved(e) || reviewFreshForEvent(c, e) },
  // One remote attempt at a time: the operator cancels (and observes the end) before submitting.
  { guard: 'noAttemptRunning', code: 'attempt_running', holds: (c, e) => e.mutation.kind !== 'submit' || !attemptRunning(c) },
  { guard: 'attemptBoundNotExceeded', code: 'attempt_limit_reached', holds: (c, e) => e.mutation.kind !== 'submit' || c.attemptsSubmitted < c.maxAttempts },
  noIntent(),
];

export const RESOLVE_RULES: readonly Rule<EventOf<'RESOLVE_INTENT'>>[] = [
  open,
  running,
  { where: 'inDoubt', code: 'intent_not_found', holds: (s: StateProbe) => s.authority === 'ambiguous-intent' },
  // Not while its readback, or a takeover's rotation before it, is in flight.
  quiet,
];

/** The remote-only rows of an answer hold trivially for an Argus question. */
const toArgus = (c: CampaignContext): boolean => c.pendingQuestion?.source !== 'remote';

export const ANSWER_RULES: readonly Rule<EventOf<'OPERATOR_ANSWER'>>[] = [
  { where: 'noMutationInFlightForAnswer', code: 'mutation_in_progress', holds: (s: StateProbe) => s.questionSource !== 'remote' || !s.mutationInFlight },
  open,
  running,
  { where: 'needsYou', code: 'no_pending_question', holds: (s: StateProbe) => s.attention === 'needs-you' },
  { guard: 'answerMatchesQuestion', code: 'question_stale', holds: (c, e) => c.pendingQuestion !== null && e.questionKey === c.pendingQuestion.key },
  // An Argus question goes to Argus, which must be able to run and be bound.
  {
    guard: 'argusReachable',
    code: 'argus_unavailable',
    holds: (c: CampaignContext) => c.pendingQuestion?.source !== 'argus' || (c.environment.argusAvailable && c.argus.projectId !== null && !c.argus.bindingLost),
  },
  // The remote's own question is a fenced mutation of the remote task: the same rows as intervene.
  { guard: 'remoteDiscovered', code: 'remote_unavailable', holds: (c: CampaignContext) => toArgus(c) || c.environment.capabilities !== null },
  { guard: 'remoteAllowsAnswer', code: 'unsupported_capability', holds: (c: CampaignContext) => toArgus(c) || remoteAllowsMutation(c.environment.capabilities, 'answer') },
  { where: 'notInDoubtForAnswer', code: 'intent_unresolved', holds: (s: StateProbe) => s.questionSource !== 'remote' || s.authority !== 'ambiguous-intent' },
  { where: 'controllingForAnswer', code: 'lease_required', holds: (s: StateProbe) => s.questionSource !== 'remote' || s.authority === 'controlling' },
  { where: 'quietForAnswer', code: 'effect_in_flight', holds: (s: StateProbe) => s.questionSource !== 'remote' || !s.effectInFlight },
  { guard: 'answerTaskBound', code: 'no_remote_task', holds: (c: CampaignContext) => toArgus(c) || bindingFitsMutation('answer', mutationTarget(c)) },
  { guard: 'leaseUnexpiredForAnswer', code: 'lease_not_held', holds: (c, e) => toArgus(c) || leaseUnexpiredAt(c.lease, e.now) },
  { guard: 'noOpenIntentForAnswer', code: 'intent_unresolved', holds: (c: CampaignContext) => toArgus(c) || c.pendingIntent === null },
];

export const MISSION_RULES: readonly Rule<EventOf<'BIND_MISSION'>>[] = [
  open,
  running,
  { guard: 'argusRuntimeAvailable', code: 'argus_unavailable', holds: (c: CampaignContext) => c.environment.argusAvailable },
  // Bound between decisions only: a turn or an assessment in flight keeps its binding.
  { where: 'attentionIdle', code: 'decision_in_progress', holds: (s: StateProbe) => s.attention === 'idle' },
];

export const PAUSE_RULES: readonly Rule<EventOf<'PAUSE'>>[] = [
  open,
  running,
  // Pausing mid-effect would abort it (an aborted relay manufactures an ambiguous intent).
  quiet,
];

export const RESUME_RULES: readonly Rule<EventOf<'RESUME'>>[] = [open, { where: 'paused', code: 'not_paused', holds: (s: StateProbe) => s.paused }];

export const CLOSE_RULES: readonly Rule<EventOf<'CLOSE'>>[] = [
  open,
  quiet,
  // Closing must not strand authority: release the lease, and settle any doubt, first.
  { where: 'notControlling', code: 'release_before_close', holds: (s: StateProbe) => s.authority !== 'controlling' },
  noIntent(),
];

export const OPERATOR_RULES = {
  OBSERVE: OBSERVE_RULES,
  OPERATOR_CLAIM: CLAIM_RULES,
  MUTATE: MUTATION_RULES,
  RESOLVE_INTENT: RESOLVE_RULES,
  OPERATOR_ANSWER: ANSWER_RULES,
  BIND_MISSION: MISSION_RULES,
  PAUSE: PAUSE_RULES,
  RESUME: RESUME_RULES,
  CLOSE: CLOSE_RULES,
} as const satisfies { [T in OperatorEvent['type']]: readonly Rule<EventOf<T>>[] };

/** Every code a refusal can carry, plus `action_not_allowed` for a refusal no rule explains. */
export const REFUSAL_CODES = [
  ...new Set([...Object.values(OPERATOR_RULES).flatMap((rules) => (rules as readonly Rule<never>[]).map((r) => r.code)), 'action_not_allowed']),
] as readonly string[];
export type RefusalCode = string;

/**
 * The chart's guards for one operator event's rule table, by name. A guard answers false for any
 * other event, so one name can serve several tables (`noOpenIntent`, `remoteDiscovered`).
 */
export function operatorGuards(): Record<string, (args: { context: CampaignContext; event: { type: string } }) => boolean> {
  const guards: Record<string, (args: { context: CampaignContext; event: { type: string } }) => boolean> = {};
  for (const [type, rules] of Object.entries(OPERATOR_RULES)) {
    for (const rule of rules as readonly Rule<OperatorEvent>[]) {
      if (!isGuard(rule)) continue;
      const previous = guards[rule.guard];
      guards[rule.guard] = ({ context, event }) =>
        event.type === type ? rule.holds(context, event as OperatorEvent) : (previous?.({ context, event }) ?? false);
    }
  }
  return guards;
}

/** The guard names of one table, in order, for `and([...])` in the chart. */
export const guardsOf = (type: OperatorEvent['type']): string[] =>
  (OPERATOR_RULES[type] as readonly Rule<OperatorEvent>[]).filter(isGuard).map((r) => r.guard);

/** The steps of `controlling` between a mutation's acceptance and its outcome. */
const MUTATION_STEPS = ['verifying', 'journaling', 'relaying'];

export function stateProbe(snapshot: AnyMachineSnapshot): StateProbe {
  const states = describeStates(snapshot);
  return {
    ...states,
    closed: snapshot.status === 'done',
    paused: states.authority === 'paused',
    effectInFlight: snapshot.hasTag('effect-in-flight'),
    questionSource: (snapshot.context as CampaignContext).pendingQuestion?.source ?? null,
    mutationInFlight: states.authority === 'controlling' && MUTATION_STEPS.includes(states.step ?? ''),
  };
}

/**
 * @returns null when the chart takes the event now, else the code of the first rule it breaks.
 * @example
 *   const code = explainRefusal(handle.getSnapshot(), event);
 *   if (code) return refusal(code); else handle.send(event);
 */
export function explainRefusal(snapshot: AnyMachineSnapshot, event: OperatorEvent): RefusalCode | null {
  if (snapshot.status === 'active' && snapshot.can(event)) return null;
  const state = stateProbe(snapshot);
  const context = snapshot.context as CampaignContext;
  for (const rule of OPERATOR_RULES[event.type] as readonly Rule<OperatorEvent>[]) {
    const holds = isGuard(rule) ? rule.holds(context, event) : rule.holds(state);
    if (!holds) return rule.code;
  }
  // The chart refused for a reason no row names: a gap the policy test reports.
  return 'action_not_allowed';
}
