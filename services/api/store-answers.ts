/**
 * A store failure that is not about the request itself, as the answer it means: a document
 * that fails closed (`campaign_corrupt`, reported, never replaced), storage that cannot be used
 * (`storage_unavailable`, 503), or a right to host that another process took (`hosting_lost`).
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import { ApiFailure, apiError } from '../contract/api-errors.js';

export const FAIL_CLOSED_CODES: ReadonlySet<string> = new Set(['document_corrupt', 'document_version_unknown', 'machine_version_unknown']);

/** @throws ApiFailure always: callers use it as `never`. */
export function throwStoreFailure(logger: Logger, campaignId: string, failed: StoreFailure<string>): never {
  if (FAIL_CLOSED_CODES.has(failed.code)) {
    throw new ApiFailure(apiError('campaign_corrupt', `The campaign document failed closed (${failed.code}); it is reported, never replaced.`));
  }
  if (failed.code === 'fence_stale') {
    logger.error({ campaignId, code: 'hosting_lost', reason: failed.reason }, 'write refused: this process no longer holds the right to host the campaign');
    throw new ApiFailure(apiError('hosting_lost', 'This supervisor no longer holds the right to host the campaign (another process took it over), so nothing was changed.'));
  }
  // The errno names the failure; the reason (paths) stays out of the answer.
  logger.error({ campaignId, code: 'storage_unavailable', store: failed.code, errno: failed.errno ?? null }, 'campaign storage failed');
  throw new ApiFailure(apiError('storage_unavailable', 'The supervisor could not use its state storage, so nothing was changed; try again later.'));
}
