/**
 * Where campaigns stand across the replicas, in one round trip: how many replicas are live, how
 * many campaigns exist, and which have no live owner (never claimed, released, or their owner
 * stopped renewing). A replica reads this to take its fair share (services/runtime/replica-hosting.ts).
 * Everything is on the database clock, so no replica's clock decides who is alive.
 * @module
 */
import type { Database } from './database.js';

export interface Placement {
  /** Replicas whose heartbeat has not expired (this one included, while it beats). */
  liveReplicas: number;
  /** Campaign documents in this installation. */
  campaigns: number;
  /** Campaigns with a document and no live owner: free to claim. */
  orphans: string[];
}

const PLACEMENT_SQL = `
SELECT
  (SELECT count(*) FROM replicas WHERE expires_at > now())::int AS live_replicas,
  (SELECT count(*) FROM campaign_documents)::int AS campaigns,
  (SELECT coalesce(array_agg(d.campaign_id ORDER BY d.campaign_id), '{}')
     FROM campaign_documents d LEFT JOIN campaign_owner o USING (campaign_id)
    WHERE o.campaign_id IS NULL OR o.holder IS NULL OR o.expires_at <= now()) AS orphans`;

export async function readPlacement(db: Database): Promise<Placement> {
  const { rows } = await db.pool.query<{ live_replicas: number; campaigns: number; orphans: string[] }>(PLACEMENT_SQL);
  const row = rows[0]!;
  return { liveReplicas: row.live_replicas, campaigns: row.campaigns, orphans: row.orphans };
}

/** Who holds one campaign (null: never claimed by anyone); `live` false while it is released or expired. */
export async function ownerOf(db: Database, campaignId: string): Promise<{ holder: string | null; fence: number; live: boolean } | null> {
  const { rows } = await db.pool.query<{ holder: string | null; fence: string; live: boolean }>(
    'SELECT holder, fence::text AS fence, holder IS NOT NULL AND expires_at > now() AS live FROM campaign_owner WHERE campaign_id = $1',
    [campaignId],
  );
  const row = rows[0];
  return row ? { holder: row.holder, fence: Number(row.fence), live: row.live } : null;
}
