/**
 * JSON-RPC 2.0 framing and the mapping of answers to values: a result, or a RemoteError whose
 * code names the A2A or control-extension error the remote meant.
 * @module
 */
import { CONTROL_ERROR_CODES } from './control-contract.js';
import { err, ok, remoteError, type RemoteErrorCode, type Result } from './errors.js';
import type { HttpReply } from './http.js';
import { sanitizeRemoteText } from './sanitize.js';

/** Error codes with a meaning of their own; every other code stays `remote_rpc_error`. */
const RPC_ERROR_CODES: ReadonlyMap<number, RemoteErrorCode> = new Map([
  [-32001, 'task_not_found'],
  [CONTROL_ERROR_CODES.leaseHeld, 'lease_held'],
  [CONTROL_ERROR_CODES.leaseStaleEpoch, 'lease_stale_epoch'],
  [CONTROL_ERROR_CODES.leaseNotHeld, 'lease_not_held'],
  [CONTROL_ERROR_CODES.requestIdConflict, 'request_id_conflict'],
  [CONTROL_ERROR_CODES.taskNotAwaitingInput, 'task_not_awaiting_input'],
]);

export const rpcBody = (id: number, method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rpcError(error: unknown, status: number, secrets: readonly string[]): Result<never> | null {
  if (!isRecord(error) || typeof error.code !== 'number' || !Number.isInteger(error.code)) return null;
  const rpcCode = error.code;
  const text = typeof error.message === 'string' ? sanitizeRemoteText(error.message, secrets) : '';
  // A JSON-RPC error is a clear refusal, unless it came with a 5xx: then the server may have
  // failed half-way through applying it.
  const outcome = status >= 500 ? 'ambiguous' : 'rejected';
  const code = RPC_ERROR_CODES.get(rpcCode) ?? 'remote_rpc_error';
  const sentence = text ? `the remote answered JSON-RPC error ${rpcCode}: ${text}` : `the remote answered JSON-RPC error ${rpcCode}`;
  return err(remoteError(code, sentence, outcome, status === 200 ? { rpcCode } : { rpcCode, httpStatus: status }));
}

/** Reads the result of call `id` from an HTTP reply. */
export function readRpcReply(reply: HttpReply, id: number, secrets: readonly string[]): Result<unknown> {
  const { status, body } = reply;
  const envelope = reply.parsed && isRecord(body) ? body : null;
  if (envelope && 'error' in envelope && (envelope.id === id || envelope.id === null || envelope.id === undefined)) {
    const mapped = rpcError(envelope.error, status, secrets);
    if (mapped) return mapped;
  }
  if (status < 200 || status >= 300) {
    return err(
      remoteError('remote_http_status', `the remote answered HTTP ${status}`, status >= 500 ? 'ambiguous' : 'rejected', {
        httpStatus: status,
      }),
    );
  }
  if (!envelope || !('result' in envelope) || envelope.id !== id) {
    return err(remoteError('remote_malformed', 'the remote answer is not a JSON-RPC response to this request', 'ambiguous'));
  }
  return ok(envelope.result);
}
