/**
 * Rejections are values. The services ask `snapshot.can(event)` before sending an operator
 * event; when the answer is no, `explainRefusal` names the first rule that failed, using the
 * same predicates as the guards, so the code always matches what the chart did.
 * @module
 */
import type { SnapshotFrom } from 'xstate';
import type { CampaignMachine } from './campaign.machine.js';
import { MUTATION_RULES } from './campaign.guards.js';
import { LEASE_TTL_BOUNDS, type CampaignEvent, type MutateEvent } from './campaign.types.js';

export const REFUSAL_CODES = [
  'campaign_closed',
  'campaign_paused',
  'effect_in_flight',
  'lease_required',
  'already_controlling',
  'ttl_out_of_bounds',
  'intent_unresolved',
  'intent_not_found',
  'no_pending_question',
  'question_stale',
  'review_stale',
  'not_paused',
  'action_not_allowed',
  ...MUTATION_RULES.map((rule) => rule.code),
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

type CampaignSnapshot = SnapshotFrom<CampaignMachine>;

const AUTH = 'active.authority';
const inState = (snapshot: CampaignSnapshot, path: string): boolean => snapshot.matches(toValue(path) as never);

/** 'active.authority.controlling' → { active: { authority: 'controlling' } } */
function toValue(path: string): unknown {
  const parts = path.split('.');
  return parts.reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);
}

/**
 * @returns null when the machine accepts the event, else the stable code of the first rule
 *   it breaks.
 * @example
 *   const code = explainRefusal(actor.getSnapshot(), event);
 *   if (code) return apiError(code, ...); else actor.send(event);
 */
export function explainRefusal(snapshot: CampaignSnapshot, event: CampaignEvent): RefusalCode | null {
  if (snapshot.can(event)) return null;
  if (snapshot.status === 'done') return 'campaign_closed';
  if (snapshot.matches('paused')) return event.type === 'RESUME' ? 'action_not_allowed' : 'campaign_paused';
  if (event.type === 'RESUME') return 'not_paused';
  if (snapshot.hasTag('effect-in-flight') && (event.type === 'PAUSE' || event.type === 'CLOSE' || inState(snapshot, `${AUTH}.controlling`))) {
    return 'effect_in_flight';
  }
  const ctx = snapshot.context;
  switch (event.type) {
    case 'MUTATE': {
      // Whatever state the campaign is in, a concurrent request is told only that (no I/O).
      const concurrent = refuseConcurrentMutation(event);
      if (concurrent) return concurrent;
      if (inState(snapshot, `${AUTH}.ambiguous-intent`)) return 'intent_unresolved';
      if (!inState(snapshot, `${AUTH}.controlling`)) return 'lease_required';
      const broken = MUTATION_RULES.find((rule) => !rule.holds(ctx, event));
      // An approving verdict for another (older) event is stale, not missing.
      if (broken?.guard === 'approvalValid' && event.approval.kind === 'review' && event.approval.verdict === 'approved') return 'review_stale';
      return broken?.code ?? 'action_not_allowed';
    }
    case 'OPERATOR_CLAIM': {
      if (inState(snapshot, `${AUTH}.controlling`)) return 'already_controlling';
      if (inState(snapshot, `${AUTH}.claiming`)) return 'effect_in_flight';
      if (ctx.pendingIntent !== null) return 'intent_unresolved';
      const ttlOk = Number.isInteger(event.ttlSeconds) && event.ttlSeconds >= LEASE_TTL_BOUNDS.min && event.ttlSeconds <= LEASE_TTL_BOUNDS.max;
      return ttlOk ? 'action_not_allowed' : 'ttl_out_of_bounds';
    }
    case 'RESOLVE_INTENT':
      return inState(snapshot, `${AUTH}.ambiguous-intent`) ? 'effect_in_flight' : 'intent_not_found';
    case 'OPERATOR_ANSWER':
      return ctx.pendingQuestion === null ? 'no_pending_question' : 'question_stale';
    default:
      return 'action_not_allowed';
  }
}

const inFlightRule = MUTATION_RULES.find((rule) => rule.guard === 'noMutationInFlight')!;

/**
 * The one mutation rule decidable from the event alone, so the services can refuse a
 * concurrent mutation before loading anything: the chart's `noMutationInFlight` guard.
 */
export function refuseConcurrentMutation(event: Pick<MutateEvent, 'mutationInFlight'>): RefusalCode | null {
  return event.mutationInFlight ? inFlightRule.code : null;
}
