/**
 * The mutation-intent journal: an intent is written durably before any network I/O; its
 * outcome is recorded once. An intent is never deleted to make room for a retry — while one
 * is open (no outcome) or ambiguous, no other intent can be recorded, so nothing can be
 * re-sent. Only a readback (`applied` / `not_applied`) settles an ambiguous intent. An intent
 * that applies a Reviewer-approved decision consumes that decision id in the same write: the
 * id joins `consumedDecisions` (never forgotten, unlike a trimmed settled intent), and a
 * second intent for a consumed id is refused whatever became of the first. Pure.
 * @module
 */
import {
  SETTLED_INTENT_RETENTION,
  isUnresolved,
  toIso,
  type CampaignDocument,
  type IntentOutcome,
  type MutationAction,
  type MutationIntent,
} from './campaign-document.js';
import { failure, type StoreFailure } from './store-errors.js';

export type JournalErrorCode =
  | 'intent_unresolved'
  | 'intent_duplicate'
  | 'intent_not_found'
  | 'intent_already_settled'
  | 'readback_required'
  /** The draft's decision id was consumed already (applied, refused or in doubt): nothing written. */
  | 'decision_consumed';

export type JournalResult = { ok: true; doc: CampaignDocument } | StoreFailure<JournalErrorCode>;

export interface IntentDraft {
  requestId: string;
  action: MutationAction;
  epoch: number | null;
  payloadDigest: string;
  createdAt: Date | string;
  /** The Reviewer-approved decision this mutation applies (consumed by this write). */
  decisionId?: string;
}

/** The intent that blocks mutation: open (outcome null) or ambiguous. At most one exists. */
export const openIntent = (doc: CampaignDocument): MutationIntent | null => doc.intents.find(isUnresolved) ?? null;

export const findIntent = (doc: CampaignDocument, requestId: string): MutationIntent | null =>
  doc.intents.find((intent) => intent.requestId === requestId) ?? null;

export function recordIntent(doc: CampaignDocument, draft: IntentDraft): JournalResult {
  const { decisionId } = draft;
  // First: a consumed decision is refused for good, while an unresolved intent only blocks for now.
  if (decisionId !== undefined && isConsumed(doc, decisionId)) {
    return failure('decision_consumed', `decision ${decisionId} was already applied, refused or is in doubt; it authorizes nothing more`);
  }
  const blocking = openIntent(doc);
  if (blocking) {
    const state = blocking.outcome === null ? 'open' : 'ambiguous';
    return failure('intent_unresolved', `intent ${blocking.requestId} (${blocking.action}) is ${state}; resolve it first`);
  }
  if (findIntent(doc, draft.requestId)) return failure('intent_duplicate', `requestId ${draft.requestId} is already journaled`);
  const intent: MutationIntent = {
    requestId: draft.requestId,
    action: draft.action,
    epoch: draft.epoch,
    payloadDigest: draft.payloadDigest,
    createdAt: toIso(draft.createdAt),
    outcome: null,
    ...(decisionId !== undefined ? { decisionId } : {}),
  };
  const consumedDecisions = decisionId !== undefined ? [...doc.consumedDecisions, decisionId] : doc.consumedDecisions;
  return { ok: true, doc: { ...doc, intents: trimSettled([...doc.intents, intent]), consumedDecisions } };
}

/** Consumed: recorded as such, or carried by a journaled intent (whatever its outcome). */
const isConsumed = (doc: CampaignDocument, decisionId: string): boolean =>
  doc.consumedDecisions.includes(decisionId) || doc.intents.some((intent) => intent.decisionId === decisionId);

/**
 * Records an outcome. Allowed: open → anything (including `ambiguous` after a timeout or
 * crash); ambiguous → applied / not_applied, only when settled by a readback. Everything else
 * is refused: a settled outcome is history.
 */
export function recordIntentOutcome(doc: CampaignDocument, requestId: string, outcome: Omit<IntentOutcome, 'at'> & { at: Date | string }): JournalResult {
  const index = doc.intents.findIndex((intent) => intent.requestId === requestId);
  const current = doc.intents[index];
  if (!current) return failure('intent_not_found', `no intent ${requestId} in the journal`);
  const next: IntentOutcome = { ...outcome, at: toIso(outcome.at) };
  if (current.outcome !== null) {
    if (current.outcome.status !== 'ambiguous') {
      return failure('intent_already_settled', `intent ${requestId} is already ${current.outcome.status}`);
    }
    const resolvesByReadback = next.settledBy === 'readback' && (next.status === 'applied' || next.status === 'not_applied');
    if (!resolvesByReadback) {
      return failure('readback_required', `ambiguous intent ${requestId} settles only by a readback of applied or not_applied`);
    }
  }
  const intents = doc.intents.slice();
  intents[index] = { ...current, outcome: next };
  return { ok: true, doc: { ...doc, intents } };
}

/**
 * Keeps the journal bounded by dropping the oldest clearly settled intents. Unresolved and
 * ambiguous intents are never dropped, whatever their age.
 */
function trimSettled(intents: MutationIntent[]): MutationIntent[] {
  const settled = intents.filter((intent) => !isUnresolved(intent)).length;
  let excess = settled - SETTLED_INTENT_RETENTION;
  if (excess <= 0) return intents;
  return intents.filter((intent) => {
    if (excess > 0 && !isUnresolved(intent)) {
      excess--;
      return false;
    }
    return true;
  });
}
