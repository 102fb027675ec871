/**
 * The finite alphabet of the DECISION traversal: the decision boundaries (Foreman's assessment,
 * the Argus turn, the mission poll, the binding) with every effect answer and the status reads
 * that wake them, and a small authority alphabet (one claim, renewal, the relay steps) so that
 * the authority states the attention region reads (`controlling.ready`, `controlling`) and the
 * MUTATE it raises are exercised too.
 *
 * Two kinds of event here are built from the state they are offered in, as their real
 * counterparts are built from the campaign: an answer names the pending question's key (the
 * view shows it), and the mission poll (`argusCheck`, whose input is the mission's event key)
 * answers with journal entries and a proposal about that mission, or about another event.
 * The status reads all remember the same view fingerprint, so every material read stays
 * material: the remote may change again at any read (a superset of what a remote does).
 */
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { FOREMAN_DIRECTIVES } from '../../machines/foreman.directives.js';
import { settleInterrupted } from '../../machines/campaign.restore.js';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type {
  ArgusCheckOutput,
  ArgusTurnOutput,
  BindMissionOutput,
  CampaignContext,
  CampaignEvent,
  CampaignInput,
  ForemanAssessOutput,
  OperatorAnswerEvent,
  VerifyBindingOutput,
} from '../../machines/campaign.types.js';
import type { VerdictJournalEntry, VerdictProposal, VerdictProposalRead } from '../../machines/argus.verdict.js';
import type { SignificantEvent } from '../../machines/vocabulary.js';
import {
  answerEvent,
  claimEvent,
  CLAIM_OUTPUTS,
  done,
  draft,
  ENV,
  environmentEvent,
  error,
  K_BLOCK,
  K_DONE,
  LATER,
  NOW,
  OURS,
  read,
  tick,
  view,
  wake,
  type Observation,
} from './graph-events.js';

export const PROJECT = 'proj-1';
export const ITEM = 'item-1';
export const K_ART = 'artifact:task-1:ckpt';
/** The turn's clock before the message left, and the mission deadline: between the two tick instants. */
export const WOKE_AT = NOW;
export const DEADLINE = '2030-01-01T00:05:00.000Z';
/** A journal entry after the wake (fresh), and one before it (an older verdict). */
const FRESH_TS = '2030-01-01T00:00:20.000Z';
const OLD_TS = '2030-01-01T00:00:01.000Z';
export const OTHER_EVENT = 'attempt:task-1:att-0:terminal';
export const DECISION = 'd-1';

// ---- status reads ------------------------------------------------------------------------

/** Every material read remembers this fingerprint; the unchanged read answers it. */
const FP_SEEN = 'fp-seen';
const event = (cls: SignificantEvent['class'], reason: SignificantEvent['reason'], dedupeKey: string, question?: string): SignificantEvent =>
  question === undefined ? { class: cls, reason, dedupeKey } : { class: cls, reason, dedupeKey, question };
const observed = (fp: string, over: Partial<Observation>) =>
  read(fp, OURS, { view: view(FP_SEEN, 'working'), events: [], wakes: [], drafts: [], remoteBlocked: false, argusAvailable: true, foremanEnabled: true, ...over });

const evidence = { events: [event('EVIDENCE_READY', 'artifact_added', K_ART)], wakes: [wake('foreman', 'EVIDENCE_READY', 'artifact_added', K_ART)] };
const completed = {
  view: view(FP_SEEN, 'completed'),
  events: [event('ATTEMPT_COMPLETED', 'attempt_terminal', K_DONE)],
  wakes: [wake('argus', 'ATTEMPT_COMPLETED', 'attempt_terminal', K_DONE)],
  drafts: [draft('ATTEMPT_COMPLETED', K_DONE)],
};
/** The material reads, by what they ask of the attention region. */
export const DECISION_READS = {
  /** Evidence (a Foreman-only wake), Foreman on. */
  evidence: observed('fp-ev', evidence),
  /** The same, Foreman off: nobody is woken. */
  evidenceNoForeman: observed('fp-ev-off', { ...evidence, foremanEnabled: false }),
  /** A completed attempt (an Argus wake), Foreman first. */
  completed: observed('fp-done', completed),
  /** A completed attempt, Foreman off: straight to Argus. */
  completedNoForeman: observed('fp-done-off', { ...completed, foremanEnabled: false }),
  /** A completed attempt while Argus cannot run here (Foreman on). */
  completedNoArgus: observed('fp-done-na', { ...completed, argusAvailable: false }),
  /** The remote asks its own question. */
  blocked: observed('fp-block', {
    view: view(FP_SEEN, 'input-required'),
    remoteBlocked: true,
    events: [event('BLOCKED', 'blocked_input_required', K_BLOCK, 'Which dataset?')],
    wakes: [wake('argus', 'BLOCKED', 'blocked_input_required', K_BLOCK)],
    drafts: [draft('NEEDS_YOU', K_BLOCK)],
  }),
};
// Unchanged, our lease (losing control is the authority traversal's: here it is like observing).
const DECISION_READ_OUTPUTS = [...Object.values(DECISION_READS), read(FP_SEEN, OURS, null)];

// ---- the decision effects' answers ---------------------------------------------------------

export const BIND_OUTPUTS: BindMissionOutput[] = [{ ok: true, projectId: PROJECT }, { ok: false, code: 'argus_unavailable' }];
export const VERIFY_OUTPUTS: VerifyBindingOutput[] = [
  { ok: true },
  { ok: false, code: 'project_not_found', definite: true },
  { ok: false, code: 'argus_unavailable', definite: false },
];
export const FOREMAN_OUTPUTS: ForemanAssessOutput[] = [
  ...FOREMAN_DIRECTIVES.map((directive) => ({ ok: true as const, directive, reason: 'looked', at: NOW })),
  { ok: false, code: 'foreman_disabled', at: NOW },
];
const turned = (turn: Extract<ArgusTurnOutput, { ok: true }>['turn']): ArgusTurnOutput => ({ ok: true, wokeAt: WOKE_AT, deadlineAt: DEADLINE, turn });
export const TURN_OUTPUTS: ArgusTurnOutput[] = [
  turned({ kind: 'task', itemId: ITEM }),
  // No backlog item named: no verdict can ever bind to it.
  turned({ kind: 'task', itemId: null }),
  // The dispatched item itself may ask (the same key as its later verdict question).
  turned({ kind: 'pending_question', itemId: ITEM, question: 'Which seed?' }),
  turned({ kind: 'chat' }),
  { ok: false, wokeAt: WOKE_AT, code: 'argus_timeout' },
  { ok: false, wokeAt: WOKE_AT, code: 'argus_bad_result' },
];

/** The request id a relayed proposal gets (every other fact the chart judges it by is its context's). */
export const REVIEW_REQUEST = 'req-review';

/** What the verdict rule is meant to make of each check answer (the tests compare the chart with it). */
export type CheckKind =
  | 'pending' | 'check-failed' | 'question' | 'question-listed' | 'mission-failed' | 'mission-aborted' | 'no-proposal' | 'proposal-unreadable' | 'proposal-other-event'
  | 'proposal-invalid' | 'mismatch-other-event' | 'mismatch-older' | 'approved-observe' | 'approved-submit' | 'approved-intervene'
  | 'approved-cancel' | 'consumed';

/**
 * The mission poll's answers about the mission with event key `eventKey` and backlog item
 * `itemId` (as `argus_status` and the proposal file would give them): every rejection path of
 * judgeProposal that real journal entries can build, a question, each approval, a consumed one.
 */
export function checkOutputs(eventKey: string, itemId: string | null): Record<CheckKind, ArgusCheckOutput> {
  const item = itemId ?? ITEM;
  const entry = (kind: string, over: Partial<VerdictJournalEntry> = {}): VerdictJournalEntry => ({ id: `j-${kind}`, ts: FRESH_TS, kind, title: kind, summary: 'the Reviewer', itemId: item, eventKey, ...over });
  const found = (kind: VerdictProposal['kind'], over: Partial<VerdictProposal> = {}): VerdictProposalRead => ({
    status: 'found',
    proposal: { decision_id: DECISION, event_key: eventKey, kind, reason: 'because', evidence_refs: [], ...over },
  });
  const ok = (over: Partial<Extract<ArgusCheckOutput, { ok: true }>> = {}): ArgusCheckOutput => ({
    ok: true, at: NOW, journal: [], backlog: [], pendingQuestions: [], proposal: { status: 'none' }, consumed: false, requestId: REVIEW_REQUEST, ...over,
  });
  const complete = [entry('mission_complete')];
  return {
    pending: ok(),
    'check-failed': { ok: false, at: NOW, code: 'argus_unavailable' },
    question: ok({ backlog: [{ id: item, title: 'item', status: 'blocked', pendingQuestion: 'Which seed?', outcome: null }] }),
    'question-listed': ok({ pendingQuestions: [{ itemId: item, question: 'Which seed?' }] }),
    'mission-failed': ok({ journal: [entry('mission_failed')], proposal: found('cancel') }),
    // An abort outranks a completion in the same tail.
    'mission-aborted': ok({ journal: [...complete, entry('mission_aborted')], proposal: found('cancel') }),
    'no-proposal': ok({ journal: complete }),
    'proposal-unreadable': ok({ journal: complete, proposal: { status: 'invalid', code: 'proposal_schema' } }),
    'proposal-other-event': ok({ journal: complete, proposal: found('cancel', { event_key: OTHER_EVENT }) }),
    'proposal-invalid': ok({ journal: complete, proposal: found('submit') }),
    'mismatch-other-event': ok({ journal: [entry('mission_complete', { eventKey: OTHER_EVENT })], proposal: found('cancel') }),
    'mismatch-older': ok({ journal: [entry('mission_complete', { ts: OLD_TS })], proposal: found('cancel') }),
    'approved-observe': ok({ journal: complete, proposal: found('observe') }),
    'approved-submit': ok({ journal: complete, proposal: found('submit', { text: 'train v3' }) }),
    'approved-intervene': ok({ journal: complete, proposal: found('intervene', { instruction: 'lower lr' }) }),
    'approved-cancel': ok({ journal: complete, proposal: found('cancel') }),
    consumed: ok({ journal: complete, proposal: found('cancel'), consumed: true }),
  };
}

/** The decision effects and their fixed answers; argusCheck's are built per mission (`eventsForDecisions`). */
export const DECISION_EFFECT_ANSWERS: Record<string, unknown[]> = {
  argusTurn: TURN_OUTPUTS,
  foremanAssess: FOREMAN_OUTPUTS,
  bindMission: BIND_OUTPUTS,
  verifyBinding: VERIFY_OUTPUTS,
  argusCheck: Object.values(checkOutputs(K_DONE, ITEM)),
};

/** The authority effects of this traversal: a claim that holds, renewal, and the relay steps of an approved proposal. */
const AUTHORITY_ANSWERS: Record<string, unknown[]> = {
  claimLease: [CLAIM_OUTPUTS[0]],
  renewLease: [{ lease: OURS, code: null }],
  readLease: [{ readback: OURS, code: null }],
  // On time, or refused by the journal (that decision was applied, or is in doubt, already).
  journalIntent: [{ journaledAt: NOW, refusedCode: null }, { journaledAt: NOW, refusedCode: 'decision_consumed' }],
  relayMutation: [{ outcome: 'applied', requestId: 'req-review', taskId: null }, { outcome: 'rejected', requestId: 'req-review', code: 'remote_rpc_error', leaseLost: false }],
};

const STALE_ANSWER = answerEvent({ questionKey: 'not-the-question', answer: 'late' });
const ARGUS_HERE = environmentEvent({ argusAvailable: true });
const ARGUS_GONE = environmentEvent({ argusAvailable: false });
const BIND_MISSION: CampaignEvent = { type: 'BIND_MISSION' };
const FIXED: CampaignEvent[] = [
  claimEvent(),
  tick(),
  tick({ now: LATER }),
  ...Object.entries(AUTHORITY_ANSWERS).flatMap(([id, outputs]) => outputs.map((o) => done(id, o))),
  ...Object.entries(DECISION_EFFECT_ANSWERS)
    .filter(([id]) => id !== 'argusCheck')
    .flatMap(([id, outputs]) => [...outputs.map((o) => done(id, o)), error(id)]),
  error('argusCheck'),
  ...DECISION_READ_OUTPUTS.map((output) => ({ type: 'READ_DONE' as const, output })),
  BIND_MISSION,
  STALE_ANSWER,
  { type: 'PAUSE' },
  { type: 'RESUME', now: NOW },
  { type: 'CLOSE' },
];

// The built events are kept, so the traversal sees the same object (and key) for the same facts.
const answersByKey = new Map<string, OperatorAnswerEvent[]>();
const checksByMission = new Map<string, CampaignEvent[]>();

/** The operator answers the question the view shows (Argus available here or not is the environment's). */
export function currentAnswers(key: string): OperatorAnswerEvent[] {
  let found = answersByKey.get(key);
  if (!found) answersByKey.set(key, (found = [answerEvent({ questionKey: key, answer: 'go on' })]));
  return found;
}

const kinds = new WeakMap<object, CheckKind>();
/** Which of `checkOutputs` a mission poll's answer is (undefined: not one of them). */
export const checkKindOf = (output: unknown): CheckKind | undefined => (typeof output === 'object' && output !== null ? kinds.get(output) : undefined);

/** The mission poll's answers about one mission, as done events (built once per mission). */
export function checkEvents(eventKey: string, itemId: string | null): CampaignEvent[] {
  const key = `${eventKey}\u0000${itemId}`;
  let found = checksByMission.get(key);
  if (!found) {
    const outputs = Object.entries(checkOutputs(eventKey, itemId)) as [CheckKind, ArgusCheckOutput][];
    for (const [kind, output] of outputs) kinds.set(output, kind);
    checksByMission.set(key, (found = outputs.map(([, o]) => done('argusCheck', o))));
  }
  return found;
}

type Offered = { children: Record<string, unknown>; matches(value: unknown): boolean; context: CampaignContext };

const AUTHORITY_EFFECTS = new Set(Object.keys(AUTHORITY_ANSWERS));
const effectOf = (e: CampaignEvent): string | undefined => /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
const APPLIED = AUTHORITY_ANSWERS.relayMutation![0];
const UNVERIFIED = new Set(
  FIXED.filter(
    (e) =>
      ['TICK', 'PAUSE', 'RESUME'].includes(e.type) ||
      effectOf(e) === 'verifyBinding' ||
      (e.type === 'READ_DONE' && (e.output === DECISION_READS.blocked || (e.output.ok && e.output.observation === null))),
  ),
);
const CLAIM = FIXED[0]!;

/**
 * The alphabet offered in one state: effect answers only while that effect runs, reads only
 * while reading, as in the authority traversal, and three restrictions that keep the product
 * small (what they leave out is the authority traversal's, where no decision runs):
 * - While an authority effect runs (claim, renewal, the relay steps), only its answer, the
 *   heartbeat, the reads and the mission poll's answer (the one decision answer that reads
 *   the authority region) are offered.
 * - A claim starts only between decisions (attention idle or needs-you).
 * - A relayed submit is refused by the remote: the attempt count, and the bound it guards,
 *   are the authority traversal's.
 * - Restored, before the binding answered again (`bindingVerified: false`, only from the
 *   restored root): the heartbeat, the verification's answers, an unchanged or a blocked read
 *   (which leaves the verification), pause and resume. Every decision after it is the same
 *   as from the start (the chart does not read the flag anywhere else).
 */
export function eventsForDecisions(snapshot: Offered): CampaignEvent[] {
  const reading = snapshot.matches({ active: { heartbeat: 'reading' } });
  const authorityBusy = ['claiming', { controlling: 'renewing' }, { controlling: 'verifying' }, { controlling: 'journaling' }, { controlling: 'relaying' }].some((a) =>
    snapshot.matches({ active: { authority: a } }),
  );
  const between = snapshot.matches({ active: { attention: 'idle' } }) || snapshot.matches({ active: { attention: 'needs-you' } });
  const submitting = snapshot.context.pendingIntent?.kind === 'submit';
  // Argus's runtime gone: what an operator may ask of it is refused, until it comes back (the
  // authority alphabet walks everything else with Argus away).
  if (!snapshot.context.environment.argusAvailable) {
    const question = snapshot.context.pendingQuestion;
    return [ARGUS_HERE, BIND_MISSION, ...(question ? currentAnswers(question.key) : [])];
  }
  if (!snapshot.context.argus.bindingVerified) return FIXED.filter((e) => UNVERIFIED.has(e) && (!effectOf(e) || effectOf(e)! in snapshot.children) && (e.type !== 'READ_DONE' || reading));
  const offered = FIXED.filter((e) => {
    if (e.type === 'READ_DONE') return reading;
    if (e === CLAIM) return between;
    const effect = effectOf(e);
    if (effect === 'relayMutation' && submitting && (e as { output?: unknown }).output === APPLIED) return false;
    if (effect !== undefined && !(effect in snapshot.children)) return false;
    if (authorityBusy) return e.type === 'TICK' || (effect !== undefined && (AUTHORITY_EFFECTS.has(effect) || effect === 'argusCheck'));
    return true;
  });
  const { pendingQuestion, argus } = snapshot.context;
  if ('argusCheck' in snapshot.children && argus.mission) offered.push(...checkEvents(argus.mission.eventKey, argus.mission.itemId));
  if (pendingQuestion && !authorityBusy) offered.push(...currentAnswers(pendingQuestion.key));
  // Argus's runtime comes and goes (the environment every actor holds says so): it goes while
  // Argus's own question waits for an answer, and comes back from wherever it is gone.
  if (pendingQuestion?.source === 'argus') offered.push(ARGUS_GONE);
  return offered;
}

/** The decision traversal starts where Argus's runtime is here (the environment's). */
export const decisionInput = (input: CampaignInput): CampaignInput => ({ ...input, environment: { ...ENV, argusAvailable: true } });

/**
 * The decision traversal's restored root: a campaign bound to its mission, saved and restored
 * the way the host restores it (settleInterrupted: the binding must answer again before any
 * turn). From the start, `bindingVerified` is never false.
 */
export function decisionRoots(machine: CampaignMachine, input: CampaignInput, restore: (persisted: unknown) => SnapshotFrom<CampaignMachine>): SnapshotFrom<CampaignMachine>[] {
  let [s] = initialTransition(machine, decisionInput(input));
  [s] = transition(machine, s, { type: 'BIND_MISSION' });
  [s] = transition(machine, s, done('bindMission', BIND_OUTPUTS[0]));
  const persisted = JSON.parse(JSON.stringify(machine.getPersistedSnapshot(s)));
  return [restore(settleInterrupted(persisted, NOW).snapshot)];
}
