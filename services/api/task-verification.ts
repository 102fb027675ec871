/**
 * Create verifies the task it attaches: one read, and a refusal (nothing stored) when the remote
 * does not have the task, cannot be reached, or answers with something that is not that task.
 * @module
 */
import type { RemoteError } from '../../adapters/a2a/errors.js';
import { apiError, type ApiError } from '../contract/api-errors.js';

/** The operator-facing refusal for a failed verifying read. */
export function createReadRefusal(error: RemoteError): ApiError {
  if (error.code === 'task_not_found') return apiError('remote_task_not_found', 'The remote has no task with that id; nothing was stored.');
  if (error.code === 'remote_payload_invalid' || error.code === 'remote_malformed') {
    return apiError('remote_payload_invalid', `The remote answered the task read with an invalid payload (${error.code}); nothing was stored.`);
  }
  return apiError('remote_unavailable', `The remote task could not be read (${error.code}); nothing was stored.`);
}
