/**
 * Operator-facing rejections: one stable code and one sentence each. The server maps codes to
 * HTTP statuses; a plugin host gets the same values from the library.
 * @module
 */

export const API_ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  /** A page-session request that changes something came without its X-CSRF-Token header. */
  csrf_required: 403,
  /** The X-CSRF-Token header does not match the session's token. */
  csrf_invalid: 403,
  campaign_not_found: 404,
  campaign_exists: 409,
  campaign_corrupt: 409,
  campaign_closed: 409,
  /** A refusal no rule names (a chart/table gap); every rule's refusal carries its own code below. */
  action_not_allowed: 409,
  // The chart's rule codes (machines/campaign.rules.ts) and observe's, answered as themselves.
  already_controlling: 409,
  approval_required: 409,
  review_stale: 409,
  effect_in_flight: 409,
  campaign_paused: 409,
  not_paused: 409,
  no_pending_question: 409,
  question_stale: 409,
  release_before_close: 409,
  no_remote_task: 409,
  no_task_bound: 409,
  ttl_out_of_bounds: 409,
  ttl_below_heartbeat: 409,
  lease_required: 409,
  lease_stale_epoch: 409,
  lease_held: 409,
  lease_not_held: 409,
  readback_stale: 409,
  attempt_limit_reached: 409,
  /** The bound remote task has not reached a terminal state: cancel it first. */
  attempt_running: 409,
  /** Another mutation of this campaign (or a request with the same Idempotency-Key) is in flight. */
  mutation_in_progress: 409,
  /** The Idempotency-Key was first used with another request. */
  idempotency_key_reused: 422,
  intent_unresolved: 409,
  intent_not_found: 409,
  unsupported_capability: 409,
  remote_not_configured: 503,
  remote_unavailable: 503,
  remote_task_not_found: 404,
  remote_payload_invalid: 502,
  /** `observe`: the remote status read failed; `read_code` names the remote's code (docs/api.md#remote-error-codes). */
  read_failed: 502,
  remote_rejected: 409,
  mutation_in_doubt: 502,
  supervisor_disabled: 503,
  /** The state root could not be read or written (ENOSPC, EIO, EACCES, EROFS, ...); data is intact. */
  storage_unavailable: 503,
  /** Argus cannot run here (no backend, no runtime) or the campaign has no live mission binding. */
  argus_unavailable: 503,
  /** A decision boundary (an Argus turn, a Foreman assessment, a bind) is in flight. */
  decision_in_progress: 409,
  /** Argus could not create or re-attach the campaign's project. */
  mission_bind_failed: 502,
  /** Another process took over the right to host this campaign; this one refuses every write. */
  hosting_lost: 503,
  /** This process lost the right to host (taken over, renewal failed): it refuses every campaign call. */
  not_owner: 503,
  /** Replicas on PostgreSQL: another replica hosts this campaign (or who does could not be read). */
  owner_unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ApiError {
  code: ApiErrorCode;
  message: string;
  /** `read_failed` only: the status read's own code (a remote error code, e.g. `remote_unreachable`). */
  read_code?: string;
}

export const apiError = (code: ApiErrorCode, message: string): ApiError => ({ code, message });

/**
 * Thrown from deep inside an operation (a store write that failed for an I/O reason, a
 * document found corrupt) and turned back into an answer at the API edge, so every caller
 * of `commit` need not thread the failure through by hand.
 */
export class ApiFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}
