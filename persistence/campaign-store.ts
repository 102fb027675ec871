/**
 * The campaign store: one durable JSON document per campaign (see `store-layout.ts`).
 *
 * - Reads take no lock (writes are atomic renames) and fail closed: a corrupt or
 *   unknown-version document is returned as such, reported once, and never rewritten.
 * - `transact` is the only way to change a document: per-campaign in-process queue, then the
 *   cross-process lock, then a re-read under the lock, then `fn`, validation, the
 *   no-regression check, a durable write (fsync file + folder) and release.
 *
 * @example
 *   const store = await openCampaignStore({ root: '/var/lib/argus-supervisor' });
 *   await store.create(newCampaignDocument({ campaignId: 'c1', objective: 'fine-tune', createdAt: new Date() }));
 *   const r = await store.transact('c1', (doc) => ({ ...doc, objective: 'fine-tune, v2' }));
 * @module
 */
import * as fsp from 'node:fs/promises';
import { campaignIdFromFileName, isValidCampaignId } from './campaign-id.js';
import { acquireCampaignLock, DEFAULT_LOCK_SETTINGS, isLockFailure, type LockSettings } from './campaign-lock.js';
import { campaignDocumentSchema, summarizeIssues, type CampaignDocument, type PublicEvent } from './campaign-document.js';
import { proposeTransaction } from './document-transition.js';
import { DurableJsonFile, syncDirectory, type DurableFs } from './durable-json-adapter.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { HostingScope, WriteFence } from './ownership.js';
import { documentDb, type DocumentDb } from './document-db.js';
import { isFailClosed, readDocumentSync, readInto, type DocumentRead, type FailClosedCode } from './read-document.js';
import { PersistenceError, describeError, errnoOf, failure, ioFailure, isPersistenceError, type StoreErrorCode, type StoreFailure } from './store-errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateLayout, storeLayout, type StoreLayout } from './store-layout.js';
import { clearDeadOwnersLocks, reportFailClosed, sweepOrphanTempFiles } from './store-upkeep.js';

/** Structurally satisfied by a pino logger. */
export interface StoreLogger {
  info?(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface StoreWrite {
  campaignId: string;
  kind: 'create' | 'transact';
  appendedEvents: PublicEvent[];
}

export interface CampaignStoreOptions {
  root: string;
  logger?: StoreLogger;
  lock?: Partial<LockSettings>;
  /** Called after each durable document write (feeds `argus_supervisor_store_writes_total`). */
  onWrite?: (write: StoreWrite) => void;
  now?: () => Date;
  /** The file-system calls documents are read and written with (tests inject failures). */
  fs?: DurableFs;
  /** The statechart's version check; a document whose snapshot fails it is `machine_version_unknown`. */
  machineVersionKnown?: (version: string) => boolean;
  /**
   * The caller owns the whole state root (the owner lock): no other live process can hold a
   * campaign lock, so any lock folder left behind was a dead owner's and is cleared at open
   * instead of being waited out for its stale time.
   */
  soleOwner?: boolean;
  /**
   * The right this process writes under (a `HostingRight`, or a host's per-campaign set of
   * them). Every create and transact carries `fenceFor(id)` and is checked with `verify` just
   * before the new document replaces the old; a lost right or a newer fence is `fence_stale`
   * and nothing changes. A right covering the whole root also implies `soleOwner`.
   * Without one (tools, tests) writes are unfenced.
   */
  fence?: WriteFence & { readonly scope?: HostingScope };
}

export type LoadResult =
  | { id: string; ok: true; doc: CampaignDocument; migratedFrom?: 1 }
  | { id: string; ok: false; code: FailClosedCode | 'io_failed'; reason: string; errno?: string };

export type LoadOneResult = LoadResult | { id: string; ok: false; code: 'campaign_not_found' | 'invalid_campaign_id'; reason: string };

export type WriteResult = { ok: true; doc: CampaignDocument; written: boolean } | StoreFailure<StoreErrorCode>;

/** Return the next document, or null for "no change" (nothing is written). Must not do I/O. */
export type Transaction = (doc: CampaignDocument) => CampaignDocument | null;

/**
 * What any backend of campaign documents offers (the files here, PostgreSQL in
 * `postgres/campaign-documents.ts`): the same reads, writes, codes and fence refusals.
 */
export interface CampaignDocuments {
  listIds(): Promise<string[]>;
  /** Every document, read `concurrency` at a time; `onResult` hears each one as it arrives (restart pipelines its first read on it). */
  loadAll(options?: { concurrency?: number; onResult?: (result: LoadResult) => void }): Promise<LoadResult[]>;
  load(id: string): Promise<LoadOneResult>;
  create(doc: CampaignDocument): Promise<WriteResult>;
  transact(id: string, fn: Transaction): Promise<WriteResult>;
  /** Durable document writes made by this store instance. */
  writes(): number;
}

/** The embedded store: documents as files under one state root. */
export interface CampaignStore extends CampaignDocuments {
  readonly layout: StoreLayout;
}

/** Temp files older than this at open are leftovers of a crashed writer. */
export async function openCampaignStore(options: CampaignStoreOptions): Promise<CampaignStore> {
  await fsp.mkdir(options.root, { recursive: true, mode: PRIVATE_DIR_MODE });
  const layout = storeLayout(await fsp.realpath(options.root));
  await ensurePrivateLayout(layout);
  await syncDirectory(fsp, layout.root);
  if (options.soleOwner || options.fence?.scope?.kind === 'state-root') await clearDeadOwnersLocks(layout.locksDir);
  const store = new FileCampaignStore(layout, options);
  await store.sweepOrphanTempFiles();
  return store;
}

class FileCampaignStore implements CampaignStore {
  private readonly mutex = new KeyedMutex();
  private readonly lockSettings: LockSettings;
  private readonly now: () => Date;
  private writeCount = 0;
  /** Campaigns whose in-memory migration was logged (once per store: every tick reads). */
  private readonly migrationLogged = new Set<string>();

  constructor(
    readonly layout: StoreLayout,
    private readonly options: CampaignStoreOptions,
  ) {
    this.lockSettings = { ...DEFAULT_LOCK_SETTINGS, ...options.lock };
    this.now = options.now ?? (() => new Date());
  }

  writes(): number {
    return this.writeCount;
  }

  async listIds(): Promise<string[]> {
    const names = await fsp.readdir(this.layout.campaignsDir);
    const ids: string[] = [];
    for (const name of names) {
      const id = campaignIdFromFileName(name);
      if (id !== null) ids.push(id);
    }
    return ids.sort();
  }

  async loadAll(options: { concurrency?: number; onResult?: (result: LoadResult) => void } = {}): Promise<LoadResult[]> {
    const ids = await this.listIds();
    const results: LoadResult[] = [];
    const batch = Math.max(1, Math.min(options.concurrency ?? 32, 256));
    for (let i = 0; i < ids.length; i += batch) {
      // One batch of reads, then a turn of the event loop, so the first reads of campaigns
      // already up (a restart's pipelined sweep) keep moving while the rest load.
      const reads = await Promise.all(ids.slice(i, i + batch).map((id) => this.loadForBoot(id)));
      for (const result of reads) {
        // A document removed between listing and reading is simply gone.
        if (!result.ok && (result.code === 'campaign_not_found' || result.code === 'invalid_campaign_id')) continue;
        results.push(result as LoadResult);
        options.onResult?.(result as LoadResult);
      }
      if (i + batch < ids.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return results;
  }

  /** `load`, read synchronously when the file system can (see `DurableFs.readFileSync`). */
  private async loadForBoot(id: string): Promise<LoadOneResult> {
    if (!isValidCampaignId(id)) return this.load(id);
    const read = readDocumentSync(new DurableJsonFile<unknown>(this.layout.documentPath(id), this.options.fs ? { fs: this.options.fs } : {}), id, this.options.machineVersionKnown);
    if (read === undefined) return this.load(id);
    await this.afterRead(id, read);
    if (!read.ok) return { id, ...read };
    return read.migratedFrom ? { id, ok: true, doc: read.doc, migratedFrom: read.migratedFrom } : { id, ok: true, doc: read.doc };
  }

  async load(id: string): Promise<LoadOneResult> {
    if (!isValidCampaignId(id)) return { id, ...failure('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot') };
    const read = await this.readAndReport(id);
    if (!read.ok) return { id, ...read };
    return read.migratedFrom ? { id, ok: true, doc: read.doc, migratedFrom: read.migratedFrom } : { id, ok: true, doc: read.doc };
  }

  async create(doc: CampaignDocument): Promise<WriteResult> {
    const id = doc.campaignId;
    if (!isValidCampaignId(id)) return failure('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot');
    const parsed = campaignDocumentSchema.safeParse(doc);
    if (!parsed.success) return failure('document_invalid', summarizeIssues(parsed.error));
    return this.underLock(id, async (db) => {
      // Any file at the path, even a corrupt one, means the id is taken: never replace it.
      const exists = await fsp.lstat(this.layout.documentPath(id)).then(() => true, (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)));
      if (exists) return failure('campaign_exists', `campaign ${id} already exists`);
      return this.commit(db, 'create', null, parsed.data);
    });
  }

  async transact(id: string, fn: Transaction): Promise<WriteResult> {
    if (!isValidCampaignId(id)) return failure('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot');
    return this.underLock(id, async (db) => {
      // Re-read under the lock: whatever the caller saw before may be stale.
      const read = await this.readAndReport(id, db);
      if (!read.ok) return read;
      const prev = read.doc;
      const proposal = proposeTransaction(prev, fn);
      if (!proposal.ok) return proposal;
      if (proposal.doc === null) return { ok: true, doc: prev, written: false };
      return this.commit(db, 'transact', prev, proposal.doc);
    });
  }

  /** Removes temp files a crashed writer left behind (never a document). */
  sweepOrphanTempFiles(): Promise<void> {
    return sweepOrphanTempFiles(this.layout.campaignsDir);
  }

  private underLock(id: string, work: (db: DocumentDb) => Promise<WriteResult>): Promise<WriteResult> {
    return this.mutex.run(id, async () => {
      const fence = this.options.fence;
      const carried = fence ? fence.fenceFor(id) : null;
      // Refused before the lock and before any byte is written: this process does not host it.
      if (fence && carried === null) return failure('fence_stale', `write to ${id} refused: this process does not hold the right to host it`);
      const documentPath = this.layout.documentPath(id);
      const storeFs = this.options.fs;
      const lock = await acquireCampaignLock(
        documentPath,
        this.layout.lockPath(id),
        this.lockSettings,
        (reason) => this.options.logger?.error({ campaignId: id, reason }, 'campaign lock compromised'),
        storeFs?.mkdir ? (dir) => storeFs.mkdir!(dir) : undefined,
      );
      if (isLockFailure(lock)) return lock;
      const file = new DurableJsonFile<unknown>(documentPath, {
        ...(this.options.fs ? { fs: this.options.fs } : {}),
        beforeCommit: async () => {
          if (lock.compromised) throw new PersistenceError('lock_compromised', `lock for ${id} was taken over as stale`);
          // Checked at the last moment, after the new bytes are durable in their temp file.
          const verdict = fence ? await fence.verify(id, carried!) : null;
          if (verdict && !verdict.ok) throw new PersistenceError(verdict.code, verdict.reason);
        },
      });
      try {
        return await work(documentDb(file, id, this.options.machineVersionKnown));
      } catch (error) {
        if (isPersistenceError(error)) {
          const errno = error.code === 'io_failed' ? errnoOf(error) : undefined;
          return { ...failure(error.code, error.message), ...(errno ? { errno } : {}) };
        }
        return ioFailure(error);
      } finally {
        await lock.release();
      }
    });
  }

  /** lowdb's write: the validated next document becomes the `Low`'s data, written durably. */
  private async commit(db: DocumentDb, kind: StoreWrite['kind'], prev: CampaignDocument | null, next: CampaignDocument): Promise<WriteResult> {
    db.data = next;
    await db.write();
    this.writeCount++;
    const fromSeq = prev?.outbox.nextSeq ?? 1;
    const appendedEvents = next.outbox.events.filter((event) => event.seq >= fromSeq);
    this.options.onWrite?.({ campaignId: next.campaignId, kind, appendedEvents });
    await this.projectEvents(next.campaignId, appendedEvents);
    return { ok: true, doc: next, written: true };
  }

  /** The jsonl projection is diagnostic only: the document already holds the truth. */
  private async projectEvents(id: string, events: PublicEvent[]): Promise<void> {
    if (events.length === 0) return;
    const lines = events.map((event) => `${JSON.stringify(event)}\n`).join('');
    await fsp.appendFile(this.layout.eventsPath(id), lines, { encoding: 'utf8', mode: PRIVATE_FILE_MODE }).catch((error: unknown) => {
      this.options.logger?.warn({ campaignId: id, reason: describeError(error) }, 'event projection append failed');
    });
  }

  private async readAndReport(
    id: string,
    db = documentDb(new DurableJsonFile<unknown>(this.layout.documentPath(id), this.options.fs ? { fs: this.options.fs } : {}), id, this.options.machineVersionKnown),
  ): Promise<DocumentRead> {
    const read = await readInto(db, id);
    await this.afterRead(id, read);
    return read;
  }

  /** A read that fails closed is reported; an in-memory migration is logged once. */
  private async afterRead(id: string, read: DocumentRead): Promise<void> {
    if (isFailClosed(read)) await reportFailClosed({ layout: this.layout, id, code: read.code, reason: read.reason, now: this.now(), logger: this.options.logger });
    if (read.ok && read.migratedFrom && !this.migrationLogged.has(id)) {
      this.migrationLogged.add(id);
      this.options.logger?.info?.({ campaignId: id, fromVersion: read.migratedFrom }, 'campaign document migrated in memory; the next write stores the current schema');
    }
  }
}
