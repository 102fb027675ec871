/**
 * Reading one document from disk and classifying the result. No locks, no reports: reads
 * need no lock because every write is an atomic rename, so a reader sees old or new bytes.
 * @module
 */
import { parseCampaignDocument, type CampaignDocument } from './campaign-document.js';
import type { DurableJsonFile } from './durable-json-adapter.js';
import { describeError, failure, isPersistenceError, type StoreFailure } from './store-errors.js';

export type FailClosedCode = 'document_corrupt' | 'document_version_unknown';

export type DocumentRead =
  | { ok: true; doc: CampaignDocument }
  | StoreFailure<FailClosedCode>
  | StoreFailure<'campaign_not_found' | 'io_failed'>;

export async function readDocument(file: DurableJsonFile<unknown>, id: string): Promise<DocumentRead> {
  let raw: unknown;
  try {
    raw = await file.read();
  } catch (error) {
    if (isPersistenceError(error) && error.code === 'document_corrupt') return failure('document_corrupt', error.message);
    return failure('io_failed', describeError(error));
  }
  if (raw === null) return failure('campaign_not_found', `no campaign ${id}`);
  return parseCampaignDocument(raw, id);
}

export const isFailClosed = (read: DocumentRead): read is StoreFailure<FailClosedCode> =>
  !read.ok && (read.code === 'document_corrupt' || read.code === 'document_version_unknown');
