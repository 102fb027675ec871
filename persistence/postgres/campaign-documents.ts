/**
 * Campaign documents in PostgreSQL (`campaign_documents`), behind the same `CampaignDocuments`
 * interface as the file store: the same validation on every read and write, the same
 * fail-closed codes, the same no-regression check. Everything a campaign must remember lives in
 * its document (intent journal, outbox, idempotency answers, consumed decisions, the chart's
 * snapshot), so every one of those writes is a document write and carries the fence.
 *
 * Every create and transact runs in ONE transaction that first locks the campaign's ownership
 * row `FOR SHARE` and checks (holder, fence, not expired) against the writer's right — Temporal's
 * `readLockShard`. A takeover updates that row, so it waits for an in-flight write to commit,
 * and a write that starts while a takeover is uncommitted waits for it and then sees the new
 * fence: `fence_stale`, nothing changes. (A plain join would read the old row version and let
 * the stale write through: research/scale_out.md §1.7.) The written row keeps the writer's fence.
 * @module
 */
import type pg from 'pg';
import { campaignDocumentSchema, parseCampaignDocument, summarizeIssues, type CampaignDocument } from '../campaign-document.js';
import { isValidCampaignId } from '../campaign-id.js';
import type { CampaignDocuments, LoadOneResult, LoadResult, StoreLogger, StoreWrite, Transaction, WriteResult } from '../campaign-store.js';
import { proposeTransaction } from '../document-transition.js';
import type { MachineVersionCheck } from '../document-db.js';
import type { DocumentRead } from '../read-document.js';
import { describeError, failure } from '../store-errors.js';
import type { Database } from './database.js';

/** The writer's side of the fence: its fence per campaign and the holder name its rows carry. */
export interface PostgresWriteFence {
  fenceFor(campaignId: string): number | null;
  readonly holder: string;
}

export interface PostgresDocumentsOptions {
  db: Database;
  /** Required: every write to the shared database is fenced (a `CampaignOwnership` is one). */
  fence: PostgresWriteFence;
  logger?: StoreLogger;
  onWrite?: (write: StoreWrite) => void;
  machineVersionKnown?: MachineVersionCheck;
}

/** A validated next document, written inside the transaction and waiting for its COMMIT. */
interface ToCommit {
  commit: true;
  kind: StoreWrite['kind'];
  prev: CampaignDocument | null;
  doc: CampaignDocument;
}

const INVALID_ID = 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot';

const LOCK_OWNER_SQL = `SELECT holder, fence::text AS fence, expires_at > now() AS live FROM campaign_owner WHERE campaign_id = $1 FOR SHARE`;

export function postgresCampaignDocuments(options: PostgresDocumentsOptions): CampaignDocuments {
  return new PgCampaignDocuments(options);
}

class PgCampaignDocuments implements CampaignDocuments {
  private writeCount = 0;
  /** Campaigns whose fail-closed read was logged (once per store: every tick reads). */
  private readonly reported = new Set<string>();

  constructor(private readonly options: PostgresDocumentsOptions) {}

  writes(): number {
    return this.writeCount;
  }

  async listIds(): Promise<string[]> {
    const result = await this.options.db.pool.query<{ campaign_id: string }>('SELECT campaign_id FROM campaign_documents ORDER BY campaign_id');
    return result.rows.map((r) => r.campaign_id);
  }

  async loadAll(options: { concurrency?: number; onResult?: (result: LoadResult) => void } = {}): Promise<LoadResult[]> {
    const result = await this.options.db.pool.query<{ campaign_id: string; document: unknown }>('SELECT campaign_id, document FROM campaign_documents ORDER BY campaign_id');
    return result.rows.map((row) => {
      const loaded = this.classify(row.campaign_id, row.document) as LoadResult;
      options.onResult?.(loaded);
      return loaded;
    });
  }

  async load(id: string): Promise<LoadOneResult> {
    if (!isValidCampaignId(id)) return { id, ...failure('invalid_campaign_id', INVALID_ID) };
    try {
      const result = await this.options.db.pool.query<{ document: unknown }>('SELECT document FROM campaign_documents WHERE campaign_id = $1', [id]);
      if (result.rows.length === 0) return { id, ...failure('campaign_not_found', `no campaign ${id}`) };
      return this.classify(id, result.rows[0]!.document);
    } catch (error) {
      return { id, ...failure('io_failed', `campaign ${id} could not be read (${describeError(error)})`) };
    }
  }

  async create(doc: CampaignDocument): Promise<WriteResult> {
    const id = doc.campaignId;
    if (!isValidCampaignId(id)) return failure('invalid_campaign_id', INVALID_ID);
    const parsed = campaignDocumentSchema.safeParse(doc);
    if (!parsed.success) return failure('document_invalid', summarizeIssues(parsed.error));
    return this.fenced(id, async (client, fence) => {
      const inserted = await client.query(
        'INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ($1, $2, $3) ON CONFLICT (campaign_id) DO NOTHING RETURNING 1',
        [id, JSON.stringify(parsed.data), String(fence)],
      );
      if (inserted.rowCount === 0) return failure('campaign_exists', `campaign ${id} already exists`);
      return { commit: true, kind: 'create', prev: null, doc: parsed.data };
    });
  }

  async transact(id: string, fn: Transaction): Promise<WriteResult> {
    if (!isValidCampaignId(id)) return failure('invalid_campaign_id', INVALID_ID);
    return this.fenced(id, async (client, fence) => {
      const current = await client.query<{ document: unknown }>('SELECT document FROM campaign_documents WHERE campaign_id = $1 FOR UPDATE', [id]);
      if (current.rows.length === 0) return failure('campaign_not_found', `no campaign ${id}`);
      const read = this.classify(id, current.rows[0]!.document);
      if (!read.ok) return failure(read.code, read.reason);
      const prev = read.doc;
      const proposal = proposeTransaction(prev, fn);
      if (!proposal.ok) return proposal;
      if (proposal.doc === null) return { ok: true, doc: prev, written: false };
      await client.query('UPDATE campaign_documents SET document = $2, fence = $3, written_at = now() WHERE campaign_id = $1', [id, JSON.stringify(proposal.doc), String(fence)]);
      return { commit: true, kind: 'transact', prev, doc: proposal.doc };
    });
  }

  /**
   * One transaction: the ownership row locked FOR SHARE and checked, then `work`. Anything but a
   * written result rolls back, so a refusal changes nothing.
   */
  private async fenced(id: string, work: (client: pg.PoolClient, fence: number) => Promise<WriteResult | ToCommit>): Promise<WriteResult> {
    const { fence: writer, db } = this.options;
    const carried = writer.fenceFor(id);
    // Refused before any round trip: this process does not hold the right (lost, expired, never claimed).
    if (carried === null) return failure('fence_stale', `write to ${id} refused: replica ${writer.holder} does not hold the right to host it`);
    let client: pg.PoolClient;
    try {
      client = await db.pool.connect();
    } catch (error) {
      return failure('io_failed', `write to ${id} failed: no database connection (${describeError(error)})`);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const owner = await client.query<{ holder: string | null; fence: string; live: boolean }>(LOCK_OWNER_SQL, [id]);
      const row = owner.rows[0];
      const problem =
        row === undefined ? 'no ownership row exists for it'
        : row.fence !== String(carried) ? `it carries fence ${carried}, the ownership row is at fence ${row.fence}`
        : row.holder !== writer.holder ? `the ownership row at fence ${row.fence} names ${row.holder ?? 'no holder (released)'}, not ${writer.holder}`
        : !row.live ? `the right at fence ${row.fence} has expired`
        : null;
      if (problem !== null) {
        await client.query('ROLLBACK');
        return failure('fence_stale', `write to ${id} refused: ${problem}`);
      }
      const result = await work(client, carried);
      if (!('commit' in result)) {
        await client.query('ROLLBACK');
        return result;
      }
      await client.query('COMMIT');
      return this.afterCommit(result);
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      await client.query('ROLLBACK').catch(() => undefined);
      // A failed COMMIT may or may not have applied: the caller treats io_failed as unknown.
      return failure('io_failed', `write to ${id} failed (${describeError(error)})`);
    } finally {
      // A connection that errored is dropped, not reused mid-state.
      client.release(broken);
    }
  }

  /** Counted and announced only once committed, as the file store does after its rename. */
  private afterCommit({ kind, prev, doc }: ToCommit): WriteResult {
    this.writeCount++;
    const fromSeq = prev?.outbox.nextSeq ?? 1;
    const appendedEvents = doc.outbox.events.filter((event) => event.seq >= fromSeq);
    this.options.onWrite?.({ campaignId: doc.campaignId, kind, appendedEvents });
    return { ok: true, doc, written: true };
  }

  /** The stored JSON → a valid current document, or the fail-closed code (logged once). */
  private classify(id: string, raw: unknown): LoadResult {
    const read = classifyDocument(raw, id, this.options.machineVersionKnown);
    if (!read.ok) {
      if ((read.code === 'document_corrupt' || read.code === 'document_version_unknown' || read.code === 'machine_version_unknown') && !this.reported.has(id)) {
        this.reported.add(id);
        this.options.logger?.error({ campaignId: id, code: read.code, reason: read.reason }, 'campaign document failed closed');
      }
      return { id, ok: false, code: read.code as Extract<LoadResult, { ok: false }>['code'], reason: read.reason };
    }
    return read.migratedFrom ? { id, ok: true, doc: read.doc, migratedFrom: read.migratedFrom } : { id, ok: true, doc: read.doc };
  }
}

/** The same checks as the file store's reader (document-db.ts): schema, document and machine versions. */
export function classifyDocument(raw: unknown, id: string, machineVersionKnown: MachineVersionCheck | undefined): DocumentRead {
  const parsed = parseCampaignDocument(raw, id);
  const version = parsed.ok ? parsed.doc.machine?.version : undefined;
  if (version !== undefined && machineVersionKnown && !machineVersionKnown(version)) {
    return failure('machine_version_unknown', `machine version ${JSON.stringify(version).slice(0, 60)} is not known to this build`);
  }
  return parsed;
}
