/**
 * Per-campaign ownership on a real PostgreSQL (persistence/postgres/campaign-ownership.ts):
 * the fence goes up on every claim and takeover, renewal matches (campaign, fence, holder) and
 * nothing else, a right not renewed is reported lost before its row expires, renewal is one
 * statement per beat whatever the number of campaigns, and of two replicas claiming one
 * campaign at once exactly one wins. Each replica has its own pool (its own connections).
 */
import { describe, expect, it, vi } from 'vitest';
import { WHOLE_STATE_ROOT, type HostingRight } from '../../../persistence/ownership.js';
import type { CampaignOwnership } from '../../../persistence/postgres/campaign-ownership.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
/** Short times so a takeover happens within a test: lost locally at 600 ms, row expires at 2000 ms (a wide margin on a loaded machine). */
const SHORT = { ttlMs: 2_000, renewEveryMs: 300, renewDeadlineMs: 600, autoBeat: false } as const;

async function claimed(replica: CampaignOwnership, campaignId: string): Promise<HostingRight> {
  const right = await replica.claim({ kind: 'campaign', campaignId });
  if (!right.ok) throw new Error(`${right.code}: ${right.message}`);
  return right;
}

async function ownerRow(campaignId: string) {
  const client = await sharedClient();
  const r = await client.query<{ holder: string | null; fence: string; live: boolean; expires_at: Date }>(
    'SELECT holder, fence::text AS fence, expires_at > now() AS live, expires_at FROM campaign_owner WHERE campaign_id = $1',
    [campaignId],
  );
  return r.rows[0]!;
}

let clientPromise: ReturnType<typeof pgf.client> | null = null;
const sharedClient = () => (clientPromise ??= pgf.client());

/** Claims until it wins (the old row must expire first), bounded. */
async function takeOver(replica: CampaignOwnership, campaignId: string, withinMs = 4_000): Promise<HostingRight> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const right = await replica.claim({ kind: 'campaign', campaignId });
    if (right.ok) return right;
    expect(right.code).toBe('campaign_hosted_elsewhere');
  }
  throw new Error(`${replica.replicaId} could not take ${campaignId} over within ${withinMs} ms`);
}

describe('claim and the fence', () => {
  it('a first claim gets fence 1; a live right is not taken; release keeps the fence and the next claim gets a greater one', async () => {
    const a = await pgf.replica(SHORT);
    const b = await pgf.replica(SHORT);
    const first = await claimed(a, 'fresh');
    expect(first.fence).toBe(1);
    expect(a.fenceFor('fresh')).toBe(1);
    const refused = await b.claim({ kind: 'campaign', campaignId: 'fresh' });
    expect(refused).toMatchObject({ ok: false, code: 'campaign_hosted_elsewhere' });
    expect(!refused.ok && refused.message).toContain(a.replicaId);
    expect(await a.claim(WHOLE_STATE_ROOT)).toMatchObject({ ok: false, code: 'scope_unsupported' });
    expect(await a.claim({ kind: 'campaign', campaignId: '../x' })).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    await first.release();
    expect(first.lost).toBe(true);
    expect(a.fenceFor('fresh')).toBeNull();
    expect(await ownerRow('fresh')).toMatchObject({ holder: null, fence: '1' });
    const second = await claimed(b, 'fresh');
    expect(second.fence).toBe(2);
  });

  it('takeover: a right not renewed is lost (onLost) before its row expires, and the taker gets fence + 1', async () => {
    const a = await pgf.replica(SHORT);
    const b = await pgf.replica(SHORT);
    const right = await claimed(a, 'taken');
    const lost = new Promise<{ reason: string; row: Awaited<ReturnType<typeof ownerRow>> }>((resolve) =>
      right.onLost((reason) => void ownerRow('taken').then((row) => resolve({ reason, row }))),
    );
    const seen = await lost;
    expect(seen.reason).toContain('not renewed by its deadline');
    // Reported while the database still shows the row as ours and unexpired: nobody could have taken it yet.
    expect(seen.row).toMatchObject({ holder: a.replicaId, fence: '1', live: true });
    expect(a.fenceFor('taken')).toBeNull();
    expect(await a.verify('taken', 1)).toMatchObject({ ok: false, code: 'fence_stale' });
    const taker = await takeOver(b, 'taken');
    expect(taker.fence).toBe(2);
    expect(await ownerRow('taken')).toMatchObject({ holder: b.replicaId, fence: '2', live: true });
    // The old right never renews back, and asking does not touch the winner's row.
    const before = (await ownerRow('taken')).expires_at.getTime();
    expect(await right.renew()).toMatchObject({ ok: false, code: 'hosting_lost' });
    expect((await ownerRow('taken')).expires_at.getTime()).toBe(before);
  });
  it('a database that stops answering: renew is unanswered (not lost), then the right is lost at its deadline, before its row expires', async () => {
    const db = await pgf.db();
    const a = await pgf.replica(SHORT, db);
    // The deadline counts from the claim's send: taken before the claim, not after its answer (slow on a loaded machine).
    const claimedAt = Date.now();
    const right = await claimed(a, 'outage');
    let lostAt = 0;
    right.onLost(() => (lostAt = Date.now()));
    // This replica's own connections go away (its pool ends); the database itself stays up.
    await db.pool.end();
    expect(await right.renew()).toMatchObject({ ok: false, code: 'renew_unanswered' });
    expect(right.lost).toBe(false);
    expect(a.fenceFor('outage')).toBe(1);
    for (const deadline = Date.now() + 3_000; lostAt === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(lostAt - claimedAt).toBeGreaterThanOrEqual(SHORT.renewDeadlineMs - 50);
    expect(a.fenceFor('outage')).toBeNull();
    expect(await ownerRow('outage')).toMatchObject({ holder: a.replicaId, fence: '1', live: true });
  });
});

describe('renewal matches (campaign, fence, holder), never the id alone', () => {
  it('a row with the same holder but another fence, or the same fence but another holder, is not renewed: the right is lost', async () => {
    const a = await pgf.replica({ ...SHORT, renewDeadlineMs: 900, ttlMs: 5_000 });
    const fenceMoved = await claimed(a, 'moved-fence');
    const holderMoved = await claimed(a, 'moved-holder');
    const kept = await claimed(a, 'kept');
    const client = await sharedClient();
    await client.query(`UPDATE campaign_owner SET fence = fence + 1 WHERE campaign_id = 'moved-fence'`);
    await client.query(`UPDATE campaign_owner SET holder = 'another-replica' WHERE campaign_id = 'moved-holder'`);
    const expiry = async () => {
      const rows: Record<string, number> = {};
      for (const id of ['moved-fence', 'moved-holder', 'kept']) rows[id] = (await ownerRow(id)).expires_at.getTime();
      return rows;
    };
    const before = await expiry();
    const lostReasons: string[] = [];
    fenceMoved.onLost((r) => lostReasons.push(r));
    holderMoved.onLost((r) => lostReasons.push(r));
    await new Promise((r) => setTimeout(r, 20));
    expect(await a.beat()).toEqual({ renewed: 1, lost: 2, answered: true });
    expect(lostReasons).toHaveLength(2);
    expect(fenceMoved.lost && holderMoved.lost && !kept.lost).toBe(true);
    const after = await expiry();
    expect(after['moved-fence']).toBe(before['moved-fence']);
    expect(after['moved-holder']).toBe(before['moved-holder']);
    expect(after.kept!).toBeGreaterThan(before.kept!);
    expect(await kept.renew()).toEqual({ ok: true });
    expect(a.hosted()).toEqual(['kept']);
  });

  it('one beat renews every right of the replica in one statement (plus its heartbeat), not one per campaign', async () => {
    const db = await pgf.db();
    const a = await pgf.replica({ ...SHORT, ttlMs: 5_000, renewDeadlineMs: 3_000 }, db);
    const ids = Array.from({ length: 40 }, (_, i) => `batch-${String(i).padStart(2, '0')}`);
    for (const id of ids) await claimed(a, id);
    const client = await sharedClient();
    const oldest = async () => (await client.query<{ t: Date }>(`SELECT min(expires_at) AS t FROM campaign_owner WHERE campaign_id LIKE 'batch-%'`)).rows[0]!.t.getTime();
    const heartbeat = async () => (await client.query<{ t: Date }>('SELECT heartbeat_at AS t FROM replicas WHERE replica_id = $1', [a.replicaId])).rows[0]!.t.getTime();
    const [expiresBefore, beatBefore] = [await oldest(), await heartbeat()];
    const spy = vi.spyOn(db.pool, 'query');
    try {
      expect(await a.beat()).toEqual({ renewed: 40, lost: 0, answered: true });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
    expect(await oldest()).toBeGreaterThan(expiresBefore);
    expect(await heartbeat()).toBeGreaterThan(beatBefore);
  });
});

describe('racing claims', () => {
  it('two replicas claiming the same campaigns at once: exactly one wins each, fence 1; racing for an expired one: one wins, fence 2', async () => {
    const a = await pgf.replica(SHORT);
    const b = await pgf.replica(SHORT);
    const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    const results = await Promise.all(ids.flatMap((id) => [a.claim({ kind: 'campaign', campaignId: id }), b.claim({ kind: 'campaign', campaignId: id })]));
    for (let i = 0; i < ids.length; i++) {
      const pair = [results[2 * i]!, results[2 * i + 1]!];
      const winners = pair.filter((r) => r.ok) as HostingRight[];
      expect(winners).toHaveLength(1);
      expect(winners[0]!.fence).toBe(1);
      expect(pair.find((r) => !r.ok)).toMatchObject({ code: 'campaign_hosted_elsewhere' });
      const row = await ownerRow(ids[i]!);
      expect(row.holder).toBe(pair[0]!.ok ? a.replicaId : b.replicaId);
    }
    // A third replica's right lapses; the two race to take it over.
    const c = await pgf.replica(SHORT);
    await claimed(c, 'orphan');
    await new Promise((r) => setTimeout(r, SHORT.ttlMs + 100));
    expect((await ownerRow('orphan')).live).toBe(false);
    const takeovers = await Promise.all([a.claim({ kind: 'campaign', campaignId: 'orphan' }), b.claim({ kind: 'campaign', campaignId: 'orphan' })]);
    expect(takeovers.filter((r) => r.ok)).toHaveLength(1);
    expect((takeovers.find((r) => r.ok) as HostingRight).fence).toBe(2);
    expect(c.fenceFor('orphan')).toBeNull();
  });

  it('batch claims (claimMany): three replicas grabbing overlapping batches at once win disjoint sets covering every free campaign, live rows are skipped, no deadlock', async () => {
    const [a, b, c] = await Promise.all([pgf.replica(SHORT), pgf.replica(SHORT), pgf.replica(SHORT)]);
    const ids = Array.from({ length: 60 }, (_, i) => `many-${String(i).padStart(2, '0')}`);
    const held = await claimed(c, 'many-00');
    // Overlapping, in different orders: a deadlock would fail one statement (40P01) and throw here.
    const [wa, wb, wc] = await Promise.all([a.claimMany(ids), b.claimMany([...ids].reverse()), c.claimMany(ids.slice(30))]);
    const won = [wa!, wb!, wc!].map((rights) => rights.map((r) => (r.scope.kind === 'campaign' ? r.scope.campaignId : '')));
    const all = won.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(ids.slice(1));
    for (const right of [...wa!, ...wb!, ...wc!]) expect(right.fence).toBe(1);
    expect(c.fenceFor('many-00')).toBe(held.fence);
    expect(a.fenceFor(won[0]![0] ?? 'none') ?? 1).toBe(1);
    // Claimed again after a release: a greater fence.
    await wa![0]?.release();
    if (wa![0]) expect((await b.claimMany([won[0]![0]!]))[0]?.fence).toBe(2);
  });
});
