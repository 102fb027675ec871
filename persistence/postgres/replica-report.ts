/**
 * What the shared database says about the replicas and the campaigns' ownership right now, read
 * from the tables alone (no running `serve` is asked): the `argus-supervisor replicas` command
 * prints it, and `/health` can return the same object later.
 *
 * One read-only REPEATABLE READ transaction, so the rows and the counts are one snapshot and
 * "live" is judged against that snapshot's database clock (`now()` is the transaction's start),
 * the same clock that expires the rows; no replica's clock is trusted.
 *
 * A holder named by ownership rows but without a `replicas` row (removed by hand, or a row
 * from a build that wrote none) is listed too, with null times, so no held campaign is hidden.
 * @module
 */
import type { Database } from './database.js';

export interface ReplicaLine {
  replica_id: string;
  /** ISO times on the database clock; null for a holder that has no `replicas` row. */
  started_at: string | null;
  heartbeat_at: string | null;
  expires_at: string | null;
  /** Its heartbeat row has not expired. */
  live: boolean;
  /** Campaigns whose ownership row names it and has not expired. */
  campaigns: number;
  /** Rows naming it whose expiry passed: free to be taken by any replica. */
  expired_campaigns: number;
  /** The greatest fence among the rows naming it (live or expired); null when it holds none. */
  max_fence: number | null;
}

export interface ReplicaReport {
  /** The database clock the snapshot was judged at. */
  at: string;
  schema: string;
  replicas: ReplicaLine[];
  campaigns: {
    /** Campaign documents in the database. */
    documents: number;
    /** Ownership rows held by someone and not expired. */
    owned: number;
    /** Ownership rows given back (holder NULL). */
    released: number;
    /** Ownership rows still naming a holder whose expiry passed. */
    expired: number;
    /** Documents with no ownership row at all (never claimed since they were written). */
    unclaimed: number;
  };
}

/** Per holder: replicas rows full-joined to the aggregated ownership rows (a holder may lack either). */
const REPLICAS_SQL = `
WITH held AS (
  SELECT holder,
         count(*) FILTER (WHERE expires_at > now())::int  AS campaigns,
         count(*) FILTER (WHERE expires_at <= now())::int AS expired_campaigns,
         max(fence)::text AS max_fence
  FROM campaign_owner WHERE holder IS NOT NULL GROUP BY holder
)
SELECT coalesce(r.replica_id, h.holder) AS replica_id,
       r.started_at, r.heartbeat_at, r.expires_at,
       coalesce(r.expires_at > now(), false) AS live,
       coalesce(h.campaigns, 0) AS campaigns,
       coalesce(h.expired_campaigns, 0) AS expired_campaigns,
       h.max_fence
FROM replicas r FULL OUTER JOIN held h ON h.holder = r.replica_id
ORDER BY 1`;

const COUNTS_SQL = `
SELECT now() AS at,
  (SELECT count(*) FROM campaign_documents)::int AS documents,
  (SELECT count(*) FROM campaign_owner WHERE holder IS NOT NULL AND expires_at > now())::int AS owned,
  (SELECT count(*) FROM campaign_owner WHERE holder IS NULL)::int AS released,
  (SELECT count(*) FROM campaign_owner WHERE holder IS NOT NULL AND expires_at <= now())::int AS expired,
  (SELECT count(*) FROM campaign_documents d WHERE NOT EXISTS (SELECT 1 FROM campaign_owner o WHERE o.campaign_id = d.campaign_id))::int AS unclaimed`;

interface ReplicaRow {
  replica_id: string;
  started_at: Date | null;
  heartbeat_at: Date | null;
  expires_at: Date | null;
  live: boolean;
  campaigns: number;
  expired_campaigns: number;
  max_fence: string | null;
}

interface CountsRow {
  at: Date;
  documents: number;
  owned: number;
  released: number;
  expired: number;
  unclaimed: number;
}

/** Reads the report; throws on a database error (the caller gives it its code). */
export async function readReplicaReport(db: Database): Promise<ReplicaReport> {
  const client = await db.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const counts = (await client.query<CountsRow>(COUNTS_SQL)).rows[0]!;
    const rows = (await client.query<ReplicaRow>(REPLICAS_SQL)).rows;
    await client.query('COMMIT');
    const { at, ...campaigns } = counts;
    return { at: at.toISOString(), schema: db.schema, replicas: rows.map(line), campaigns };
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(broken);
  }
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

function line(r: ReplicaRow): ReplicaLine {
  return {
    replica_id: r.replica_id,
    started_at: iso(r.started_at),
    heartbeat_at: iso(r.heartbeat_at),
    expires_at: iso(r.expires_at),
    live: r.live,
    campaigns: r.campaigns,
    expired_campaigns: r.expired_campaigns,
    // Fences stay far below 2^53 (one per claim).
    max_fence: r.max_fence === null ? null : Number(r.max_fence),
  };
}
