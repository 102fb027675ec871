/**
 * Reading one document from disk, through lowdb (`document-db.ts`), and classifying the result.
 * No locks, no reports: reads need no lock because every write is an atomic rename, so a
 * reader sees old or new bytes.
 * @module
 */
import { documentDb, documentSyncDb, type DocumentDb, type DocumentSyncDb, type MachineVersionCheck } from './document-db.js';
import type { CampaignDocument } from './campaign-document.js';
import type { DurableJsonFile } from './durable-json-adapter.js';
import { failure, ioFailure, isPersistenceError, type StoreFailure } from './store-errors.js';

export type FailClosedCode = 'document_corrupt' | 'document_version_unknown' | 'machine_version_unknown';

export type DocumentRead =
  /** `migratedFrom`: the file holds an older schema, migrated in memory (the next write stores v2). */
  | { ok: true; doc: CampaignDocument; migratedFrom?: 1 }
  | StoreFailure<FailClosedCode>
  | StoreFailure<'campaign_not_found' | 'io_failed'>;

const FAIL_CLOSED = new Set<string>(['document_corrupt', 'document_version_unknown', 'machine_version_unknown']);

/**
 * @param machineVersionKnown the statechart's own check (the store does not know the chart): a
 *   snapshot of another version would restore into the wrong rules, so it fails closed here,
 *   at every read, exactly like a corrupt document (reported, never rewritten).
 */
export function readDocument(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: MachineVersionCheck): Promise<DocumentRead> {
  return readInto(documentDb(file, id, machineVersionKnown), id);
}

/** `Low.read()` into `db`, as a value: `db.data` holds the document when it is `ok`. */
export async function readInto(db: DocumentDb, id: string): Promise<DocumentRead> {
  try {
    await db.read();
  } catch (error) {
    return readFailure(error);
  }
  return readResult(db, id);
}

/** `readDocument` without the thread pool (the boot's bulk load); undefined when the fs cannot. */
export function readDocumentSync(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: MachineVersionCheck): DocumentRead | undefined {
  const db = documentSyncDb(file, id, machineVersionKnown);
  if (!db) return undefined;
  try {
    db.read();
  } catch (error) {
    return readFailure(error);
  }
  return readResult(db, id);
}

function readResult(db: DocumentDb | DocumentSyncDb, id: string): DocumentRead {
  if (db.data === null) return failure('campaign_not_found', `no campaign ${id}`);
  const migratedFrom = db.adapter.note.migratedFrom;
  return migratedFrom ? { ok: true, doc: db.data, migratedFrom } : { ok: true, doc: db.data };
}

function readFailure(error: unknown): DocumentRead {
  if (isPersistenceError(error) && FAIL_CLOSED.has(error.code)) return failure(error.code as FailClosedCode, error.message);
  return ioFailure(error);
}

export const isFailClosed = (read: DocumentRead): read is StoreFailure<FailClosedCode> =>
  !read.ok && (read.code === 'document_corrupt' || read.code === 'document_version_unknown' || read.code === 'machine_version_unknown');
