/**
 * What a transaction may never do to a campaign document, checked by the store on every
 * write (so a bug in any caller fails closed instead of corrupting history): change the
 * campaign's identity, move a monotonic counter backwards (the snapshot's attempt count
 * included), forget a consumed decision, or drop or rewrite a journaled intent other than as
 * `intent-journal.ts` allows. Pure.
 * @module
 */
import { campaignDocumentSchema, isUnresolved, summarizeIssues, type CampaignDocument, type MutationIntent } from './campaign-document.js';
import { describeError, failure, type StoreFailure } from './store-errors.js';

export type TransitionResult = { ok: true } | StoreFailure<'document_regression'>;

export type ProposalResult = { ok: true; doc: CampaignDocument | null } | StoreFailure<'transaction_failed' | 'document_invalid' | 'document_regression'>;

/**
 * What every store does with a transaction before it writes (the file store and PostgreSQL
 * alike): the function gets its own copy, so an in-place edit cannot hide a regression from the
 * check; its result must be a valid document and a lawful transition from `prev`. `doc: null`:
 * the function chose to write nothing.
 */
export function proposeTransaction(prev: CampaignDocument, fn: (doc: CampaignDocument) => CampaignDocument | null): ProposalResult {
  let proposed: CampaignDocument | null;
  try {
    proposed = fn(structuredClone(prev));
  } catch (error) {
    return failure('transaction_failed', describeError(error));
  }
  if (proposed === null) return { ok: true, doc: null };
  const parsed = campaignDocumentSchema.safeParse(proposed);
  if (!parsed.success) return failure('document_invalid', summarizeIssues(parsed.error));
  const transition = checkDocumentTransition(prev, parsed.data);
  return transition.ok ? { ok: true, doc: parsed.data } : transition;
}

export function checkDocumentTransition(prev: CampaignDocument, next: CampaignDocument): TransitionResult {
  const problem = findRegression(prev, next);
  return problem === null ? { ok: true } : failure('document_regression', problem);
}

function findRegression(prev: CampaignDocument, next: CampaignDocument): string | null {
  if (next.campaignId !== prev.campaignId) return 'campaignId cannot change';
  if (next.createdAt !== prev.createdAt) return 'createdAt cannot change';
  if (next.outbox.nextSeq < prev.outbox.nextSeq) return `outbox.nextSeq went back from ${prev.outbox.nextSeq} to ${next.outbox.nextSeq}`;
  if (next.wake.totals.argus < prev.wake.totals.argus || next.wake.totals.foreman < prev.wake.totals.foreman) {
    return 'wake totals cannot decrease';
  }
  const attempts = { prev: attemptsSubmitted(prev), next: attemptsSubmitted(next) };
  if (attempts.prev !== null && attempts.next !== null && attempts.next < attempts.prev) return 'attemptsSubmitted cannot decrease';
  const consumed = new Set(next.consumedDecisions);
  const forgotten = prev.consumedDecisions.find((id) => !consumed.has(id));
  if (forgotten !== undefined) return `consumed decision ${forgotten} cannot be forgotten`;
  return findIntentRegression(prev.intents, next.intents);
}

function findIntentRegression(prevIntents: MutationIntent[], nextIntents: MutationIntent[]): string | null {
  const byId = new Map(nextIntents.map((intent) => [intent.requestId, intent]));
  for (const before of prevIntents) {
    const after = byId.get(before.requestId);
    if (!after) {
      if (isUnresolved(before)) return `unresolved intent ${before.requestId} cannot be dropped`;
      continue; // retention trimming of a clearly settled intent
    }
    if (
      after.action !== before.action ||
      after.epoch !== before.epoch ||
      after.payloadDigest !== before.payloadDigest ||
      after.createdAt !== before.createdAt ||
      after.decisionId !== before.decisionId
    ) {
      return `intent ${before.requestId} cannot be rewritten`;
    }
    if (before.outcome === null) continue;
    if (sameOutcome(before, after)) continue;
    const resolvedByReadback =
      before.outcome.status === 'ambiguous' &&
      after.outcome?.settledBy === 'readback' &&
      (after.outcome.status === 'applied' || after.outcome.status === 'not_applied');
    if (!resolvedByReadback) return `settled outcome of intent ${before.requestId} cannot change`;
  }
  return null;
}

/**
 * The attempt counter lives in the snapshot's context (v2: the one truth), which is otherwise
 * opaque here. The store still refuses a write that lowers it: a lower count would let the
 * chart start an attempt beyond `maxAttempts`. Null when the snapshot carries none (a snapshot
 * without a context does not restore at all: the chart's version check refuses it).
 */
function attemptsSubmitted(doc: CampaignDocument): number | null {
  const snapshot = doc.machine.snapshot as { context?: { attemptsSubmitted?: unknown } } | null;
  const count = typeof snapshot === 'object' && snapshot !== null ? snapshot.context?.attemptsSubmitted : undefined;
  return typeof count === 'number' ? count : null;
}

const sameOutcome = (a: MutationIntent, b: MutationIntent): boolean =>
  a.outcome?.status === b.outcome?.status &&
  a.outcome?.code === b.outcome?.code &&
  a.outcome?.at === b.outcome?.at &&
  a.outcome?.settledBy === b.outcome?.settledBy;
