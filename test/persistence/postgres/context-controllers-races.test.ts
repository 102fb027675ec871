/**
 * `context_controllers` under the races a hostile review found (persistence/postgres/context-controllers.ts,
 * services/runtime/replica-contexts.ts), on the real database: a reclaim never reads past a
 * document write of the holder in flight; a settle that finds another campaign holding its
 * context says so (`context_conflict`) and a hold in that state is refused; a context transaction
 * waiting on a context row gives up within CONTEXT_LOCK_TIMEOUT_MS, so the replica's beat is never
 * kept waiting behind it; a hold whose answer was lost lets the next settle write; a settle that
 * ran out of attempts is written again (`rewriteUnwritten`), until written or refused as stale.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../persistence/postgres/database.js';
import { CONTEXT_LOCK_TIMEOUT_MS } from '../../../persistence/postgres/context-controllers.js';
import { DatabaseContextIndex } from '../../../services/runtime/replica-contexts.js';
import { captureLogs } from '../../fixtures/log-capture.js';
import { own as ownRow, Writer } from './support/context-owners.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
beforeAll(() => pgf.db());
let shared: ReturnType<typeof pgf.client> | null = null;
const sql = async (text: string, values: unknown[] = []) => (await (shared ??= pgf.client())).query(text, values);

const own = (writer: Writer, campaignId: string, fence: number, live = true) => ownRow(sql, writer, campaignId, fence, live);

const storeChart = (campaignId: string, authority: string, contextId: string | null) =>
  sql('INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ($1, $2, 1) ON CONFLICT (campaign_id) DO UPDATE SET document = EXCLUDED.document', [
    campaignId,
    JSON.stringify({ campaignId, machine: { version: 'x', snapshot: { status: 'active', value: { active: { authority, attention: 'idle', heartbeat: 'idle' } }, context: { lease: contextId === null ? null : { contextId } } } } }),
  ]);
const holderOf = async (contextId: string) => (await sql('SELECT campaign_id FROM context_controllers WHERE context_id = $1', [contextId])).rows[0]?.campaign_id as string | undefined;
const FAST = { retryMs: [10, 10, 10] };

/** `db`'s connections fail while `down()` (a blip), or lose the COMMIT's answer once `loseCommit` is set. */
function flaky(db: Database, down: () => boolean, loseCommit: { once: boolean }): void {
  const connect = db.pool.connect.bind(db.pool) as () => Promise<{ query: (...x: unknown[]) => Promise<unknown>; release: (e?: unknown) => void }>;
  Object.assign(db.pool, {
    connect: async () => {
      if (down()) throw new Error('connect ECONNREFUSED');
      const client = await connect();
      return {
        release: (e?: unknown) => client.release(e),
        query: async (...args: unknown[]) => {
          const result = await client.query(...args);
          if (args[0] === 'COMMIT' && loseCommit.once) {
            loseCommit.once = false;
            throw new Error('Connection terminated unexpectedly');
          }
          return result;
        },
      };
    },
  });
}

describe('context controllers under races', () => {
  it("a reclaim never reads past the holder's document write in flight (owner row FOR SHARE, document FOR UPDATE)", async () => {
    const wh = new Writer('race-h');
    const wk = new Writer('race-k');
    await own(wk, 'k1', 1);
    const taker = new DatabaseContextIndex(await pgf.db(), wk, captureLogs().logger);
    // h1 held ctx-r1 at fence 1; its right has expired, its stored chart is observing: reclaimable...
    await own(wh, 'h1', 1, false);
    await storeChart('h1', 'observing', null);
    await sql("INSERT INTO context_controllers (context_id, campaign_id, fence) VALUES ('ctx-r1', 'h1', 1)");
    const writer = await pgf.client();
    // ...but a document write of h1 is in flight (as campaign-documents.ts: owner row FOR SHARE, then the document FOR UPDATE).
    for (const locks of [
      ["SELECT 1 FROM campaign_owner WHERE campaign_id = 'h1' FOR SHARE", "SELECT 1 FROM campaign_documents WHERE campaign_id = 'h1' FOR UPDATE"],
      ["SELECT 1 FROM campaign_owner WHERE campaign_id = 'h1' FOR SHARE"],
      ["SELECT 1 FROM campaign_documents WHERE campaign_id = 'h1' FOR UPDATE"],
    ]) {
      await writer.query('BEGIN');
      for (const lock of locks) await writer.query(lock);
      const started = Date.now();
      expect(await taker.hold('ctx-r1', 'k1'), locks.join(' + ')).toBe('h1');
      expect(Date.now() - started).toBeLessThan(CONTEXT_LOCK_TIMEOUT_MS);
      await writer.query('ROLLBACK');
    }
    // The write committed "controlling ctx-r1": it stands for good. Had it not, the row is reclaimed.
    await storeChart('h1', 'controlling', 'ctx-r1');
    expect(await taker.hold('ctx-r1', 'k1')).toBe('h1');
    await storeChart('h1', 'observing', null);
    expect(await taker.hold('ctx-r1', 'k1')).toBeNull();
  });

  it('a settle that finds another campaign holding its context is reported (context_conflict) and a hold then is refused', async () => {
    const wh = new Writer('conflict-h');
    const wk = new Writer('conflict-k');
    await own(wh, 'h2', 2);
    await own(wk, 'k2', 1);
    await sql("INSERT INTO context_controllers (context_id, campaign_id, fence) VALUES ('ctx-c', 'k2', 1)");
    const logs = captureLogs();
    const index = new DatabaseContextIndex(await pgf.db(), wh, logs.logger, FAST);
    // h2's restored chart controls ctx-c (its row was reclaimed meanwhile): nothing taken, reported.
    index.settle('h2', 'ctx-c');
    await index.settled();
    expect(await holderOf('ctx-c')).toBe('k2');
    const conflict = logs.lines.find((l) => l.includes('context_conflict'));
    expect(conflict).toBeDefined();
    expect(JSON.parse(conflict!)).toMatchObject({ level: 50, holder: 'k2' });
    expect(await index.hold('ctx-c', 'h2')).toBe('k2');
  });

  it('a context transaction waiting on a context row gives up within the lock timeout; the beat is never kept waiting behind it', async () => {
    const wk = new Writer('wait-k');
    await own(wk, 'k3', 1);
    await own(wk, 'k3b', 1);
    const index = new DatabaseContextIndex(await pgf.db(), wk, captureLogs().logger, { retryMs: [10, 10, 10, 10, 10] });
    await sql("INSERT INTO context_controllers (context_id, campaign_id, fence) VALUES ('ctx-w', 'paused', 1)");
    // A paused replica holds ctx-w's row (in a context transaction of its own).
    const paused = await pgf.client();
    await paused.query('BEGIN');
    await paused.query("SELECT 1 FROM context_controllers WHERE context_id = 'ctx-w' FOR UPDATE");
    const started = Date.now();
    const hold = index.hold('ctx-w', 'k3').then(() => 'answered', (e: Error) => e.message);
    // This replica's beat (an UPDATE of its rights) while the hold waits: not kept behind k3's owner row.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const beat = await pgf.client();
    await beat.query("SET lock_timeout = '3s'");
    const renewed = await beat.query("UPDATE campaign_owner SET expires_at = now() + interval '1 hour' WHERE campaign_id IN ('k3', 'k3b')");
    expect(renewed.rowCount).toBe(2);
    expect(await hold).toContain('lock timeout');
    expect(Date.now() - started).toBeLessThan(CONTEXT_LOCK_TIMEOUT_MS * 3);
    await paused.query('ROLLBACK');
    // A settle under the same wait is retried, and written once the lock is gone.
    await sql("INSERT INTO context_controllers (context_id, campaign_id, fence) VALUES ('ctx-w3', 'k3b', 1)");
    await paused.query('BEGIN');
    await paused.query("SELECT 1 FROM context_controllers WHERE context_id = 'ctx-w3' FOR UPDATE");
    index.settle('k3b', null);
    await new Promise((resolve) => setTimeout(resolve, CONTEXT_LOCK_TIMEOUT_MS * 1.5));
    await paused.query('ROLLBACK');
    await index.settled();
    expect(await holderOf('ctx-w3')).toBeUndefined();
  });

  it('a hold whose commit answer was lost: the claim fails closed and the next settle lets the context go', async () => {
    const w = new Writer('lost-h');
    await own(w, 'h4', 1);
    const db = await pgf.db();
    const lose = { once: false };
    flaky(db, () => false, lose);
    const index = new DatabaseContextIndex(db, w, captureLogs().logger, FAST);
    index.settle('h4', null);
    await index.settled();
    lose.once = true;
    await expect(index.hold('ctx-l', 'h4')).rejects.toThrow('Connection terminated');
    expect(await holderOf('ctx-l')).toBe('h4'); // it did commit
    index.settle('h4', null);
    await index.settled();
    expect(await holderOf('ctx-l')).toBeUndefined();
  });

  it('a settle that ran out of attempts is written again (rewriteUnwritten) until written; one refused as stale is not', async () => {
    const w = new Writer('rewrite-h');
    await own(w, 'h5', 1);
    await own(w, 'h6', 1);
    const db = await pgf.db();
    let down = false;
    flaky(db, () => down, { once: false });
    const logs = captureLogs();
    const index = new DatabaseContextIndex(db, w, logs.logger, FAST);
    expect(await index.hold('ctx-u5', 'h5')).toBeNull();
    expect(await index.hold('ctx-u6', 'h6')).toBeNull();
    down = true;
    index.settle('h5', null);
    index.settle('h6', null);
    await index.settled();
    expect(logs.lines.filter((l) => l.includes('context_settle_failed'))).toHaveLength(2);
    down = false;
    // h6 moved to another replica meanwhile: its rewrite is refused (stale) and dropped.
    await own(new Writer('rewrite-other'), 'h6', 2);
    index.rewriteUnwritten();
    await index.settled();
    expect(await holderOf('ctx-u5')).toBeUndefined();
    expect(await holderOf('ctx-u6')).toBe('h6');
    expect(logs.lines.filter((l) => l.includes('context_settle_refused'))).toHaveLength(1);
    index.rewriteUnwritten();
    await index.settled();
    expect(logs.lines.filter((l) => l.includes('context_settle_refused'))).toHaveLength(1);
  });
});
