/**
 * The Reviewer gate as pure rules (docs/argus-bridge.md "The verdict rule"). A proposal file is
 * only a wish: it is approved by nothing but the dispatched mission's own Reviewer verdict, a
 * `mission_complete` journal entry for the item dispatched for this event, carrying this
 * event's key, written after the wake, while this event is still the campaign's latest. Every
 * rule is one exported predicate so the chart can use them as guards; `judgeProposal` applies
 * them in a fixed order (VERDICT_RULE_ORDER), refusals first, approval last.
 * The shapes are re-declared structurally (machines/ imports nothing outside machines/):
 * adapters/argus/proposal-file.ts `ProposalRead` and the bridge's `ArgusStatus` fit them.
 * @module
 */

export type ArgusProposalKind = 'observe' | 'submit' | 'intervene' | 'cancel';

export interface VerdictProposal {
  decision_id: string;
  event_key: string;
  kind: ArgusProposalKind;
  text?: string;
  instruction?: string;
  reason: string;
  evidence_refs: string[];
}

export type VerdictProposalRead = { status: 'none' } | { status: 'invalid'; code: string } | { status: 'found'; proposal: VerdictProposal };

export interface VerdictJournalEntry {
  id: string;
  ts: string;
  kind: string;
  title: string;
  summary: string;
  itemId: string | null;
  eventKey: string | null;
}

export interface VerdictBacklogItem {
  id: string;
  title: string;
  status: string;
  pendingQuestion: string | null;
  outcome: string | null;
}

export interface VerdictInput {
  eventKey: string;
  /** ISO time the wake (the `argus_message`) was dispatched. */
  wokeAt: string;
  dispatchedItemId: string | null;
  /** The campaign's latest Argus event key: a newer event supersedes this one. */
  latestEventKey: string | null;
  proposal: VerdictProposalRead;
  journal: readonly VerdictJournalEntry[];
  backlog: readonly VerdictBacklogItem[];
  /** `argus_status.pending_questions`: real Argus lists blocked items here, not in `backlog_pending`. */
  pendingQuestions?: readonly { itemId: string; question: string }[];
  /** A Foreman FINISH. Read by nothing here, on purpose: FINISH never approves (tested). */
  foremanFinish?: boolean;
}

export type Verdict =
  | { status: 'approved'; decisionId: string; kind: ArgusProposalKind; text?: string; instruction?: string }
  | { status: 'pending' }
  | { status: 'question'; itemId: string; question: string }
  | { status: 'rejected'; code: string };

/** The Reviewer approved the mission. */
export const COMPLETE_KIND = 'mission_complete';
/** The mission ended without approval (Argus journals an abort apart from a failure). */
export const FAILED_KINDS: readonly string[] = ['mission_failed', 'mission_aborted'];

/** ISO-8601 date-time with an explicit zone (Z or ±hh:mm). */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An instant as milliseconds: ISO-8601 with a zone, or epoch seconds as a decimal string (real
 * Argus journals `ts` as a float). Anything else is NaN, and a NaN is never "after" anything:
 * Date.parse alone would read a zone-less time in the host's zone, so a verdict's freshness
 * would depend on the machine's TZ.
 */
export function instantMs(value: string): number {
  if (/^\d{1,12}(\.\d{1,9})?$/.test(value)) return Number(value) * 1000;
  return ISO_WITH_ZONE.test(value) ? Date.parse(value) : Number.NaN;
}

// ---- the rules, one predicate each --------------------------------------------------------------

/** A newer decision-worthy event exists: nothing about this one may act. */
export function isSuperseded(input: VerdictInput): boolean {
  return input.eventKey !== input.latestEventKey;
}

/** The turn named no backlog item, so no verdict can ever be bound to it. */
export function isUnbound(input: VerdictInput): boolean {
  return input.dispatchedItemId === null || input.dispatchedItemId === '';
}

/** The dispatched item is blocked on the operator (backlog item or pending_questions list). */
export function openQuestion(input: VerdictInput): { itemId: string; question: string } | null {
  const id = input.dispatchedItemId;
  if (id === null) return null;
  const item = input.backlog.find((b) => b.id === id && b.pendingQuestion !== null && b.pendingQuestion.trim() !== '');
  if (item) return { itemId: id, question: item.pendingQuestion as string };
  const listed = (input.pendingQuestions ?? []).find((q) => q.itemId === id && q.question.trim() !== '');
  return listed ? { itemId: id, question: listed.question } : null;
}

export function hasOpenQuestion(input: VerdictInput): boolean {
  return openQuestion(input) !== null;
}

/** An entry about the dispatched item (whatever event it names, whenever it was written). */
export function isOwnEntry(input: VerdictInput, entry: VerdictJournalEntry): boolean {
  return !isUnbound(input) && entry.itemId === input.dispatchedItemId;
}

/** An own entry for this event, written strictly after the wake. */
export function isFreshOwnEntry(input: VerdictInput, entry: VerdictJournalEntry): boolean {
  return isOwnEntry(input, entry) && entry.eventKey === input.eventKey && instantMs(entry.ts) > instantMs(input.wokeAt);
}

const isTerminal = (entry: VerdictJournalEntry) => entry.kind === COMPLETE_KIND || FAILED_KINDS.includes(entry.kind);

/**
 * The dispatched item failed (or was aborted), whatever event key or time the entry carries:
 * a failure never authorizes anything, and it outranks a completion in the same tail.
 */
export function hasOwnFailure(input: VerdictInput): boolean {
  return input.journal.some((e) => FAILED_KINDS.includes(e.kind) && isOwnEntry(input, e));
}

/** The mission's own fresh Reviewer approval. */
export function hasFreshCompletion(input: VerdictInput): boolean {
  return input.journal.some((e) => e.kind === COMPLETE_KIND && isFreshOwnEntry(input, e));
}

/**
 * The item's own terminal entry is there but is not this event's fresh verdict (older than the
 * wake, another event key, or none): the turn settled without a verdict we can bind.
 */
export function hasMismatchedVerdict(input: VerdictInput): boolean {
  return input.journal.some((e) => isTerminal(e) && isOwnEntry(input, e) && !isFreshOwnEntry(input, e));
}

/** A found proposal about this very event (the reader checks it too; the gate does not trust the reader). */
export function proposalFitsEvent(input: VerdictInput): boolean {
  const p = input.proposal;
  if (p.status !== 'found' || p.proposal.event_key !== input.eventKey) return false;
  if (p.proposal.kind === 'submit' && !p.proposal.text) return false;
  if (p.proposal.kind === 'intervene' && !p.proposal.instruction) return false;
  return true;
}

/** The one approval: a fresh own completion, no open question, not superseded, a proposal that fits. */
export function isApproved(input: VerdictInput): boolean {
  return !isSuperseded(input) && !isUnbound(input) && !hasOpenQuestion(input) && !hasOwnFailure(input) && hasFreshCompletion(input) && proposalFitsEvent(input);
}

/** The order `judgeProposal` applies the rules in (documented in docs/argus-bridge.md). */
export const VERDICT_RULE_ORDER = [
  'verdict_superseded',
  'verdict_unbound',
  'question',
  'verdict_failed',
  'completion: proposal code | no_proposal | proposal_other_event | approved',
  'verdict_mismatch',
  'pending',
] as const;

export function judgeProposal(input: VerdictInput): Verdict {
  if (isSuperseded(input)) return { status: 'rejected', code: 'verdict_superseded' };
  if (isUnbound(input)) return { status: 'rejected', code: 'verdict_unbound' };
  const question = openQuestion(input);
  if (question) return { status: 'question', ...question };
  if (hasOwnFailure(input)) return { status: 'rejected', code: 'verdict_failed' };
  if (hasFreshCompletion(input)) {
    const p = input.proposal;
    if (p.status === 'none') return { status: 'rejected', code: 'no_proposal' };
    if (p.status === 'invalid') return { status: 'rejected', code: p.code };
    if (!proposalFitsEvent(input)) return { status: 'rejected', code: p.proposal.event_key === input.eventKey ? 'proposal_invalid' : 'proposal_other_event' };
    const { decision_id, kind, text, instruction } = p.proposal;
    return {
      status: 'approved',
      decisionId: decision_id,
      kind,
      ...(kind === 'submit' && text !== undefined ? { text } : {}),
      ...(kind === 'intervene' && instruction !== undefined ? { instruction } : {}),
    };
  }
  if (hasMismatchedVerdict(input)) return { status: 'rejected', code: 'verdict_mismatch' };
  return { status: 'pending' };
}
