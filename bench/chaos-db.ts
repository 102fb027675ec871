/**
 * The database side of `chaos --replicas N`: one fresh schema per run on the PostgreSQL the
 * tests use, and the reads the harness needs from it (the campaign's journal as the replicas
 * wrote it, its ownership row, the relay rows still in flight). Read-only apart from creating
 * and dropping the run's own schema.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { parseCampaignDocument, type MutationIntent } from '../persistence/campaign-document.js';
import { openDatabase, type Database } from '../persistence/postgres/database.js';

/** Same default as the tests (test/persistence/postgres/support/test-server.ts). */
export const CHAOS_DATABASE_URL = process.env.ARGUS_SUPERVISOR_TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test';

export interface OwnerRow {
  holder: string | null;
  fence: number;
  live: boolean;
}

export interface ChaosSchema {
  readonly schema: string;
  journal(campaignId: string): Promise<MutationIntent[]>;
  owner(campaignId: string): Promise<OwnerRow | null>;
  /** Relay rows addressed to `target` that it may still claim or is running (not answered, not abandoned, deadline ahead). */
  inFlight(campaignId: string, target: string): Promise<number>;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** Creates (and migrates) a schema of its own for one run. */
export async function openChaosSchema(index: number): Promise<ChaosSchema> {
  const schema = `chaos_${process.pid}_${index}_${randomBytes(3).toString('hex')}`;
  const opened = await openDatabase({ url: CHAOS_DATABASE_URL, schema, maxConnections: 2, statementTimeoutMs: 10_000 });
  if (!opened.ok) throw new Error(`chaos --replicas needs PostgreSQL: ${opened.code}: ${opened.message}`);
  const db: Database = opened.db;
  return {
    schema,
    async journal(campaignId) {
      const { rows } = await db.pool.query<{ document: string }>('SELECT document::text AS document FROM campaign_documents WHERE campaign_id = $1', [campaignId]);
      if (!rows[0]) throw new Error(`campaign ${campaignId}: no document in schema ${schema}`);
      const parsed = parseCampaignDocument(JSON.parse(rows[0].document) as unknown, campaignId);
      if (!parsed.ok) throw new Error(`campaign ${campaignId}: ${parsed.code}: ${parsed.reason}`);
      return parsed.doc.intents;
    },
    async owner(campaignId) {
      const { rows } = await db.pool.query<{ holder: string | null; fence: string; live: boolean }>(
        'SELECT holder, fence::text AS fence, (holder IS NOT NULL AND expires_at > now()) AS live FROM campaign_owner WHERE campaign_id = $1',
        [campaignId],
      );
      const row = rows[0];
      return row ? { holder: row.holder, fence: Number(row.fence), live: row.live } : null;
    },
    async inFlight(campaignId, target) {
      const { rows } = await db.pool.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM campaign_commands
         WHERE campaign_id = $1 AND target_replica = $2 AND answered_at IS NULL AND NOT abandoned AND deadline > now()`,
        [campaignId, target],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async drop() {
      try {
        await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await db.close();
      }
    },
  };
}

/** The pid in a replica id (`<host>-<pid>-<8 hex>`, campaign-ownership.ts), to tell which child holds a right. */
export function pidOfReplica(replicaId: string | null): number | null {
  const m = replicaId ? /-(\d+)-[0-9a-f]{8}$/.exec(replicaId) : null;
  return m ? Number(m[1]) : null;
}
