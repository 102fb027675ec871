/**
 * Campaign documents in a real PostgreSQL (persistence/postgres/campaign-documents.ts): the
 * round trip of everything a document carries (intent journal, outbox, idempotency answers),
 * the file store's refusals with the same codes, and the fence: a write is refused
 * `fence_stale` and changes nothing once the right is gone — also while a takeover is still
 * uncommitted on another connection (the write waits on the ownership row, then sees the new
 * fence).
 */
import { describe, expect, it } from 'vitest';
import { CAMPAIGN_MACHINE_VERSION } from '../../../machines/campaign.version.js';
import type { CampaignDocuments, StoreWrite } from '../../../persistence/campaign-store.js';
import { digestKey, digestRequest } from '../../../persistence/idempotency.js';
import { rememberAnswer } from '../../../persistence/idempotency.js';
import { recordIntent } from '../../../persistence/intent-journal.js';
import { appendPublicEvents } from '../../../persistence/outbox.js';
import type { HostingRight } from '../../../persistence/ownership.js';
import { postgresCampaignDocuments } from '../../../persistence/postgres/campaign-documents.js';
import type { CampaignOwnership } from '../../../persistence/postgres/campaign-ownership.js';
import { intentDraft, makeDoc, T0 } from '../support/documents.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();

async function replicaWithStore(options: { ttlMs?: number; renewDeadlineMs?: number; renewEveryMs?: number; autoBeat?: boolean } = {}) {
  const db = await pgf.db();
  const replica = await pgf.replica({ ttlMs: 10_000, ...options }, db);
  const writes: StoreWrite[] = [];
  const store = postgresCampaignDocuments({ db, fence: replica, onWrite: (w) => writes.push(w), machineVersionKnown: (v) => v === CAMPAIGN_MACHINE_VERSION });
  return { db, replica, store, writes };
}

async function claimed(replica: CampaignOwnership, campaignId: string): Promise<HostingRight> {
  const right = await replica.claim({ kind: 'campaign', campaignId });
  if (!right.ok) throw new Error(`${right.code}: ${right.message}`);
  return right;
}

const objectiveOf = async (store: CampaignDocuments, id: string) => {
  const loaded = await store.load(id);
  if (!loaded.ok) throw new Error(`${loaded.code}: ${loaded.reason}`);
  return loaded.doc.objective;
};

describe('round trip', () => {
  it('create, load, transact and list keep the document exactly, with its journal, outbox and idempotency answers', async () => {
    const { store, replica, writes } = await replicaWithStore();
    await claimed(replica, 'rt-1');
    await claimed(replica, 'rt-2');
    const doc = makeDoc('rt-1', { objective: 'fine-tune \u0000 with a NUL and ünïcödé' });
    expect(await store.create(doc)).toMatchObject({ ok: true, written: true });
    expect(await store.create(makeDoc('rt-2'))).toMatchObject({ ok: true });
    expect(await store.load('rt-1')).toEqual({ id: 'rt-1', ok: true, doc });
    const answer = { ok: true as const, value: { accepted: true } };
    const changed = await store.transact('rt-1', (d) => {
      const journaled = recordIntent(d, intentDraft('req-1'));
      if (!journaled.ok) throw new Error(journaled.reason);
      const { doc: withEvent } = appendPublicEvents(journaled.doc, [{ kind: 'NEEDS_YOU', dedupeKey: 'q1', summary: 'A question' }], T0);
      return { ...withEvent, idempotency: rememberAnswer(withEvent.idempotency, { keyDigest: digestKey('k1'), requestDigest: digestRequest('/x', {}), answer, at: T0 }) };
    });
    expect(changed).toMatchObject({ ok: true, written: true });
    const loaded = await store.load('rt-1');
    expect(loaded.ok && loaded.doc).toEqual(changed.ok && changed.doc);
    expect(loaded.ok && [loaded.doc.intents.map((i) => i.requestId), loaded.doc.outbox.events.map((e) => e.id), loaded.doc.idempotency[0]?.answer]).toEqual([['req-1'], ['rt-1:1'], answer]);
    expect(writes.map((w) => [w.campaignId, w.kind, w.appendedEvents.map((e) => e.id)])).toEqual([['rt-1', 'create', []], ['rt-2', 'create', []], ['rt-1', 'transact', ['rt-1:1']]]);
    // No change → no write.
    expect(await store.transact('rt-1', () => null)).toMatchObject({ ok: true, written: false });
    expect(store.writes()).toBe(3);
    expect(await store.listIds()).toEqual(['rt-1', 'rt-2']);
    expect((await store.loadAll()).map((r) => [r.id, r.ok])).toEqual([['rt-1', true], ['rt-2', true]]);
  });
});

describe('refusals, with the file store codes, changing nothing', () => {
  it('exists, invalid id, invalid document, not found, a throwing transaction and a regression', async () => {
    const { store, replica } = await replicaWithStore();
    await claimed(replica, 'ref-1');
    await store.create(makeDoc('ref-1'));
    expect(await store.create(makeDoc('ref-1', { objective: 'again' }))).toMatchObject({ ok: false, code: 'campaign_exists' });
    expect(await store.load('../etc')).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    expect(await store.create(makeDoc('.hidden'))).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    expect(await store.transact('ref-1', (d) => ({ ...d, documentVersion: 7 as 2 }))).toMatchObject({ ok: false, code: 'document_invalid' });
    expect(await store.load('nobody')).toMatchObject({ ok: false, code: 'campaign_not_found' });
    await claimed(replica, 'nobody');
    expect(await store.transact('nobody', (d) => d)).toMatchObject({ ok: false, code: 'campaign_not_found' });
    expect(
      await store.transact('ref-1', () => {
        throw new Error('boom');
      }),
    ).toMatchObject({ ok: false, code: 'transaction_failed' });
    const journaled = await store.transact('ref-1', (d) => {
      const r = recordIntent(d, intentDraft('req-open'));
      return r.ok ? r.doc : null;
    });
    expect(journaled).toMatchObject({ ok: true, written: true });
    expect(await store.transact('ref-1', (d) => ({ ...d, intents: [] }))).toMatchObject({ ok: false, code: 'document_regression' });
    const kept = await store.load('ref-1');
    expect(kept.ok && [kept.doc.objective, kept.doc.intents.length]).toEqual(['fine-tune the model', 1]);
  });

  it('a stored document that fails its checks fails closed on read and is never rewritten', async () => {
    const { store, replica } = await replicaWithStore();
    const client = await pgf.client();
    const stored = {
      'bad-schema': '{"documentVersion":2,"campaignId":"bad-schema"}',
      'bad-version': '{"documentVersion":99,"campaignId":"bad-version"}',
      'bad-machine': JSON.stringify({ ...makeDoc('bad-machine'), machine: { version: 'campaign@999', snapshot: {} } }),
    };
    for (const [id, text] of Object.entries(stored)) await client.query('INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ($1, $2, 1)', [id, text]);
    expect(await store.load('bad-schema')).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(await store.load('bad-version')).toMatchObject({ ok: false, code: 'document_version_unknown' });
    expect(await store.load('bad-machine')).toMatchObject({ ok: false, code: 'machine_version_unknown' });
    for (const id of Object.keys(stored)) {
      await claimed(replica, id);
      expect(await store.transact(id, (d) => ({ ...d, objective: 'overwritten' }))).toMatchObject({ ok: false });
    }
    const after = await client.query<{ campaign_id: string; text: string }>(`SELECT campaign_id, document::text AS text FROM campaign_documents WHERE campaign_id LIKE 'bad-%'`);
    expect(Object.fromEntries(after.rows.map((r) => [r.campaign_id, r.text]))).toEqual(stored);
  });
});

describe('the fence on every write', () => {
  it('no right, a released right, a right lost by its deadline, a committed takeover, an expired row: fence_stale, nothing changes', async () => {
    const { store, replica } = await replicaWithStore({ ttlMs: 1_200, renewDeadlineMs: 600, renewEveryMs: 300, autoBeat: false });
    const client = await pgf.client();
    expect(await store.create(makeDoc('never-claimed'))).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(await store.load('never-claimed')).toMatchObject({ code: 'campaign_not_found' });
    const released = await claimed(replica, 'f-released');
    await store.create(makeDoc('f-released'));
    await released.release();
    expect(await store.transact('f-released', (d) => ({ ...d, objective: 'after release' }))).toMatchObject({ ok: false, code: 'fence_stale' });
    // A committed takeover by another holder at a greater fence.
    await claimed(replica, 'f-taken');
    await store.create(makeDoc('f-taken'));
    await client.query(`UPDATE campaign_owner SET holder = 'replica-b', fence = fence + 1 WHERE campaign_id = 'f-taken'`);
    const refused = await store.transact('f-taken', (d) => ({ ...d, objective: 'stale write' }));
    expect(refused).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(!refused.ok && refused.reason).toContain('fence 2');
    // The row expired in the database (set by hand here) while the local right still looked alive.
    await claimed(replica, 'f-expired');
    await store.create(makeDoc('f-expired'));
    await client.query(`UPDATE campaign_owner SET expires_at = now() - interval '1 second' WHERE campaign_id = 'f-expired'`);
    expect(await store.transact('f-expired', (d) => ({ ...d, objective: 'late' }))).toMatchObject({ ok: false, code: 'fence_stale' });
    // Lost by its deadline (no beat): refused before any round trip.
    await claimed(replica, 'f-lapsed');
    await store.create(makeDoc('f-lapsed'));
    await new Promise((r) => setTimeout(r, 700));
    expect(await store.transact('f-lapsed', (d) => ({ ...d, objective: 'lapsed' }))).toMatchObject({ ok: false, code: 'fence_stale' });
    for (const id of ['f-released', 'f-taken', 'f-expired', 'f-lapsed']) expect(await objectiveOf(store, id)).toBe('fine-tune the model');
  });

  it('a write while a takeover is uncommitted on another connection waits for it, then is refused fence_stale', async () => {
    const { store, replica } = await replicaWithStore();
    await claimed(replica, 'u-1');
    await store.create(makeDoc('u-1'));
    const taker = await pgf.client();
    const observer = await pgf.client();
    const takerPid = (await taker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await taker.query('BEGIN');
    await taker.query(`UPDATE campaign_owner SET holder = 'replica-b', fence = fence + 1, expires_at = now() + interval '30 seconds' WHERE campaign_id = 'u-1'`);
    let settled = false;
    const write = store.transact('u-1', (d) => ({ ...d, objective: 'stale write during takeover' })).finally(() => (settled = true));
    // Wait (bounded) until the database shows a connection blocked by the takeover: the write's.
    // (Blocked by the taker only: other test files share the database and may wait on locks of their own.)
    let waiting = 0;
    for (const deadline = Date.now() + 2_000; waiting === 0 && !settled && Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      const r = await observer.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(pid))`, [takerPid]);
      waiting = Number(r.rows[0]!.n);
    }
    const settledBeforeCommit = settled;
    await taker.query('COMMIT');
    const result = await write;
    expect(result).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(!result.ok && result.reason).toContain('fence 2');
    expect([waiting, settledBeforeCommit]).toEqual([1, false]);
    expect(await objectiveOf(store, 'u-1')).toBe('fine-tune the model');
    const row = await observer.query<{ fence: string }>(`SELECT fence::text AS fence FROM campaign_documents WHERE campaign_id = 'u-1'`);
    expect(row.rows[0]!.fence).toBe('1');
  });
});
