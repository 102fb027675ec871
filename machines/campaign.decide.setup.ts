/**
 * The attention region's named guards and actions, for `campaign.setup.ts` to spread into the
 * one typed setup. Each is a thin wrapper of a pure rule or step of `campaign.decide.ts` and
 * `argus.verdict.ts`, so the chart (`campaign.attention.ts`) reads as states and arrows.
 * @module
 */
import { type ArgusCheckOutput, type ArgusTurnOutput, type BindMissionOutput, type ForemanAssessOutput, type ReceiptKind, type VerifyBindingOutput } from './campaign.argus.js';
import * as decide from './campaign.decide.js';
import { MUTATION_RULES, type GuardRule } from './campaign.rules.js';
import type { CampaignContext, CampaignEmitted, CampaignEvent, MutateEvent } from './campaign.types.js';

type G = { context: CampaignContext; event: CampaignEvent };
type Ev<T extends CampaignEvent['type']> = Extract<CampaignEvent, { type: T }>;
const on =
  <T extends CampaignEvent['type']>(type: T, test: (c: CampaignContext, e: Ev<T>) => boolean) =>
  ({ context, event }: G) =>
    event.type === type && test(context, event as Ev<T>);

/** The queue an XState action enqueues on (the part a step uses). */
export interface StepQueue {
  assign(values: Partial<CampaignContext>): void;
  emit(event: CampaignEmitted): void;
  raise(event: CampaignEvent): void;
}

/** Enqueues one pure step: assign, then emit (for the host), then raise (to the other regions). */
export function run(enqueue: StepQueue, s: decide.Step): void {
  if (s.assign) enqueue.assign(s.assign);
  for (const e of s.emit ?? []) enqueue.emit(e);
  for (const e of s.raise ?? []) enqueue.raise(e);
}

/** A step as the setup names it (identity: it only fixes the parameter types). */
const step = <P = undefined>(fn: (context: CampaignContext, event: CampaignEvent, params: P) => decide.Step) => fn;

/** The `argusCheck` done event's output (any other event: a failed check, which approves nothing). */
const checkOutputOf = (event: CampaignEvent): ArgusCheckOutput => {
  const e = event as unknown as { type: string; output?: ArgusCheckOutput };
  return e.type === 'xstate.done.actor.argusCheck' && e.output ? e.output : { ok: false, at: '', code: 'not_a_check' };
};

type Turn = { output: ArgusTurnOutput };
type Check = { output: ArgusCheckOutput };
type Assess = { output: ForemanAssessOutput };

/** Every MUTATE guard row holds for the approved proposal's event (the same rows `controlling.ready` will check). */
function passesMutationRules(c: CampaignContext, event: MutateEvent): boolean {
  return MUTATION_RULES.every((rule) => !('guard' in rule) || (rule as GuardRule<MutateEvent>).holds(c, event));
}

/** The first MUTATE guard row the approved proposal breaks (a refusal receipt names it). */
function brokenMutationRule(c: CampaignContext, event: MutateEvent | null): string {
  if (event === null) return 'proposal_invalid';
  const broken = MUTATION_RULES.find((rule) => 'guard' in rule && !(rule as GuardRule<MutateEvent>).holds(c, event));
  return broken?.code ?? 'effect_in_flight';
}

export const decisionGuards = {
  observationWantsForeman: on('REMOTE_OBSERVED', decide.observationWantsForeman),
  observationWakesArgusHere: on('REMOTE_OBSERVED', decide.observationWakesArgusHere),
  wakeQueued: ({ context }: G) => context.argus.queued !== null && decide.bindingLive(context.argus),
  bindingUnverified: on('TICK', (c) => c.argus.projectId !== null && !c.argus.bindingVerified && !c.argus.bindingLost),
  bindingAnswered: (_: G, p: { output: VerifyBindingOutput }) => p.output.ok,
  bindingGone: (_: G, p: { output: VerifyBindingOutput }) => !p.output.ok && p.output.definite,
  missionBound: (_: G, p: { output: BindMissionOutput }) => p.output.ok,
  turnAlreadySent: ({ context }: G) => context.argus.wake !== null && context.argus.sentFor === context.argus.wake.dedupeKey,
  missionDispatched: ({ context }: G) => context.argus.mission !== null,
  assessmentAlreadyStarted: ({ context }: G) => context.argus.wake !== null && context.argus.assessedFor === context.argus.wake.dedupeKey,
  wakeWantsArgus: ({ context }: G) => decide.assessmentWakesArgus(context, { ok: false }),
  assessmentWakesArgus: ({ context }: G, p: Assess) => decide.assessmentWakesArgus(context, p.output),
  assessmentEscalates: (_: G, p: Assess) => p.output.ok && p.output.directive === 'ESCALATE',
  turnDispatched: (_: G, p: Turn) => p.output.ok && p.output.turn.kind === 'task',
  turnAsked: (_: G, p: Turn) => p.output.ok && p.output.turn.kind === 'pending_question',
  turnChatted: (_: G, p: Turn) => p.output.ok && p.output.turn.kind === 'chat',
  turnTimedOut: (_: G, p: Turn) => !p.output.ok && p.output.code === 'argus_timeout',
  missionPastDeadline: on('TICK', (c, e) => c.argus.mission !== null && Date.parse(e.now) >= Date.parse(c.argus.mission.deadlineAt)),
  checkUnsettled: ({ context }: G, p: Check) => decide.verdict(context, p.output).status === 'pending',
  verdictAsks: ({ context }: G, p: Check) => decide.verdict(context, p.output).status === 'question',
  verdictRejected: ({ context }: G, p: Check) => decide.verdict(context, p.output).status === 'rejected',
  decisionConsumed: ({ context }: G, p: Check) => decide.verdict(context, p.output).status === 'approved' && p.output.ok && p.output.consumed,
  verdictObserves: ({ context }: G, p: Check) => {
    const v = decide.verdict(context, p.output);
    return v.status === 'approved' && v.kind === 'observe';
  },
  // These two combine with `stateIn` in the chart, where `and([...])` takes names only: they
  // read the check's answer from the done event itself.
  verdictApprovesMutation: ({ context, event }: G) => decide.approvedMutateEvent(context, checkOutputOf(event)) !== null,
  decisionPassesMutationRules: ({ context, event }: G) => {
    const mutate = decide.approvedMutateEvent(context, checkOutputOf(event));
    return mutate !== null && passesMutationRules(context, mutate);
  },
  questionFromArgus: ({ context }: G) => context.pendingQuestion?.source === 'argus',
  questionFromRemote: ({ context }: G) => context.pendingQuestion?.source === 'remote',
  answeredPendingQuestion: on('REMOTE_ANSWERED', (c, e) => c.pendingQuestion?.key === e.questionKey),
  decisionHeld: ({ context }: G) => context.argus.held !== null && context.argus.mission !== null,
};

/** The attention region's steps; campaign.setup.ts wraps each in one `enqueueActions`. */
export const decisionSteps = {
  takeWake: step((c, e) => (e.type === 'REMOTE_OBSERVED' ? decide.takeWake(c, e) : {})),
  queueWake: step((c, e) => (e.type === 'REMOTE_OBSERVED' ? decide.queueWake(c, e) : {})),
  takeQueuedWake: step((c) => decide.takeQueuedWake(c)),
  takeAnswerWake: step((c, e) => (e.type === 'OPERATOR_ANSWER' ? decide.takeAnswerWake(c, e) : {})),
  markTurnSent: step((c) => ({ assign: { argus: { ...c.argus, sentFor: c.argus.wake?.dedupeKey ?? null } } })),
  markAssessed: step((c) => ({ assign: { argus: { ...c.argus, assessedFor: c.argus.wake?.dedupeKey ?? null } } })),
  adoptForemanHint: step((c, _e, p: Assess) => decide.adoptForemanHint(c, p)),
  settleAssessment: step((c, _e, p: Assess) => decide.settle(c, 'assessed', p.output.at, p.output.ok ? { directive: p.output.directive } : { code: p.output.code })),
  holdEscalation: step((c, _e, p: Assess) => decide.holdReceipt(c, 'escalated', p.output.at, p.output.ok ? { directive: p.output.directive } : {})),
  startMission: step((c, _e, p: Turn) => {
    const o = p.output;
    const wake = c.argus.wake;
    if (!o.ok || o.turn.kind !== 'task' || wake === null) return {};
    return { assign: { argus: { ...c.argus, mission: { dedupeKey: wake.dedupeKey, eventKey: wake.eventKey, itemId: o.turn.itemId, wokeAt: o.wokeAt, deadlineAt: o.deadlineAt } } } };
  }),
  holdTurnQuestion: step((c, _e, p: Turn) => {
    const o = p.output;
    return o.ok && o.turn.kind === 'pending_question' ? decide.holdArgusQuestion(c, o.wokeAt, o.turn.itemId, o.turn.question) : {};
  }),
  settleChat: step((c, _e, p: Turn) => decide.settle(c, 'chat', p.output.wokeAt)),
  holdTurnReceipt: step((c, _e, p: Turn & { kind: ReceiptKind }) => decide.holdReceipt(c, p.kind, p.output.wokeAt, p.output.ok ? {} : { code: p.output.code })),
  holdUnsettled: step((c, e) => decide.holdReceipt(c, 'unsettled', e.type === 'TICK' ? e.now : (c.argus.mission?.deadlineAt ?? ''), { code: 'mission_deadline' })),
  holdVerdictQuestion: step((c, _e, p: Check) => {
    const v = decide.verdict(c, p.output);
    return v.status === 'question' ? decide.holdArgusQuestion(c, p.output.at, v.itemId, v.question) : {};
  }),
  settleVerdict: step((c, _e, p: Check & { outcome: 'rejected' | 'consumed' | 'approved' }) => {
    const v = decide.verdict(c, p.output);
    const extra = v.status === 'rejected' ? { code: v.code } : v.status === 'approved' ? { decisionId: v.decisionId, kind: v.kind } : {};
    // A completed mission that proposed nothing settles as the verdict says, rejected
    // `no_proposal` (docs/argus-bridge.md rule 5): nothing was approved, so nothing reads as approved.
    return decide.settle(c, p.outcome, p.output.at, p.outcome === 'consumed' ? { ...extra, code: 'decision_consumed' } : extra);
  }),
  /** The approved proposal goes to the authority region as a MUTATE with a review approval. */
  relayDecision: step((c, _e, p: Check) => {
    const event = decide.approvedMutateEvent(c, p.output);
    const v = decide.verdict(c, p.output);
    if (event === null || v.status !== 'approved') return {};
    const settled = decide.settle(c, 'relayed', p.output.at, { decisionId: v.decisionId, kind: v.kind });
    return { ...settled, raise: [event] };
  }),
  holdDecision: step((c, _e, p: Check) => {
    const event = decide.approvedMutateEvent(c, p.output);
    const v = decide.verdict(c, p.output);
    if (event === null || v.status !== 'approved' || c.argus.mission === null) return {};
    const held = { eventKey: c.argus.mission.eventKey, decisionId: v.decisionId, mutation: event.mutation };
    // The mission stays: once a lease is held, the next tick checks the verdict again.
    return decide.holdReceipt(c, 'apply', p.output.at, { decisionId: v.decisionId, kind: v.kind }, { held, mission: c.argus.mission, wake: c.argus.wake });
  }),
  holdRefusedDecision: step((c, _e, p: Check) => {
    const v = decide.verdict(c, p.output);
    const code = brokenMutationRule(c, decide.approvedMutateEvent(c, p.output));
    return decide.holdReceipt(c, 'refused', p.output.at, { code, ...(v.status === 'approved' ? { decisionId: v.decisionId, kind: v.kind } : {}) });
  }),
  /** A remote blocker took over mid-decision: that event's boundary is over, never replayed. */
  abandonDecision: step((c, e) =>
    (c.argus.wake ?? c.argus.mission) && e.type === 'REMOTE_OBSERVED' ? decide.settle(c, 'interrupted', e.observedAt, { code: 'remote_blocked' }) : {},
  ),
  adoptBinding: step((c, _e, p: { output: BindMissionOutput }) =>
    p.output.ok ? { assign: { argus: { ...c.argus, projectId: p.output.projectId, bindingVerified: true, bindingLost: false }, lastErrorCode: null } } : {},
  ),
  bindingVerified: step((c) => ({ assign: { argus: { ...c.argus, bindingVerified: true } } })),
  loseBinding: step((c, _e, p: { output: VerifyBindingOutput }) => decide.loseBinding(c, p.output.ok ? 'unknown' : p.output.code)),
};
