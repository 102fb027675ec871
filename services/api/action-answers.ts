/**
 * How an operator action's outcome becomes its answer: the mutation answers from what the
 * chart emitted (INTENT_SETTLED, MUTATION_REFUSED, INTENT_AMBIGUOUS), a failed read's
 * `read_failed`, the body of each mutation, and the representative body `allowed_actions`
 * asks the chart about. Plain functions of data: no I/O, no rule decided here.
 * @module
 */
import type { CampaignEmitted, Mutation } from '../../machines/campaign.types.js';
import { remoteRefusalCode } from '../authority/mutation-wire.js';
import type { CampaignSnapshot } from '../campaign/facts.js';
import { apiError, type ApiErrorCode } from '../contract/api-errors.js';
import type { CampaignActionBody } from './api-schemas.js';
import type { CampaignSummary } from './read-model.js';
import { refusalResult } from './refusals.js';
import type { ApiResult } from './supervisor-api.js';

type Action = CampaignActionBody['action'];

export const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
export const fail = (code: ApiErrorCode, message: string): ApiResult<never> => ({ ok: false, error: apiError(code, message) });
export const find = <T extends CampaignEmitted['type']>(emitted: CampaignEmitted[], type: T) =>
  emitted.filter((e): e is Extract<CampaignEmitted, { type: T }> => e.type === type).at(-1) ?? null;

/** `observe` whose status read failed: `read_failed` (HTTP 502), the remote's code in `read_code`. */
export function readFailed(code: string): ApiResult<never> {
  return { ok: false, error: { ...apiError('read_failed', `The remote status read failed (${code}); it counts toward the read back-off.`), read_code: code } };
}

export function mutationAnswer(e: CampaignEmitted[], kind: Mutation['kind'], campaign: CampaignSummary): ApiResult<unknown> {
  const refused = find(e, 'MUTATION_REFUSED');
  const settled = find(e, 'INTENT_SETTLED');
  if (settled?.status === 'applied') {
    return ok({ campaign, request_id: settled.requestId, outcome: 'applied', ...(settled.taskId ? { task_id: settled.taskId } : {}) });
  }
  if (settled?.status === 'rejected' || settled?.status === 'not_applied') {
    if (settled.code === 'readback_stale') return refusalResult('readback_stale');
    return fail(remoteRefusalCode(settled.code ?? undefined), `The remote refused the ${kind} (${settled.code ?? 'rejected'}); nothing was applied.`);
  }
  if (settled?.status === 'ambiguous' || find(e, 'INTENT_AMBIGUOUS')) {
    return fail('mutation_in_doubt', `The ${kind} may or may not have been applied; it will not be re-sent. Use resolve_intent.`);
  }
  if (refused) {
    if (refused.code.startsWith('remote_')) return fail('remote_unavailable', `The lease could not be read back (${refused.code}); nothing was sent.`);
    // The chart's journalIntent onError: the store could not write the intent (a server error, 503).
    if (!refused.journaled && refused.code === 'storage_unavailable') return fail('storage_unavailable', 'The intent could not be journaled in the state storage; nothing was sent. Try again later.');
    return refusalResult(refused.code);
  }
  return fail('mutation_in_doubt', `The ${kind} outcome is not known; it will not be re-sent. Use resolve_intent.`);
}

/** An answer as plain data: its lazy `allowed_actions` evaluated now, once. */
export const plain = <T>(answer: ApiResult<T>): ApiResult<T> => JSON.parse(JSON.stringify(answer)) as ApiResult<T>;

export const isMutation = (action: Action): action is 'release' | 'submit' | 'intervene' | 'cancel' =>
  action === 'release' || action === 'submit' || action === 'intervene' || action === 'cancel';

export function mutationOf(req: CampaignActionBody): Mutation {
  switch (req.action) {
    case 'submit':
      return { kind: 'submit', text: req.text };
    case 'intervene':
      return { kind: 'intervene', instruction: req.instruction };
    case 'cancel':
      return { kind: 'cancel', reason: req.reason };
    default:
      return { kind: 'release' };
  }
}

/** A body standing for "this action, done right" (the epoch we hold, a placeholder text). */
export function representative(action: Action, snapshot: CampaignSnapshot): CampaignActionBody {
  const campaign_id = snapshot.context.campaignId;
  const epoch = snapshot.context.lease?.epoch ?? 0;
  switch (action) {
    case 'answer':
      return { campaign_id, action, text: 'answer' };
    case 'release':
      return { campaign_id, action, epoch };
    case 'submit':
      return { campaign_id, action, epoch, text: 'attempt' };
    case 'intervene':
      return { campaign_id, action, epoch, instruction: 'instruction' };
    case 'cancel':
      return { campaign_id, action, epoch, reason: 'reason' };
    default:
      return { campaign_id, action } as CampaignActionBody;
  }
}
