/**
 * Errors are values with stable codes, never strings to parse.
 * @module
 */

export const REMOTE_ERROR_CODES = [
  'remote_timeout',
  'remote_unreachable',
  'remote_http_status',
  'remote_rpc_error',
  'remote_malformed',
  // Well-formed, but not acceptable: another task or context than asked for, an invalid identifier.
  'remote_payload_invalid',
  'remote_too_large',
  'remote_redirect_refused',
  'remote_auth_failed',
  'task_not_found',
  'unsupported_capability',
  'lease_held',
  'lease_stale_epoch',
  'lease_not_held',
  'request_id_conflict',
  // A fenced reply reached a task that is not waiting for input (control extension -32055).
  'task_not_awaiting_input',
  // The configured base URL was refused before any I/O (userinfo, token-like query, embedded token).
  'remote_url_rejected',
  // An argument was refused before any I/O (empty task id, TTL out of bounds).
  'invalid_request',
  // Refused before any I/O: this process no longer holds the right to host its campaigns.
  'not_owner',
] as const;
export type RemoteErrorCode = (typeof REMOTE_ERROR_CODES)[number];

/**
 * Whether a failed request may have taken effect on the remote. A mutation whose failure is
 * `ambiguous` must never be re-sent; only a readback by request id can settle it.
 * - `not_sent`: the request never left (connect refused, DNS, capability refused locally).
 * - `rejected`: the remote answered clearly that it did not apply it (JSON-RPC error, 4xx).
 * - `ambiguous`: the request may have been applied (timeout after send, reset, 5xx, garbled answer).
 */
export type SendOutcome = 'not_sent' | 'rejected' | 'ambiguous';

export interface RemoteError {
  readonly code: RemoteErrorCode;
  /** One sanitized sentence; never contains a credential or the raw remote body. */
  readonly message: string;
  readonly outcome: SendOutcome;
  readonly httpStatus?: number;
  readonly rpcCode?: number;
}

export type Result<T, E = RemoteError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** Builds a RemoteError; optional fields are omitted rather than set to undefined. */
export function remoteError(
  code: RemoteErrorCode,
  message: string,
  outcome: SendOutcome,
  extra: { httpStatus?: number; rpcCode?: number } = {},
): RemoteError {
  const error: { -readonly [K in keyof RemoteError]: RemoteError[K] } = { code, message, outcome };
  if (extra.httpStatus !== undefined) error.httpStatus = extra.httpStatus;
  if (extra.rpcCode !== undefined) error.rpcCode = extra.rpcCode;
  return error;
}

/** A failure refused locally: nothing left this process, so it is always safe to retry. */
export const refusedLocally = (code: RemoteErrorCode, message: string): Result<never> =>
  err(remoteError(code, message, 'not_sent'));
