/**
 * One controller per remote context across replicas (issue 22, part 5): the `context_controllers`
 * table (migrations 003, 004) holds which campaign controls which context. Its primary key lets
 * one campaign hold a context; its unique campaign_id, one context per campaign. The statements
 * behind services/runtime/replica-contexts.ts.
 *
 * Every write (a hold, a settle) is a write of ONE campaign and is fenced like its document
 * writes (campaign-documents.ts): in one transaction with that campaign's `campaign_owner` row
 * locked `FOR SHARE` and checked against the writer's right (holder, fence, not expired). A
 * deposed replica's settle therefore never lets go of a row the campaign's newer owner relies on,
 * and a takeover waits for a write in flight. Each row keeps the fence it was written under.
 *
 * Reclaim rule (a hold finds the context held by ANOTHER campaign H). The row is H's fact, so it
 * stands, unless both hold, judged with H's document locked `FOR SHARE SKIP LOCKED` and then H's
 * ownership row locked `FOR NO KEY UPDATE SKIP LOCKED` — the latter conflicts with the `FOR SHARE`
 * every document write of H holds (campaign-documents.ts), so a write in flight (one that may be
 * committing "controlling this context") is seen as a lock, never read past:
 *   (a) the tenure that wrote the row is over: H has no ownership row, or it is released (no
 *       holder) or expired, or its fence is greater than the row's (a newer tenure, which has not
 *       held the context itself: its own hold or settle would have rewritten the row's fence); and
 *   (b) H's stored chart does not hold this context: no document, or its chart is neither
 *       controlling this context nor claiming (`storedHold`, given by the caller).
 * Then the row is deleted and the context taken in the same transaction. Anything uncertain keeps
 * the holder: H's document or ownership row locked by a write in flight (a document write, a
 * renewal, a takeover), a chart that cannot be read, a chart still claiming. A row whose
 * campaign's live owner wrote it is never reclaimed: that owner settles it (retried,
 * replica-contexts.ts).
 *
 * Waiting. A context transaction keeps its own campaign's ownership row `FOR SHARE` while it waits
 * for a context row another transaction holds; the replica's beat (one UPDATE of all its rights)
 * would wait behind it. Every context transaction therefore gives up on a lock after
 * CONTEXT_LOCK_TIMEOUT_MS: a hold rejects (the claim fails closed), a settle is retried.
 *
 * A settle that finds the context held by ANOTHER campaign (it was reclaimed, or taken, while this
 * chart still controls it) changes nothing and answers that campaign (`settleContext`); the
 * caller reports it (`context_conflict`), and a hold in that state is refused (the claim answers
 * lease_held): a campaign never takes a context another campaign holds.
 * @module
 */
import type pg from 'pg';
import type { Database } from './database.js';

/** The writer's side of the fence (a `CampaignOwnership` is one). */
export interface ContextWriter {
  fenceFor(campaignId: string): number | null;
  readonly holder: string;
}

/**
 * The context a stored campaign document's chart holds: a context id, null (none), or undefined
 * when it cannot tell (claiming, unreadable): then the row is not reclaimed.
 */
export type StoredHold = (document: unknown) => string | null | undefined;

/** A write refused because the writer's right to the campaign is not the one it carries (or gone). */
export class ContextFenceStale extends Error {
  readonly code = 'fence_stale';
}

/**
 * How long a context transaction waits for any one row lock. Well under the ownership renew
 * deadline (campaign-ownership.ts: the beat must commit before it), so a paused replica holding a
 * context row never keeps this replica's beat waiting behind our own campaign's owner row long
 * enough to lose its rights; a normal context write holds its locks for milliseconds.
 */
export const CONTEXT_LOCK_TIMEOUT_MS = 1_000;

async function inTransaction<T>(db: Database, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${CONTEXT_LOCK_TIMEOUT_MS}ms'`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const OWNER_SQL = 'SELECT holder, fence::text AS fence, expires_at > now() AS live FROM campaign_owner WHERE campaign_id = $1';
const LOCK_OWNER_SQL = `${OWNER_SQL} FOR SHARE`;
const HOLDER_SQL = 'SELECT campaign_id, fence::text AS fence FROM context_controllers WHERE context_id = $1';
const DROP_OTHERS_SQL = 'DELETE FROM context_controllers WHERE campaign_id = $1 AND context_id IS DISTINCT FROM $2';
/**
 * A context another campaign took meanwhile (primary key) is left to it; our own row gets our
 * fence. No row returned: another campaign holds it (`took`).
 */
const TAKE_SQL = `INSERT INTO context_controllers (context_id, campaign_id, fence) VALUES ($1, $2, $3)
ON CONFLICT (context_id) DO UPDATE SET fence = EXCLUDED.fence WHERE context_controllers.campaign_id = EXCLUDED.campaign_id
RETURNING campaign_id`;

/** Takes the context for the campaign: null when it holds it now, else the campaign that holds it. */
async function took(client: pg.PoolClient, contextId: string, campaignId: string, fence: number): Promise<string | null> {
  const taken = await client.query(TAKE_SQL, [contextId, campaignId, String(fence)]);
  if ((taken.rowCount ?? 0) > 0) return null;
  // A new statement sees the committed holder (the insert waited for it); gone again: "unknown".
  return (await client.query<{ campaign_id: string }>(HOLDER_SQL, [contextId])).rows[0]?.campaign_id ?? 'another campaign';
}

/** Locks the campaign's ownership row and checks it against the writer's right; throws ContextFenceStale. */
async function fenced(client: pg.PoolClient, writer: ContextWriter, campaignId: string, fence: number | null): Promise<number> {
  if (fence === null) throw new ContextFenceStale(`replica ${writer.holder} does not hold the right to host campaign ${campaignId}`);
  const row = (await client.query<{ holder: string | null; fence: string; live: boolean }>(LOCK_OWNER_SQL, [campaignId])).rows[0];
  const problem =
    row === undefined ? 'no ownership row exists for it'
    : row.fence !== String(fence) ? `it carries fence ${fence}, the ownership row is at fence ${row.fence}`
    : row.holder !== writer.holder ? `the ownership row names ${row.holder ?? 'no holder (released)'}, not ${writer.holder}`
    : !row.live ? `the right at fence ${row.fence} has expired`
    : null;
  if (problem !== null) throw new ContextFenceStale(`context write for campaign ${campaignId} refused: ${problem}`);
  return fence;
}

/** 0 rows from a SKIP LOCKED read: the row is absent, or locked by a write in flight. */
const exists = async (client: pg.PoolClient, table: 'campaign_documents' | 'campaign_owner', campaignId: string) => ((await client.query(`SELECT 1 FROM ${table} WHERE campaign_id = $1`, [campaignId])).rowCount ?? 0) > 0;

/**
 * The reclaim rule (module comment), inside the hold's transaction. H's document first, then (as
 * late as possible: it stalls H's beat until we commit) H's ownership row; neither ever waits.
 */
async function reclaimable(client: pg.PoolClient, held: { campaign_id: string; fence: string }, contextId: string, storedHold: StoredHold): Promise<boolean> {
  const doc = (await client.query<{ document: unknown }>('SELECT document FROM campaign_documents WHERE campaign_id = $1 FOR SHARE SKIP LOCKED', [held.campaign_id])).rows[0];
  // Locked by a document write in flight: it may be saving "controlling this context". The holder stands.
  if (doc === undefined && (await exists(client, 'campaign_documents', held.campaign_id))) return false;
  if (doc !== undefined) {
    const holds = storedHold(doc.document);
    if (holds === undefined || holds === contextId) return false;
  }
  const owner = (await client.query<{ holder: string | null; fence: string; live: boolean }>(`${OWNER_SQL} FOR NO KEY UPDATE SKIP LOCKED`, [held.campaign_id])).rows[0];
  // Locked by a write in flight (a document write's FOR SHARE, a renewal, a takeover): cannot tell now.
  if (owner === undefined) return !(await exists(client, 'campaign_owner', held.campaign_id));
  return !(owner.holder !== null && owner.live && BigInt(owner.fence) <= BigInt(held.fence));
}

export interface HoldAnswer {
  /** The campaign that holds the context, or null when the asking campaign holds it now. */
  holder: string | null;
  /** The campaign whose left-behind row was reclaimed (module comment), when one was. */
  reclaimedFrom?: string;
}

/**
 * Takes `contextId` for `campaignId` unless another campaign holds it (and its row is not
 * reclaimable); the campaign's previous context (if any) is let go in the same transaction, only
 * when it takes this one. Fenced by the campaign's right: throws ContextFenceStale without it.
 */
export async function holdContext(db: Database, writer: ContextWriter, contextId: string, campaignId: string, storedHold: StoredHold): Promise<HoldAnswer> {
  try {
    return await inTransaction(db, async (client) => {
      const fence = await fenced(client, writer, campaignId, writer.fenceFor(campaignId));
      // The row, locked: a concurrent hold of a held context waits here, then sees the holder.
      const held = (await client.query<{ campaign_id: string; fence: string }>(`${HOLDER_SQL} FOR UPDATE`, [contextId])).rows[0];
      let reclaimedFrom: string | undefined;
      if (held !== undefined && held.campaign_id !== campaignId) {
        if (!(await reclaimable(client, held, contextId, storedHold))) return { holder: held.campaign_id };
        await client.query('DELETE FROM context_controllers WHERE context_id = $1', [contextId]);
        reclaimedFrom = held.campaign_id;
      }
      await client.query(DROP_OTHERS_SQL, [campaignId, contextId]);
      // Two first holds at once: the loser's insert waited on the winner's key, then did nothing.
      // It rolls back, so the context it let go above stays its own.
      const other = await took(client, contextId, campaignId, fence);
      if (other !== null) throw new TakenMeanwhile(other);
      return reclaimedFrom === undefined ? { holder: null } : { holder: null, reclaimedFrom };
    });
  } catch (error) {
    if (error instanceof TakenMeanwhile) return { holder: error.holder };
    throw error;
  }
}

class TakenMeanwhile extends Error {
  constructor(readonly holder: string) {
    super(`context held by ${holder}`);
  }
}

/**
 * Where `campaignId` stands now: holding `contextId` (never taken from another campaign), or
 * nothing. Fenced by the right the writer held when the chart moved (`fence`): throws
 * ContextFenceStale when that right is no longer the campaign's live one.
 * @returns null, or the campaign that holds `contextId` instead (a conflict: module comment).
 */
export async function settleContext(db: Database, writer: ContextWriter, campaignId: string, contextId: string | null, fence: number | null): Promise<string | null> {
  return inTransaction(db, async (client) => {
    const fenceNow = await fenced(client, writer, campaignId, fence);
    if (contextId === null) {
      await client.query('DELETE FROM context_controllers WHERE campaign_id = $1', [campaignId]);
      return null;
    }
    await client.query(DROP_OTHERS_SQL, [campaignId, contextId]);
    return took(client, contextId, campaignId, fenceNow);
  });
}
