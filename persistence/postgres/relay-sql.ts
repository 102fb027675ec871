/**
 * The command relay's statements and channel names (command-relay.ts explains the protocol).
 * Each statement is one round trip; a NOTIFY inside a statement is sent when it commits, so a
 * receiver woken by it always finds the row written.
 * @module
 */
import { createHash } from 'node:crypto';

/**
 * LISTEN/NOTIFY channels are per DATABASE, not per schema: two installations (or two test
 * runs) sharing a database must not hear each other, so every name covers the schema. A
 * channel name is an identifier (at most 63 bytes, longer ones are cut silently), and replica
 * ids are free text, so the name is a hash: `argus_c_` + 40 hex digits, safe to quote in LISTEN.
 */
export const commandChannel = (schema: string, replicaId: string): string => `argus_c_${digest(`commands/${schema}/${replicaId}`)}`;

/** The one channel of public-event notices of an installation. */
export const eventsChannel = (schema: string): string => `argus_e_${digest(`events/${schema}`)}`;

const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 40);

/** `LISTEN "<channel>"`; the names above are [a-z0-9_] only, so quoting cannot be escaped. */
export function listenSql(channel: string): string {
  if (!/^[a-z0-9_]{1,63}$/.test(channel)) throw new Error(`channel name ${JSON.stringify(channel.slice(0, 80))} is not a plain identifier`);
  return `LISTEN "${channel}"`;
}

/** $1 campaign: the live owner (holder, fence) or no row. */
export const OWNER_SQL = `
SELECT holder, fence::text AS fence FROM campaign_owner
WHERE campaign_id = $1 AND holder IS NOT NULL AND expires_at > now()`;

/**
 * $1 campaign, $2 target, $3 fence, $4 sender, $5 request (json text), $6 timeout ms,
 * $7 the target's channel: the row and its NOTIFY in one statement. The payload is the id
 * alone, behind a one-letter kind ('c' a command to run, 'a' an answer to read), because a
 * replica hears both on its one channel.
 */
export const SEND_SQL = `
WITH c AS (
  INSERT INTO campaign_commands (campaign_id, target_replica, fence, sender_replica, request, deadline)
  VALUES ($1, $2, $3::bigint, $4, $5::json, now() + $6::int * interval '1 millisecond')
  RETURNING id
)
SELECT c.id::text AS id, pg_notify($7, 'c' || c.id::text) FROM c`;

/**
 * $1 id, $2 this replica: the owner's claim. At most one claim ever succeeds for a row (the
 * row lock serialises two claims; the second re-checks claimed_at and gets nothing), and none
 * after the sender abandoned it or its deadline passed.
 */
export const CLAIM_SQL = `
UPDATE campaign_commands SET claimed_at = now()
WHERE id = $1::bigint AND target_replica = $2
  AND claimed_at IS NULL AND answered_at IS NULL AND NOT abandoned AND deadline > now()
RETURNING campaign_id, fence::text AS fence, sender_replica, request::text AS request`;

/** $1 id, $2 answer (json text), $3 the sender's channel: the answer and its NOTIFY. */
export const ANSWER_SQL = `
WITH a AS (
  UPDATE campaign_commands SET answer = $2::json, answered_at = now()
  WHERE id = $1::bigint AND answered_at IS NULL
  RETURNING id
)
SELECT pg_notify($3, 'a' || a.id::text) FROM a`;

/** $1 id: the sender's read (poll, or after an answer NOTIFY). */
export const READ_SQL = `SELECT answer::text AS answer, claimed_at IS NOT NULL AS claimed FROM campaign_commands WHERE id = $1::bigint`;

/**
 * $1 id: the sender gives up. A row back means nobody answered (claimed says whether the
 * owner had started it); no row means the answer came first, and the sender reads it.
 */
export const ABANDON_SQL = `
UPDATE campaign_commands SET abandoned = true
WHERE id = $1::bigint AND answered_at IS NULL
RETURNING claimed_at IS NOT NULL AS claimed`;

/** $1 this replica: unclaimed live rows addressed to it (the sweep after a (re)connect). */
export const PENDING_SQL = `
SELECT id::text AS id FROM campaign_commands
WHERE target_replica = $1 AND claimed_at IS NULL AND NOT abandoned AND deadline > now()
ORDER BY id LIMIT 1000`;

/** $1 age ms: rows that can no longer change anything. */
export const PRUNE_SQL = `
DELETE FROM campaign_commands
WHERE created_at < now() - $1::int * interval '1 millisecond'
  AND (answered_at IS NOT NULL OR abandoned OR deadline < now())`;
