/**
 * Machine refusal codes (from `explainRefusal`) as operator errors: the rule's own code (the
 * issue: "409 and the guard's code", so a client can tell a paused campaign from a missing
 * question) and one sentence each, shared by every action so the wording never disagrees.
 * @module
 */
import { apiError, type ApiErrorCode } from '../contract/api-errors.js';
import type { ApiResult } from './supervisor-api.js';

const fail = (code: ApiErrorCode, message: string): ApiResult<never> => ({ ok: false, error: apiError(code, message) });

/** The one table of machine refusal codes → operator error (code + one sentence). */
export function refusalResult(code: string, action?: string): ApiResult<never> {
  // An answer to the remote's own question is a fenced mutation of the remote task.
  if (action === 'answer' && code === 'lease_required') {
    return fail('lease_required', 'Answering the remote\u2019s own question sends a message to its task, a fenced mutation: claim the controller lease first. Nothing was sent.');
  }
  const table: Record<string, [ApiErrorCode, string]> = {
    lease_required: ['lease_required', 'The campaign does not hold the controller lease; claim it first.'],
    already_controlling: ['already_controlling', 'The campaign already holds the controller lease.'],
    lease_stale_epoch: ['lease_stale_epoch', 'The epoch does not match the lease this campaign holds; nothing was sent.'],
    lease_not_held: ['lease_not_held', 'The remote readback does not show this controller holding the lease; nothing was sent.'],
    readback_stale: ['readback_stale', 'The lease readback is not fresh; nothing was sent.'],
    unsupported_capability: ['unsupported_capability', 'The remote does not advertise this action with an epoch-fenced lease; nothing was sent.'],
    attempt_limit_reached: ['attempt_limit_reached', 'The campaign has used all of its max_attempts; nothing was sent.'],
    attempt_running: ['attempt_running', 'The current remote attempt has not finished; cancel it (and observe) before submitting. Nothing was sent.'],
    mutation_in_progress: ['mutation_in_progress', 'Another mutation of this campaign is in flight; nothing was sent. Retry when it has answered.'],
    intent_unresolved: ['intent_unresolved', 'A mutation is in doubt; resolve_intent must settle it first. Nothing was sent.'],
    intent_not_found: ['intent_not_found', 'The campaign has no mutation in doubt.'],
    approval_required: ['approval_required', 'The mutation lacks an explicit operator action or a fresh Reviewer verdict.'],
    review_stale: ['review_stale', 'The Reviewer verdict is for an older event.'],
    ttl_out_of_bounds: ['ttl_out_of_bounds', 'ttl_seconds must be from 60 to 3600.'],
    effect_in_flight: ['effect_in_flight', 'Another remote operation is in flight for this campaign.'],
    campaign_paused: ['campaign_paused', 'The campaign is paused; resume it first.'],
    campaign_closed: ['campaign_closed', 'The campaign is closed.'],
    not_paused: ['not_paused', 'The campaign is not paused.'],
    no_pending_question: ['no_pending_question', 'The campaign has no pending question to answer.'],
    question_stale: ['question_stale', 'That question is no longer pending.'],
    ttl_below_heartbeat: ['ttl_below_heartbeat', 'ttl_seconds must be at least two heartbeats so the heartbeat can renew the lease in time.'],
    remote_unavailable: ['remote_unavailable', 'The remote has not been discovered yet; nothing was sent.'],
    release_before_close: ['release_before_close', 'The campaign holds the controller lease; release it before closing.'],
    no_remote_task: ['no_remote_task', 'The campaign has no remote task or context to act on.'],
    lease_held: ['lease_held', 'Another campaign of this supervisor already controls this remote context; release it there first.'],
    no_task_bound: ['no_task_bound', 'The campaign has no remote task to observe yet.'],
    argus_unavailable: ['argus_unavailable', 'Argus cannot run here, or the campaign has no live mission binding (see /health and the `mission` action).'],
    decision_in_progress: ['decision_in_progress', 'A decision is in progress for this campaign; try again when it has settled.'],
    decision_consumed: ['action_not_allowed', 'That Argus decision was applied (or is in doubt) already; it is never applied twice.'],
  };
  const [apiCode, sentence] = table[code] ?? ['action_not_allowed', `The campaign cannot do that now (${code}).`];
  return fail(apiCode, sentence);
}

