/**
 * Reading one document from disk and classifying the result. No locks, no reports: reads
 * need no lock because every write is an atomic rename, so a reader sees old or new bytes.
 * @module
 */
import path from 'node:path';
import { parseCampaignDocument, type CampaignDocument } from './campaign-document.js';
import { parseJsonDocument, type DurableJsonFile } from './durable-json-adapter.js';
import { failure, ioFailure, isPersistenceError, type StoreFailure } from './store-errors.js';

export type FailClosedCode = 'document_corrupt' | 'document_version_unknown' | 'machine_version_unknown';

export type DocumentRead =
  /** `migratedFrom`: the file holds an older schema, migrated in memory (the next write stores v2). */
  | { ok: true; doc: CampaignDocument; migratedFrom?: 1 }
  | StoreFailure<FailClosedCode>
  | StoreFailure<'campaign_not_found' | 'io_failed'>;

/**
 * @param machineVersionKnown the statechart's own check (the store does not know the chart): a
 *   snapshot of another version would restore into the wrong rules, so it fails closed here,
 *   at every read, exactly like a corrupt document (reported, never rewritten).
 */
export async function readDocument(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: (version: string) => boolean): Promise<DocumentRead> {
  let text: string | null;
  try {
    text = await file.readText();
  } catch (error) {
    return ioFailure(error);
  }
  return classifyDocument(text, file, id, machineVersionKnown);
}

/** `readDocument` without the thread pool (the boot's bulk load); undefined when the fs cannot. */
export function readDocumentSync(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: (version: string) => boolean): DocumentRead | undefined {
  let text: string | null | undefined;
  try {
    text = file.readTextSync();
  } catch (error) {
    return ioFailure(error);
  }
  return text === undefined ? undefined : classifyDocument(text, file, id, machineVersionKnown);
}

function classifyDocument(text: string | null, file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: (version: string) => boolean): DocumentRead {
  if (text === null) return failure('campaign_not_found', `no campaign ${id}`);
  let raw: unknown;
  try {
    raw = parseJsonDocument(text, path.basename(file.file));
  } catch (error) {
    if (isPersistenceError(error) && error.code === 'document_corrupt') return failure('document_corrupt', error.message);
    return ioFailure(error);
  }
  const parsed = parseCampaignDocument(raw, id);
  const version = parsed.ok ? parsed.doc.machine?.version : undefined;
  if (version !== undefined && machineVersionKnown && !machineVersionKnown(version)) {
    return failure('machine_version_unknown', `machine version ${JSON.stringify(version).slice(0, 60)} is not known to this build`);
  }
  return parsed;
}

export const isFailClosed = (read: DocumentRead): read is StoreFailure<FailClosedCode> =>
  !read.ok && (read.code === 'document_corrupt' || read.code === 'document_version_unknown' || read.code === 'machine_version_unknown');
