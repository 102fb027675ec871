/**
 * The command relay (persistence/postgres/command-relay.ts) on a real PostgreSQL: two or three
 * relays in this process, each with its own pool and LISTEN connection and its own replica id,
 * stand for replicas. A command sent by one reaches the campaign's owner and comes back with its
 * answer; no owner, or no answer in time, is `owner_unavailable`, and a late owner then does not
 * run it; duplicate NOTIFYs (and two listeners of one replica id) run a command once; a row
 * addressed to an older fence is refused without running; a listener whose backend is
 * terminated reconnects and nothing waits on the lost NOTIFY; public-event notices reach every
 * replica; a hostile or oversized request is refused before any row is written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CampaignOwnership } from '../../../persistence/postgres/campaign-ownership.js';
import { DEFAULT_MAX_REQUEST_BYTES, openCommandRelay, type CommandRelay, type CommandRelayOptions, type EventsNotice } from '../../../persistence/postgres/command-relay.js';
import { commandChannel, eventsChannel } from '../../../persistence/postgres/relay-sql.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
type Req = { key?: string; text?: string; n?: number };
type Ans = { by: string; got: Req; campaignId: string };
type Relay = CommandRelay<Req, Ans>;

const opened: Relay[] = [];
afterEach(async () => {
  for (const relay of opened.splice(0)) await relay.close();
});

let clientPromise: ReturnType<typeof pgf.client> | null = null;
const sql = () => (clientPromise ??= pgf.client());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A relay for a replica; `calls` counts the owner's runs. */
async function relayFor(owner: CampaignOwnership | { replicaId: string; fenceFor(id: string): number | null }, extra: Partial<CommandRelayOptions<Req, Ans>> & { delayMs?: number } = {}) {
  const calls: { campaignId: string; request: Req }[] = [];
  const relay = await openCommandRelay<Req, Ans>({
    db: await pgf.db(),
    replicaId: owner.replicaId,
    fenceFor: (id) => owner.fenceFor(id),
    onCommand: async (campaignId, request) => {
      calls.push({ campaignId, request });
      if (extra.delayMs) await sleep(extra.delayMs);
      return { by: owner.replicaId, got: request, campaignId };
    },
    ...extra,
  });
  opened.push(relay);
  return { relay, calls };
}

async function owning(campaignId: string): Promise<CampaignOwnership> {
  const replica = await pgf.replica();
  const right = await replica.claim({ kind: 'campaign', campaignId });
  if (!right.ok) throw new Error(`${right.code}: ${right.message}`);
  return replica;
}

async function rows(campaignId: string) {
  const client = await sql();
  const r = await client.query<{ id: string; target_replica: string; fence: string; claimed: boolean; answered: boolean; abandoned: boolean }>(
    'SELECT id::text AS id, target_replica, fence::text AS fence, claimed_at IS NOT NULL AS claimed, answered_at IS NOT NULL AS answered, abandoned FROM campaign_commands WHERE campaign_id = $1 ORDER BY id',
    [campaignId],
  );
  return r.rows;
}

/** Bounded wait for a condition. */
async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, withinMs = 5_000): Promise<T> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await sleep(20)) {
    const value = await probe();
    if (value) return value;
  }
  throw new Error(`${what} did not happen within ${withinMs} ms`);
}

const notify = async (channel: string, payload: string) => (await sql()).query('SELECT pg_notify($1, $2)', [channel, payload]);

describe('delivery', () => {
  it("a command sent from another replica runs on the owner and comes back with the owner's answer", async () => {
    const a = await owning('deliver');
    const owner = await relayFor(a);
    const sender = await relayFor({ replicaId: 'sender-1', fenceFor: () => null });
    const request = { key: 'idem-1', text: 'pause' };
    const result = await sender.relay.send('deliver', request, { timeoutMs: 5_000 });
    expect(result).toEqual({ ok: true, answer: { by: a.replicaId, got: request, campaignId: 'deliver' } });
    expect(owner.calls).toEqual([{ campaignId: 'deliver', request }]);
    expect(sender.calls).toEqual([]);
    expect(await rows('deliver')).toEqual([expect.objectContaining({ target_replica: a.replicaId, fence: '1', claimed: true, answered: true, abandoned: false })]);
  });

  it('the same Idempotency-Key through two replicas is two rows, both delivered unchanged to the one owner (whose gate dedups)', async () => {
    const a = await owning('two-doors');
    const owner = await relayFor(a);
    const b = await relayFor({ replicaId: 'door-b', fenceFor: () => null });
    const c = await relayFor({ replicaId: 'door-c', fenceFor: () => null });
    const request = { key: 'same-key', text: 'cancel' };
    const [rb, rc] = await Promise.all([b.relay.send('two-doors', request, { timeoutMs: 5_000 }), c.relay.send('two-doors', request, { timeoutMs: 5_000 })]);
    expect(rb).toMatchObject({ ok: true });
    expect(rc).toMatchObject({ ok: true });
    expect(owner.calls.map((call) => call.request)).toEqual([request, request]);
  });
});

describe('prune', () => {
  it('deletes finished rows older than the age given, never a row still in flight', async () => {
    const a = await owning('prune');
    await relayFor(a);
    const sender = await relayFor({ replicaId: 'pruner', fenceFor: () => null });
    expect(await sender.relay.send('prune', { text: 'done' }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
    const client = await sql();
    await client.query(
      `INSERT INTO campaign_commands (campaign_id, target_replica, fence, sender_replica, request, created_at, deadline)
       VALUES ('prune', 'nobody', 1, 'pruner', '{}', now() - interval '1 hour', now() + interval '1 hour')`,
    );
    expect(await sender.relay.prune(60_000)).toBe(0);
    await sleep(20);
    // Finished rows of the earlier tests in this schema go too.
    expect(await sender.relay.prune(10)).toBeGreaterThanOrEqual(1);
    expect(await rows('prune')).toEqual([expect.objectContaining({ target_replica: 'nobody', claimed: false, answered: false })]);
  });
});

describe('owner_unavailable', () => {
  it('no live owner: refused at once, no row written', async () => {
    const sender = await relayFor({ replicaId: 'lonely', fenceFor: () => null });
    const started = Date.now();
    const result = await sender.relay.send('nobody-owns', { text: 'x' }, { timeoutMs: 5_000 });
    expect(result).toMatchObject({ ok: false, code: 'owner_unavailable' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await rows('nobody-owns')).toEqual([]);
  });

  it('an owner that does not listen: owner_unavailable after the timeout, the row is abandoned, and the late owner does not run it', async () => {
    const a = await owning('late');
    const sender = await relayFor({ replicaId: 'impatient', fenceFor: () => null });
    const started = Date.now();
    const result = await sender.relay.send('late', { text: 'resume' }, { timeoutMs: 400 });
    const took = Date.now() - started;
    expect(result).toMatchObject({ ok: false, code: 'owner_unavailable' });
    expect(!result.ok && result.message).toMatch(/did not answer in time; it will not run/);
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(3_000);
    const [row] = await rows('late');
    expect(row).toMatchObject({ claimed: false, answered: false, abandoned: true });
    // The owner comes up: its start-up sweep and a duplicate NOTIFY of the row both find nothing to run.
    const owner = await relayFor(a);
    await notify(commandChannel(pgf.schema, a.replicaId), `c${row!.id}`);
    // A fresh command after them is answered, so the owner was listening and sweeping meanwhile.
    expect(await sender.relay.send('late', { text: 'fresh' }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
    await sleep(200);
    expect(owner.calls.map((call) => call.request.text)).toEqual(['fresh']);
    expect((await rows('late'))[0]).toMatchObject({ claimed: false, abandoned: true });
  });

  it('a sender that shuts down while waiting abandons the row; the owner coming up before its deadline does not run it', async () => {
    const a = await owning('shutdown');
    const sender = await relayFor({ replicaId: 'leaving', fenceFor: () => null });
    const pending = sender.relay.send('shutdown', { text: 'orphan' }, { timeoutMs: 30_000 });
    await until('the command row', async () => (await rows('shutdown'))[0]);
    await sender.relay.close();
    const result = await pending;
    expect(result).toMatchObject({ ok: false, code: 'owner_unavailable' });
    expect(!result.ok && result.message).toMatch(/shut down before the owner .* it will not run/);
    // The row's deadline is 30 s away: only `abandoned` keeps the owner's sweep from running it.
    const owner = await relayFor(a);
    const other = await relayFor({ replicaId: 'staying', fenceFor: () => null });
    expect(await other.relay.send('shutdown', { text: 'fresh' }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
    await sleep(200);
    expect(owner.calls.map((call) => call.request.text)).toEqual(['fresh']);
    expect((await rows('shutdown'))[0]).toMatchObject({ claimed: false, abandoned: true });
  });

  it('an owner slower than the timeout: owner_unavailable saying the outcome is unknown (it started), never run again', async () => {
    const a = await owning('slow');
    const owner = await relayFor(a, { delayMs: 800 });
    const sender = await relayFor({ replicaId: 'hurried', fenceFor: () => null });
    const result = await sender.relay.send('slow', { key: 'k-slow' }, { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, code: 'owner_unavailable' });
    expect(!result.ok && result.message).toMatch(/after it started; its outcome is unknown/);
    const done = await until('the slow answer', async () => (await rows('slow'))[0]?.answered && (await rows('slow'))[0]);
    expect(done).toMatchObject({ claimed: true, answered: true, abandoned: true });
    expect(owner.calls).toHaveLength(1);
  });
});

describe('at most once', () => {
  it('duplicate NOTIFYs and two listeners of the same replica id run the command once', async () => {
    const a = await owning('dup');
    // Two relays under one replica id (a restarted process overlapping its predecessor): both hear every NOTIFY.
    const first = await relayFor(a, { delayMs: 300 });
    const second = await relayFor(a, { delayMs: 300 });
    const sender = await relayFor({ replicaId: 'dup-sender', fenceFor: () => null });
    const pending = sender.relay.send('dup', { text: 'once' }, { timeoutMs: 5_000 });
    const row = await until('the command row', async () => (await rows('dup'))[0]);
    const channel = commandChannel(pgf.schema, a.replicaId);
    for (let i = 0; i < 5; i++) await notify(channel, `c${row.id}`);
    expect(await pending).toMatchObject({ ok: true, answer: { got: { text: 'once' } } });
    for (let i = 0; i < 3; i++) await notify(channel, `c${row.id}`);
    await sleep(300);
    expect(first.calls.length + second.calls.length).toBe(1);
  });
});

describe('fence', () => {
  it("a command addressed to an older fence is refused (owner_changed) and does not run", async () => {
    const a = await pgf.replica();
    const first = await a.claim({ kind: 'campaign', campaignId: 'refenced' });
    expect(first).toMatchObject({ ok: true, fence: 1 });
    const sender = await relayFor({ replicaId: 'fence-sender', fenceFor: () => null });
    // Addressed to fence 1 while the owner does not listen yet…
    const pending = sender.relay.send('refenced', { text: 'stop' }, { timeoutMs: 5_000 });
    const row = await until('the command row', async () => (await rows('refenced'))[0]);
    expect(row).toMatchObject({ fence: '1', target_replica: a.replicaId });
    // …then the same replica releases and claims again (fence 2) and starts listening: its sweep finds the row.
    if (first.ok) await first.release();
    expect(await a.claim({ kind: 'campaign', campaignId: 'refenced' })).toMatchObject({ ok: true, fence: 2 });
    const again = a;
    const owner = await relayFor(again);
    const result = await pending;
    expect(result).toMatchObject({ ok: false, code: 'owner_changed' });
    expect(!result.ok && result.message).toMatch(/addressed to fence 1; replica .* holds fence 2 now; it did not run/);
    expect(owner.calls).toEqual([]);
  });
});

describe('listener reconnect', () => {
  it("both replicas' LISTEN backends terminated: they reconnect, the owner's sweep finds the command, the sender is woken on its reconnect, not by a poll", async () => {
    const a = await owning('reconnect');
    const owner = await relayFor(a, { reconnectDelayMs: 300 });
    // The sender comes back after the owner answered (its answer NOTIFY is lost too), and polls
    // only at its deadline: an answer well before the deadline came from the reconnect wake.
    const sender = await relayFor({ replicaId: 'reconnect-sender', fenceFor: () => null }, { reconnectDelayMs: 1_500, pollEveryMs: 60_000 });
    const pids = [owner.relay.listener().pid!, sender.relay.listener().pid!];
    const client = await sql();
    await client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    await until('both listeners down', () => !owner.relay.listener().listening && !sender.relay.listener().listening);
    // Sent while nobody listens on the owner's channel: that NOTIFY is lost.
    const started = Date.now();
    const result = await sender.relay.send('reconnect', { text: 'after-drop' }, { timeoutMs: 8_000 });
    expect(result).toMatchObject({ ok: true, answer: { got: { text: 'after-drop' } } });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect((await rows('reconnect'))[0]).toMatchObject({ answered: true, abandoned: false });
    expect(owner.calls).toHaveLength(1);
    for (const [relay, pid] of [[owner.relay, pids[0]], [sender.relay, pids[1]]] as const) {
      expect(relay.listener()).toMatchObject({ listening: true, reconnects: 1 });
      expect(relay.listener().pid).not.toBe(pid);
    }
  });
});

describe('public events', () => {
  it('a notice reaches every replica (the publisher marked fromSelf); malformed notices are ignored; a reconnect says gap', async () => {
    const one = await relayFor({ replicaId: 'events-1', fenceFor: () => null });
    const two = await relayFor({ replicaId: 'events-2', fenceFor: () => null });
    const heard: [string, EventsNotice][] = [];
    one.relay.onEvents((n) => heard.push(['one', n]));
    const stop = two.relay.onEvents((n) => heard.push(['two', n]));
    await notify(eventsChannel(pgf.schema), 'not json');
    await notify(eventsChannel(pgf.schema), JSON.stringify({ c: '../etc', f: 1, t: 2 }));
    await one.relay.publish('camp-e', [{ seq: 7 }, { seq: 5 }, { seq: 6 }]);
    await until('two notices', () => heard.length >= 2);
    await sleep(100);
    expect(heard.sort()).toEqual([
      ['one', { kind: 'events', campaignId: 'camp-e', fromSeq: 5, toSeq: 7, fromSelf: true }],
      ['two', { kind: 'events', campaignId: 'camp-e', fromSeq: 5, toSeq: 7, fromSelf: false }],
    ]);
    stop();
    heard.length = 0;
    await (await sql()).query('SELECT pg_terminate_backend($1)', [one.relay.listener().pid]);
    await until('the gap notice', () => heard.length > 0);
    expect(heard).toEqual([['one', { kind: 'gap' }]]);
  });
});

describe('hostile requests', () => {
  it('oversized, circular, bad campaign id or bad timeout: refused with a stable code before any row; odd content passes unchanged', async () => {
    const a = await owning('hostile');
    const owner = await relayFor(a);
    const sender = await relayFor({ replicaId: 'hostile-sender', fenceFor: () => null });
    const big = { text: 'x'.repeat(DEFAULT_MAX_REQUEST_BYTES) };
    expect(await sender.relay.send('hostile', big, { timeoutMs: 1_000 })).toMatchObject({ ok: false, code: 'command_too_large' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(await sender.relay.send('hostile', circular as Req, { timeoutMs: 1_000 })).toMatchObject({ ok: false, code: 'command_invalid' });
    expect(await sender.relay.send('../hostile', {}, { timeoutMs: 1_000 })).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    expect(await sender.relay.send('hostile', {}, { timeoutMs: 0 })).toMatchObject({ ok: false, code: 'command_invalid' });
    expect(await rows('hostile')).toEqual([]);
    const odd = { text: `\u0000'); DROP TABLE campaign_commands; --\ud800 "quoted" é 🙂`, n: 2 ** 53 - 1 };
    expect(await sender.relay.send('hostile', odd, { timeoutMs: 5_000 })).toMatchObject({ ok: true, answer: { got: odd } });
    expect(owner.calls.map((c) => c.request)).toEqual([odd]);
    // A junk NOTIFY on the owner's channel is ignored.
    await notify(commandChannel(pgf.schema, a.replicaId), 'c1; DROP');
    await notify(commandChannel(pgf.schema, a.replicaId), 'x'.repeat(7_000));
    expect(await sender.relay.send('hostile', { text: 'still-fine' }, { timeoutMs: 5_000 })).toMatchObject({ ok: true });
  });
});
