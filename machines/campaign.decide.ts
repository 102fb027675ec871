/**
 * The decision boundaries' rules and steps, as pure functions of (context, event): the guards
 * the attention region names, and the steps its actions take (what to assign, what to emit for
 * the host, what to raise to the other regions). `campaign.setup.ts` wraps them; nothing here
 * does I/O or reads a clock: every instant comes from an event or an effect's output.
 * @module
 */
import { routeForDirective, routeWakesArgus } from './foreman.directives.js';
import {
  argusEventKey,
  foremanHint,
  mutationOfVerdict,
  verdictOf,
  type ArgusCheckOutput,
  type ArgusMemory,
  type ArgusWake,
  type DecisionOutcome,
  type DecisionRecord,
  type ReceiptKind,
} from './campaign.argus.js';
import type { CampaignContext, CampaignEvent, CampaignEmitted, MutateEvent, RemoteObservedEvent } from './campaign.types.js';
import type { PublicEventDraft, WakeRequest } from './vocabulary.js';

/** What one action does: the chart's wrapper (`step` in campaign.setup.ts) enqueues it. */
export interface Step {
  assign?: Partial<CampaignContext>;
  emit?: CampaignEmitted[];
  raise?: CampaignEvent[];
}

type Ev<T extends CampaignEvent['type']> = Extract<CampaignEvent, { type: T }>;

// ---- facts about the campaign's Argus ---------------------------------------------------------

/** A bound, live project: the only place an autonomous turn can go. */
export const bindingLive = (a: ArgusMemory): boolean => a.projectId !== null && !a.bindingLost;

/** The observation's Argus wake, else its Foreman wake (the reducer gives at most one of each). */
function wakeOf(e: RemoteObservedEvent): WakeRequest | null {
  return e.wakes.find((w) => w.target === 'argus') ?? e.wakes.find((w) => w.target === 'foreman') ?? null;
}

const toWake = (w: WakeRequest, argusReady: boolean): ArgusWake => ({
  dedupeKey: w.dedupeKey,
  eventKey: argusEventKey(w.dedupeKey),
  target: w.target,
  reason: w.reason,
  eventClass: w.eventClass,
  foremanHint: null,
  argusReady,
  answer: null,
});

const argusReadyFor = (c: CampaignContext, e: RemoteObservedEvent): boolean => e.argusAvailable && bindingLive(c.argus);

/** Foreman runs for evidence and for completed attempts, and only when it is enabled. */
export function observationWantsForeman(c: CampaignContext, e: RemoteObservedEvent): boolean {
  const wake = wakeOf(e);
  if (!e.foremanEnabled || wake === null) return false;
  return wake.target === 'foreman' || wake.eventClass === 'ATTEMPT_COMPLETED';
}

/** An Argus wake that Argus can take here (runtime available, a live binding). */
export const observationWakesArgusHere = (c: CampaignContext, e: RemoteObservedEvent): boolean =>
  e.wakes.some((w) => w.target === 'argus') && argusReadyFor(c, e);

// ---- taking up an event -----------------------------------------------------------------------

export function takeWake(c: CampaignContext, e: RemoteObservedEvent): Step {
  const wake = wakeOf(e);
  return wake ? { assign: { argus: { ...c.argus, wake: toWake(wake, argusReadyFor(c, e)), mission: null, held: null } } } : {};
}

/** A newer Argus event while one is decided: it supersedes the one in flight and is taken up next. */
export function queueWake(c: CampaignContext, e: RemoteObservedEvent): Step {
  const wake = e.wakes.find((w) => w.target === 'argus');
  return wake && argusReadyFor(c, e) ? { assign: { argus: { ...c.argus, queued: toWake(wake, true) } } } : {};
}

export const takeQueuedWake = (c: CampaignContext): Step => ({ assign: { argus: { ...c.argus, wake: c.argus.queued, queued: null, mission: null, held: null } } });

/** The operator's answer to an Argus question is the next decision-worthy event (`answer:<key>`). */
export function takeAnswerWake(c: CampaignContext, e: Ev<'OPERATOR_ANSWER'>): Step {
  const q = c.pendingQuestion;
  const dedupeKey = `answer:${e.questionKey}`;
  const wake: ArgusWake = {
    dedupeKey,
    eventKey: argusEventKey(dedupeKey),
    target: 'argus',
    reason: 'operator_answered',
    eventClass: null,
    foremanHint: null,
    argusReady: true,
    answer: { itemId: q?.itemId ?? null, question: q?.text ?? '', text: e.answer },
  };
  return { assign: { argus: { ...c.argus, wake, mission: null, held: null } } };
}

/** Foreman answered: its directive becomes the hint; a directive that asks for Argus is a wake of its own. */
export function adoptForemanHint(c: CampaignContext, e: { output: { ok: boolean; directive?: string; reason?: string; at?: string } }): Step {
  const wake = c.argus.wake;
  if (wake === null) return {};
  const hint = e.output.ok && e.output.directive ? foremanHint(e.output.directive as never, e.output.reason ?? '') : null;
  if (wake.target === 'argus') return { assign: { argus: { ...c.argus, wake: { ...wake, foremanHint: hint } } } };
  const dedupeKey = `foreman:${wake.dedupeKey}`;
  const request: WakeRequest = { target: 'argus', reason: 'foreman_directive', eventClass: wake.eventClass, dedupeKey };
  // Foreman's own boundary is over (it answered); the Argus turn it asks for is a wake of its own.
  const assessed: DecisionRecord = {
    dedupeKey: wake.dedupeKey,
    eventKey: wake.eventKey,
    outcome: 'assessed',
    code: null,
    decisionId: null,
    kind: null,
    directive: (e.output.directive ?? null) as DecisionRecord['directive'],
    at: e.output.at ?? c.argus.last?.at ?? c.createdAt,
  };
  return {
    assign: {
      argus: { ...c.argus, wake: { ...wake, dedupeKey, eventKey: argusEventKey(dedupeKey), target: 'argus', reason: 'foreman_directive', foremanHint: hint } },
      wakes: { lastArgusEventKey: dedupeKey },
    },
    emit: [
      { type: 'DECISION_SETTLED', campaignId: c.campaignId, decision: assessed },
      { type: 'WAKE_REQUESTED', campaignId: c.campaignId, wake: request },
    ],
  };
}

/** Foreman's answer asks for Argus (or the event did), and Argus can take it. */
export function assessmentWakesArgus(c: CampaignContext, output: { ok: boolean; directive?: string }): boolean {
  const wake = c.argus.wake;
  if (wake === null || !wake.argusReady || !bindingLive(c.argus)) return false;
  if (wake.target === 'argus') return true;
  return output.ok && output.directive !== undefined && routeWakesArgus(routeForDirective(output.directive as never));
}

// ---- the mission's verdict --------------------------------------------------------------------

export const verdict = (c: CampaignContext, output: ArgusCheckOutput) => verdictOf(c.argus, c.wakes.lastArgusEventKey, output);

/** The MUTATE an approved proposal becomes: authority (epoch, task, request id) is ours, never the model's. */
export function approvedMutateEvent(c: CampaignContext, output: ArgusCheckOutput): MutateEvent | null {
  const v = verdict(c, output);
  const mutation = mutationOfVerdict(v);
  if (!output.ok || v.status !== 'approved' || mutation === null || c.argus.mission === null) return null;
  return {
    type: 'MUTATE',
    mutation,
    requestId: output.requestId,
    epoch: c.lease?.epoch ?? -1,
    approval: { kind: 'review', decisionId: v.decisionId, verdict: 'approved', eventKey: c.argus.mission.dedupeKey },
    now: output.at,
  };
}

// ---- settling ---------------------------------------------------------------------------------

function record(c: CampaignContext, outcome: DecisionOutcome, at: string, extra: Partial<DecisionRecord> = {}): DecisionRecord {
  const dedupeKey = c.argus.wake?.dedupeKey ?? c.argus.mission?.dedupeKey ?? '';
  return { dedupeKey, eventKey: c.argus.wake?.eventKey ?? c.argus.mission?.eventKey ?? '', outcome, code: null, decisionId: null, kind: null, directive: null, at, ...extra };
}

/** The boundary is done: the wake log learns how, and the campaign forgets the event. */
export function settle(c: CampaignContext, outcome: DecisionOutcome, at: string, extra: Partial<DecisionRecord> = {}, keep: Partial<ArgusMemory> = {}): Step {
  const decision = record(c, outcome, at, extra);
  return {
    assign: { argus: { ...c.argus, wake: null, mission: null, held: null, last: decision, ...keep } },
    emit: [{ type: 'DECISION_SETTLED', campaignId: c.campaignId, decision }],
  };
}

const needsYouDraft = (key: string, summary: string, data: Record<string, unknown>): PublicEventDraft => ({ kind: 'NEEDS_YOU', dedupeKey: `needs-you:${key}`, summary, data: { source: 'argus', ...data } });

/**
 * Argus (its Manager or the dispatched item) asks the operator. The key names this question,
 * not only its item: an item that asks again after an answer must get a new key, or its answer
 * (`answer:<key>`) would look like a turn already sent and its NEEDS_YOU like one already published.
 */
export function holdArgusQuestion(c: CampaignContext, at: string, itemId: string | null, question: string): Step {
  const n = c.argus.receipts + 1;
  const key = itemId ? `argus-${itemId}-${n}` : `argus-q${n}`;
  const settled = settle(c, 'question', at, {}, { receipts: n });
  return {
    assign: { ...settled.assign, pendingQuestion: { key, text: question, source: 'argus', askedAt: at, itemId } },
    emit: [...(settled.emit ?? []), { type: 'PUBLIC_DRAFTS', campaignId: c.campaignId, drafts: [needsYouDraft(key, 'Argus asks a question', { question, item_id: itemId })] }],
  };
}

const RECEIPT_TEXT: Record<ReceiptKind, string> = {
  interrupted: 'The Argus turn for this event was interrupted (restart or pause); it is not replayed. Answer to wake Argus again with your words.',
  timeout: 'Argus did not answer within its decision budget; the turn is not replayed. Answer to wake Argus again with your words.',
  failed: 'Argus could not take this event. Answer to wake Argus again with your words.',
  unsettled: 'Argus did not settle before the mission deadline. Answer to wake Argus again with your words.',
  apply: 'Argus proposed an action and its Reviewer approved it, but this campaign holds no controller lease: claim to apply it, or answer to wake Argus instead.',
  refused: 'Argus proposed an action and its Reviewer approved it, but a rule refused it. Answer to wake Argus again with your words.',
  escalated: 'Foreman escalates this event and Argus cannot take it here. Answer once you have looked.',
};
const RECEIPT_OUTCOME: Record<ReceiptKind, DecisionOutcome> = {
  interrupted: 'interrupted',
  timeout: 'timeout',
  failed: 'failed',
  unsettled: 'unsettled',
  apply: 'held',
  refused: 'refused',
  escalated: 'assessed',
};

/** A NEEDS_YOU the chart raises itself (the receipt names the event and, if any, the code). */
export function holdReceipt(c: CampaignContext, kind: ReceiptKind, at: string, extra: Partial<DecisionRecord> = {}, keep: Partial<ArgusMemory> = {}): Step {
  const n = c.argus.receipts + 1;
  const key = `${kind}-${n}`;
  const text = extra.code ? `${RECEIPT_TEXT[kind]} (${extra.code})` : RECEIPT_TEXT[kind];
  const settled = settle(c, RECEIPT_OUTCOME[kind], at, extra, { receipts: n, ...keep });
  const eventKey = c.argus.wake?.eventKey ?? c.argus.mission?.eventKey ?? null;
  return {
    assign: { ...settled.assign, pendingQuestion: { key, text, source: 'argus', askedAt: at, itemId: null } },
    emit: [...(settled.emit ?? []), { type: 'PUBLIC_DRAFTS', campaignId: c.campaignId, drafts: [needsYouDraft(key, text, { receipt: kind, event_key: eventKey, code: extra.code ?? null })] }],
  };
}

/** The one CRITICAL of a binding that stopped answering (its project id names it: never twice). */
export function loseBinding(c: CampaignContext, code: string): Step {
  const projectId = c.argus.projectId ?? '-';
  const draft: PublicEventDraft = {
    kind: 'CRITICAL',
    dedupeKey: `argus-binding-lost:${projectId}`,
    summary: 'The campaign\u2019s Argus project no longer answers: observation goes on, no autonomous proposal runs until `mission` binds it again',
    data: { code: 'argus_binding_lost', cause: code, project_id: projectId },
  };
  return {
    assign: { argus: { ...c.argus, bindingLost: true, bindingVerified: false, wake: null, queued: null, mission: null, held: null } },
    emit: [{ type: 'PUBLIC_DRAFTS', campaignId: c.campaignId, drafts: [draft] }],
  };
}
