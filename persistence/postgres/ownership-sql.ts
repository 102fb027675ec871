/**
 * The ownership statements (campaign-ownership.ts explains the protocol). Times are on the
 * database clock; `$ttl` is milliseconds. Each is one statement, one round trip.
 * @module
 */

/** $1 campaign, $2 replica, $3 ttl. A row back (its new fence) means won; none: live elsewhere. */
export const CLAIM_SQL = `
INSERT INTO campaign_owner AS o (campaign_id, holder, fence, expires_at)
VALUES ($1, $2, 1, now() + $3::int * interval '1 millisecond')
ON CONFLICT (campaign_id) DO UPDATE
  SET holder = EXCLUDED.holder, fence = o.fence + 1, expires_at = EXCLUDED.expires_at
  WHERE o.holder IS NULL OR o.expires_at <= now()
RETURNING fence::text AS fence`;

/**
 * $1 campaign ids (sorted, so two replicas claiming overlapping batches lock rows in one order and
 * never deadlock), $2 replica, $3 ttl: CLAIM_SQL for many campaigns in one round trip; the rows
 * back are the campaigns won (a live row elsewhere, or one another claim just took, is skipped).
 */
export const CLAIM_MANY_SQL = `
INSERT INTO campaign_owner AS o (campaign_id, holder, fence, expires_at)
SELECT id, $2, 1, now() + $3::int * interval '1 millisecond' FROM unnest($1::text[]) AS id ORDER BY id
ON CONFLICT (campaign_id) DO UPDATE
  SET holder = EXCLUDED.holder, fence = o.fence + 1, expires_at = EXCLUDED.expires_at
  WHERE o.holder IS NULL OR o.expires_at <= now()
RETURNING campaign_id, fence::text AS fence`;

/**
 * $1 replica, $2 ttl, $3 campaign ids, $4 their fences: the heartbeat and every renewal at once.
 * Rows that come back are renewed; a right missing from them is lost. The heartbeat is a
 * data-modifying CTE: PostgreSQL runs it once whether or not the UPDATE reads it.
 */
export const BEAT_SQL = `
WITH beat AS (
  INSERT INTO replicas AS r (replica_id, heartbeat_at, expires_at)
  VALUES ($1, now(), now() + $2::int * interval '1 millisecond')
  ON CONFLICT (replica_id) DO UPDATE SET heartbeat_at = now(), expires_at = EXCLUDED.expires_at
  RETURNING 1
)
UPDATE campaign_owner AS o SET expires_at = now() + $2::int * interval '1 millisecond'
FROM unnest($3::text[], $4::bigint[]) AS mine (campaign_id, fence)
WHERE o.campaign_id = mine.campaign_id AND o.fence = mine.fence AND o.holder = $1 AND o.expires_at > now()
RETURNING o.campaign_id, o.fence::text AS fence`;

/** $1 campaign, $2 fence, $3 replica: gives the row back, keeping its fence. */
export const RELEASE_SQL = `UPDATE campaign_owner SET holder = NULL, expires_at = now() WHERE campaign_id = $1 AND fence = $2 AND holder = $3`;
