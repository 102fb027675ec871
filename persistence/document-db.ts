/**
 * Each campaign document is read and written through lowdb: a `Low<CampaignDocument | null>`
 * over the durable adapter (`DurableJsonFile`: fsync, rename, folder fsync). The adapter below
 * is the document's own lowdb `Adapter`: its `read()` classifies the bytes (JSON, schema,
 * document and machine versions) and rejects with the fail-closed code, so a corrupt document
 * can never pass for a missing one (`Low.read()` keeps its default, null, only for a missing
 * file). A `Low` is made for one operation and dropped: the store keeps none per campaign
 * (docs/decisions.md, "lowdb: what it does here").
 * @module
 */
import { Low, LowSync, type Adapter, type SyncAdapter } from 'lowdb';
import { parseCampaignDocument, type CampaignDocument } from './campaign-document.js';
import { parseJsonDocument, type DurableJsonFile } from './durable-json-adapter.js';
import { PersistenceError } from './store-errors.js';
import path from 'node:path';

export type MachineVersionCheck = (version: string) => boolean;

/** What one read found, beyond the document lowdb holds: whether it was migrated in memory. */
interface ReadNote {
  migratedFrom?: 1;
}

/** The bytes → a valid current document, or a thrown fail-closed `PersistenceError`. */
function classify(text: string, file: DurableJsonFile<unknown>, id: string, machineVersionKnown: MachineVersionCheck | undefined, note: ReadNote): CampaignDocument {
  const parsed = parseCampaignDocument(parseJsonDocument(text, path.basename(file.file)), id);
  const version = parsed.ok ? parsed.doc.machine?.version : undefined;
  if (version !== undefined && machineVersionKnown && !machineVersionKnown(version)) {
    throw new PersistenceError('machine_version_unknown', `machine version ${JSON.stringify(version).slice(0, 60)} is not known to this build`);
  }
  if (!parsed.ok) throw new PersistenceError(parsed.code, parsed.reason);
  if (parsed.migratedFrom) note.migratedFrom = parsed.migratedFrom;
  return parsed.doc;
}

export class CampaignDocumentAdapter implements Adapter<CampaignDocument | null> {
  readonly note: ReadNote = {};

  constructor(
    readonly file: DurableJsonFile<unknown>,
    private readonly id: string,
    private readonly machineVersionKnown?: MachineVersionCheck,
  ) {}

  async read(): Promise<CampaignDocument | null> {
    const text = await this.file.readText();
    return text === null ? null : classify(text, this.file, this.id, this.machineVersionKnown, this.note);
  }

  async write(doc: CampaignDocument | null): Promise<void> {
    if (doc) await this.file.write(doc);
  }
}

/**
 * The boot's bulk load reads synchronously (see `DurableFs.readFileSync`) through `LowSync`.
 * It only reads: every write goes through the async `Low`, under the campaign's lock.
 */
class CampaignDocumentSyncReader implements SyncAdapter<CampaignDocument | null> {
  readonly note: ReadNote = {};

  constructor(
    private readonly file: DurableJsonFile<unknown>,
    private readonly id: string,
    private readonly machineVersionKnown?: MachineVersionCheck,
  ) {}

  read(): CampaignDocument | null {
    const text = this.file.readTextSync();
    return text === null || text === undefined ? null : classify(text, this.file, this.id, this.machineVersionKnown, this.note);
  }

  write(): void {
    throw new Error('the boot reader never writes; writes go through the store under the campaign lock');
  }
}

export type DocumentDb = Low<CampaignDocument | null> & { adapter: CampaignDocumentAdapter };

export function documentDb(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: MachineVersionCheck): DocumentDb {
  return new Low<CampaignDocument | null>(new CampaignDocumentAdapter(file, id, machineVersionKnown), null) as DocumentDb;
}

export type DocumentSyncDb = LowSync<CampaignDocument | null> & { adapter: CampaignDocumentSyncReader };

/** Null when this file system has no synchronous read. */
export function documentSyncDb(file: DurableJsonFile<unknown>, id: string, machineVersionKnown?: MachineVersionCheck): DocumentSyncDb | null {
  if (!file.canReadSync) return null;
  return new LowSync<CampaignDocument | null>(new CampaignDocumentSyncReader(file, id, machineVersionKnown), null) as DocumentSyncDb;
}
