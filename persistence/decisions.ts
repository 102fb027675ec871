/**
 * Approved decision ids are consumed durably before their relay, so one approval can never
 * authorize two mutations (not even across a restart). Consumed ids are never forgotten. Pure.
 * @module
 */
import type { CampaignDocument } from './campaign-document.js';
import { failure, type StoreFailure } from './store-errors.js';

export type ConsumeResult = { ok: true; doc: CampaignDocument } | StoreFailure<'decision_already_consumed'>;

export const isDecisionConsumed = (doc: CampaignDocument, decisionId: string): boolean => doc.consumedDecisions.includes(decisionId);

export function consumeDecision(doc: CampaignDocument, decisionId: string): ConsumeResult {
  if (isDecisionConsumed(doc, decisionId)) return failure('decision_already_consumed', `decision ${decisionId} was already consumed`);
  return { ok: true, doc: { ...doc, consumedDecisions: [...doc.consumedDecisions, decisionId] } };
}
