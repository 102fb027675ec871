/**
 * One controller per remote context across replicas (issue 22, part 5): the `context_controllers`
 * table (migration 003) holds which campaign controls which context. Its primary key lets one
 * campaign hold a context; its unique campaign_id, one context per campaign. The statements
 * behind services/runtime/replica-contexts.ts.
 * @module
 */
import type pg from 'pg';
import type { Database } from './database.js';

async function inTransaction<T>(db: Database, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
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

const HOLDER_SQL = 'SELECT campaign_id FROM context_controllers WHERE context_id = $1';
const DROP_OTHERS_SQL = 'DELETE FROM context_controllers WHERE campaign_id = $1 AND context_id IS DISTINCT FROM $2';
/** No conflict target: a context another campaign took meanwhile (primary key) is left to it. */
const TAKE_SQL = 'INSERT INTO context_controllers (context_id, campaign_id) VALUES ($1, $2) ON CONFLICT DO NOTHING';

/**
 * Takes `contextId` for `campaignId` unless another campaign holds it; the campaign's previous
 * context (if any) is let go in the same transaction, only when it takes this one.
 * @returns the campaign that holds it, or null when `campaignId` holds it now.
 */
export async function holdContext(db: Database, contextId: string, campaignId: string): Promise<string | null> {
  try {
    return await inTransaction(db, async (client) => {
      // The row, locked: a concurrent hold of a held context waits here, then sees the holder.
      const held = (await client.query<{ campaign_id: string }>(`${HOLDER_SQL} FOR UPDATE`, [contextId])).rows[0]?.campaign_id;
      if (held !== undefined) return held === campaignId ? null : held;
      await client.query(DROP_OTHERS_SQL, [campaignId, contextId]);
      await client.query(TAKE_SQL, [contextId, campaignId]);
      // Two first holds at once: the loser's insert waited on the winner's key, then did nothing.
      // It rolls back, so the context it let go above stays its own.
      const now = (await client.query<{ campaign_id: string }>(HOLDER_SQL, [contextId])).rows[0]?.campaign_id;
      if (now !== undefined && now !== campaignId) throw new TakenMeanwhile(now);
      return null;
    });
  } catch (error) {
    if (error instanceof TakenMeanwhile) return error.holder;
    throw error;
  }
}

class TakenMeanwhile extends Error {
  constructor(readonly holder: string) {
    super(`context held by ${holder}`);
  }
}

/** Where `campaignId` stands now: holding `contextId` (never taken from another campaign), or nothing. */
export async function settleContext(db: Database, campaignId: string, contextId: string | null): Promise<void> {
  if (contextId === null) {
    await db.pool.query('DELETE FROM context_controllers WHERE campaign_id = $1', [campaignId]);
    return;
  }
  await inTransaction(db, async (client) => {
    await client.query(DROP_OTHERS_SQL, [campaignId, contextId]);
    await client.query(TAKE_SQL, [contextId, campaignId]);
  });
}
