/**
 * One controller per remote context ACROSS replicas (issue 22, part 5), on the real database:
 * the index each replica uses (services/runtime/replica-contexts.ts over `context_controllers`)
 * lets one campaign hold a context whichever replica asks, two first holds at once give it to
 * exactly one, a settle lets it go, a lost race keeps the loser's previous context, and a hold
 * that cannot reach the database rejects (the claim fails closed). Every write is fenced by the
 * campaign's right (a deposed replica's settle changes nothing), a settle the database did not
 * take is retried, and a row its campaign left behind is reclaimed under the stated rule
 * (persistence/postgres/context-controllers.ts), never one its campaign may still rely on. End to end: two campaigns on
 * two replicas with tasks in one context, both claimed with the same controller id: the remote
 * would grant both, the database lets only the first claim through.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_METHODS } from '../../../adapters/a2a/index.js';
import { selectStoreBackend } from '../../../persistence/postgres/backend.js';
import { loadConfig } from '../../../services/config/config.js';
import { DatabaseContextIndex, storedHold } from '../../../services/runtime/replica-contexts.js';
import { createSupervisor, type Supervisor } from '../../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { captureLogs } from '../../fixtures/log-capture.js';
import { attach, createScope, envFor, tempStateRoot, until, type Scope } from '../../fixtures/supervisor-harness.js';
import { own as ownRow, Writer } from './support/context-owners.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
// The schema migrated before a test writes ownership rows of its own.
beforeAll(() => pgf.db());
/** One plain client for the test's own statements (a client per statement would use up the server's connections). */
let shared: ReturnType<typeof pgf.client> | null = null;
const client = () => (shared ??= pgf.client());
const scope = createScope();
afterEach(() => scope.dispose());

const sql = async (text: string, values: unknown[] = []) => (await client()).query(text, values);
const own = (writer: Writer, campaignId: string, fence: number, live = true) => ownRow(sql, writer, campaignId, fence, live);
/** A stored document whose chart is `authority` (holding `contextId` when controlling); only the fields the reclaim rule reads. */
const storeChart = (campaignId: string, authority: string, contextId: string | null) =>
  sql('INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ($1, $2, 1) ON CONFLICT (campaign_id) DO UPDATE SET document = EXCLUDED.document', [
    campaignId,
    JSON.stringify({ campaignId, machine: { version: 'x', snapshot: { status: 'active', value: { active: { authority, attention: 'idle', heartbeat: 'idle' } }, context: { lease: contextId === null ? null : { contextId } } } } }),
  ]);
const FAST = { retryMs: [10, 10, 10] };

const rows = async () => (await (await client()).query<{ context_id: string; campaign_id: string }>('SELECT context_id, campaign_id FROM context_controllers ORDER BY context_id')).rows;

describe('context controllers across replicas', () => {
  it('one campaign per context whichever replica asks; a race has one winner; settle lets go; a lost race keeps the previous context; no database, no hold', async () => {
    const wa = new Writer('replica-a');
    const wb = new Writer('replica-b');
    for (const id of ['c1', ...Array.from({ length: 10 }, (_, i) => `ra-${i}`)]) await own(wa, id, 1);
    for (const id of ['c2', 'c4', 'c5', ...Array.from({ length: 10 }, (_, i) => `rb-${i}`)]) await own(wb, id, 1);
    const a = new DatabaseContextIndex(await pgf.db(), wa, captureLogs().logger);
    const b = new DatabaseContextIndex(await pgf.db(), wb, captureLogs().logger);
    expect(await a.hold('ctx-1', 'c1')).toBeNull();
    expect(await a.hold('ctx-1', 'c1')).toBeNull();
    expect(await b.hold('ctx-1', 'c2')).toBe('c1');

    // Two first holds of one context at once, from two replicas: exactly one wins.
    for (let i = 0; i < 10; i++) {
      const answers = await Promise.all([a.hold(`race-${i}`, `ra-${i}`), b.hold(`race-${i}`, `rb-${i}`)]);
      expect(answers.filter((x) => x === null)).toHaveLength(1);
      expect(answers.find((x) => x !== null)).toBe(answers[0] === null ? `ra-${i}` : `rb-${i}`);
    }

    // c2 holds ctx-2; asking for ctx-1 (c1's) fails and keeps ctx-2.
    expect(await b.hold('ctx-2', 'c2')).toBeNull();
    expect(await b.hold('ctx-1', 'c2')).toBe('c1');
    // A campaign holds one context: c1 moving to ctx-3 lets ctx-1 go.
    expect(await a.hold('ctx-3', 'c1')).toBeNull();
    expect(await b.hold('ctx-1', 'c2')).toBeNull();
    // settle (the chart left controlling) lets the context go for the other replica's campaign.
    a.settle('c1', null);
    await a.settled();
    expect(await b.hold('ctx-3', 'c4')).toBeNull();
    const held = await rows();
    expect(held.filter((r) => r.context_id.startsWith('ctx'))).toEqual([
      { context_id: 'ctx-1', campaign_id: 'c2' },
      { context_id: 'ctx-3', campaign_id: 'c4' },
    ]);
    expect(new Set(held.map((r) => r.campaign_id)).size).toBe(held.length);

    // A settle never takes a context another campaign holds.
    b.settle('c5', 'ctx-1');
    await b.settled();
    expect((await rows()).find((r) => r.context_id === 'ctx-1')?.campaign_id).toBe('c2');

    // A campaign that left and came back: its settle is written again, even with the value this
    // replica wrote before (another replica may have changed the row meanwhile).
    b.settle('c2', 'ctx-1');
    await b.settled();
    const other = await (await client()).query("DELETE FROM context_controllers WHERE campaign_id = 'c2'");
    expect(other.rowCount).toBe(1);
    b.settle('c2', 'ctx-1');
    await b.settled();
    expect((await rows()).find((r) => r.context_id === 'ctx-1')).toBeUndefined();
    b.forget('c2');
    b.settle('c2', 'ctx-1');
    await b.settled();
    expect((await rows()).find((r) => r.context_id === 'ctx-1')?.campaign_id).toBe('c2');

    // The database unreachable: the hold rejects (the claim answers io_failed, nothing sent).
    const cutDb = await pgf.db();
    const cut = new DatabaseContextIndex(cutDb, wa, captureLogs().logger);
    Object.assign(cutDb.pool, { query: () => Promise.reject(new Error('partition')), connect: () => Promise.reject(new Error('partition')) });
    await expect(cut.hold('ctx-9', 'c9')).rejects.toThrow('partition');
  });

  it("a settle is fenced: a deposed replica's settle leaves the row the campaign's new owner relies on; a hold without the right rejects", async () => {
    const wa = new Writer('fence-a');
    const wb = new Writer('fence-b');
    await own(wa, 'f1', 1);
    const a = new DatabaseContextIndex(await pgf.db(), wa, captureLogs().logger);
    expect(await a.hold('ctx-f', 'f1')).toBeNull();
    // B takes f1 over (fence 2) and its restored chart controls ctx-f: it settles so.
    await own(wb, 'f1', 2);
    const b = new DatabaseContextIndex(await pgf.db(), wb, captureLogs().logger);
    b.settle('f1', 'ctx-f');
    await b.settled();
    // A does not know yet (its memory still says fence 1); its chart leaves controlling.
    const logs = captureLogs();
    const deposed = new DatabaseContextIndex(await pgf.db(), wa, logs.logger, FAST);
    deposed.settle('f1', null);
    await deposed.settled();
    expect((await rows()).filter((r) => r.context_id === 'ctx-f')).toEqual([{ context_id: 'ctx-f', campaign_id: 'f1' }]);
    expect(logs.lines.join('\n')).toContain('context_settle_refused');
    const fenceOf = async (ctx: string) => (await sql('SELECT fence::text AS fence FROM context_controllers WHERE context_id = $1', [ctx])).rows[0]?.fence;
    expect(await fenceOf('ctx-f')).toBe('2');
    // A hold is a fenced write too: A's hold for f1 at fence 1 rejects (the claim fails closed).
    await expect(a.hold('ctx-g', 'f1')).rejects.toThrow('fence');
    // No right at all: rejected before any statement.
    await expect(a.hold('ctx-g', 'never-owned')).rejects.toThrow('does not hold the right');
    b.settle('f1', null);
    await b.settled();
    expect(await fenceOf('ctx-f')).toBeUndefined();
  });

  it('a settle the database did not take is retried (bounded); after the last attempt it is logged and the next settle writes it again', async () => {
    const w = new Writer('retry-a');
    await own(w, 's1', 1);
    const db = await pgf.db();
    const logs = captureLogs();
    const index = new DatabaseContextIndex(db, w, logs.logger, FAST);
    expect(await index.hold('ctx-s', 's1')).toBeNull();
    // The next two connections fail (a blip): the settle is written at the third attempt.
    const connect = db.pool.connect.bind(db.pool);
    let failing = 2;
    Object.assign(db.pool, { connect: (...args: unknown[]) => (failing-- > 0 ? Promise.reject(new Error('blip')) : (connect as (...x: unknown[]) => unknown)(...args)) });
    index.settle('s1', null);
    await index.settled();
    expect((await rows()).filter((r) => r.campaign_id === 's1')).toEqual([]);
    expect(logs.lines.join('\n')).not.toContain('context_settle_failed');

    // Down for longer than every attempt: logged once with the attempts made; the row stays.
    expect(await index.hold('ctx-s', 's1')).toBeNull();
    failing = 100;
    index.settle('s1', null);
    await index.settled();
    expect((await rows()).filter((r) => r.campaign_id === 's1')).toHaveLength(1);
    expect(logs.lines.filter((l) => l.includes('context_settle_failed'))).toHaveLength(1);
    expect(logs.lines.find((l) => l.includes('context_settle_failed'))).toContain('"attempts":4');
    // Back: the same settle again is written (not skipped as already written).
    failing = 0;
    index.settle('s1', null);
    await index.settled();
    expect((await rows()).filter((r) => r.campaign_id === 's1')).toEqual([]);
  });

  it('a row its campaign left behind is reclaimed (tenure over and the stored chart does not hold it); one it may still rely on is not', async () => {
    const wa = new Writer('reclaim-a');
    const wc = new Writer('reclaim-c');
    await own(wc, 'taker', 1);
    const logs = captureLogs();
    const taker = new DatabaseContextIndex(await pgf.db(), wc, logs.logger);
    const a = new DatabaseContextIndex(await pgf.db(), wa, captureLogs().logger);

    // h1 holds ctx-h1 and its owner is live at the fence that wrote the row: it stands, whatever the chart.
    await own(wa, 'h1', 1);
    expect(await a.hold('ctx-h1', 'h1')).toBeNull();
    expect(await taker.hold('ctx-h1', 'taker')).toBe('h1');
    // h1's owner is gone (expired), no document: reclaimed, and logged.
    await own(wa, 'h1', 1, false);
    expect(await taker.hold('ctx-h1', 'taker')).toBeNull();
    expect(logs.lines.join('\n')).toContain('context_reclaimed');
    expect((await rows()).filter((r) => r.context_id === 'ctx-h1')).toEqual([{ context_id: 'ctx-h1', campaign_id: 'taker' }]);

    // h2 released (no holder), its stored chart still controlling ctx-h2: it stands (its next host restores it controlling).
    await own(wa, 'h2', 1);
    expect(await a.hold('ctx-h2', 'h2')).toBeNull();
    await sql("UPDATE campaign_owner SET holder = NULL WHERE campaign_id = 'h2'");
    await storeChart('h2', 'controlling', 'ctx-h2');
    await own(wc, 't2', 1);
    expect(await taker.hold('ctx-h2', 't2')).toBe('h2');
    // Claiming (it may be taking a context): stands. Unreadable chart: stands.
    await storeChart('h2', 'claiming', null);
    expect(await taker.hold('ctx-h2', 't2')).toBe('h2');
    await sql(`UPDATE campaign_documents SET document = '{"machine":{}}' WHERE campaign_id = 'h2'`);
    expect(await taker.hold('ctx-h2', 't2')).toBe('h2');
    // Its chart controls another context: reclaimed.
    await storeChart('h2', 'controlling', 'ctx-other');
    expect(await taker.hold('ctx-h2', 't2')).toBeNull();

    // h3: a newer tenure (fence 2, live) that has not held the context, chart observing: reclaimed.
    await own(wa, 'h3', 1);
    expect(await a.hold('ctx-h3', 'h3')).toBeNull();
    await own(wa, 'h3', 2);
    await storeChart('h3', 'observing', null);
    await own(wc, 't3', 1);
    // ...but not while h3's ownership row is locked by a write in flight (cannot tell): it stands, without waiting.
    const locker = await pgf.client();
    await locker.query('BEGIN');
    await locker.query("SELECT 1 FROM campaign_owner WHERE campaign_id = 'h3' FOR UPDATE");
    expect(await taker.hold('ctx-h3', 't3')).toBe('h3');
    await locker.query('ROLLBACK');
    expect(await taker.hold('ctx-h3', 't3')).toBeNull();
    // The newer tenure that settles the context itself rewrites the row's fence: then it stands.
    await own(wa, 'h4', 1);
    expect(await a.hold('ctx-h4', 'h4')).toBeNull();
    await own(wa, 'h4', 2);
    await storeChart('h4', 'observing', null);
    a.forget('h4');
    a.settle('h4', 'ctx-h4');
    await a.settled();
    await own(wc, 't4', 1);
    expect(await taker.hold('ctx-h4', 't4')).toBe('h4');
  });

  it('two replicas, tasks in one context, same controller id: the second claim is refused lease_held before anything is sent', async () => {
    const sim = scope.defer(await startSimulator({ port: 0 }), (x) => x.close());
    const [t0, t1] = sim.createTasks(2, undefined, 'shared-context');
    const b = await replica(scope, sim);
    await attach(b, 'x0', t0!);
    const a = await replica(scope, sim);
    await attach(a, 'x1', t1!);
    expect(a.system?.host('x1')).toBeDefined();
    expect(b.system?.host('x0')).toBeDefined();
    // Both learn their context first (the claim would otherwise learn it by a read).
    expect((await b.observe('x0')).ok).toBe(true);
    expect((await a.observe('x1')).ok).toBe(true);

    const first = await b.campaignAction({ campaign_id: 'x0', action: 'claim' });
    expect(first).toMatchObject({ ok: true, value: { lease: { epoch: 1 } } });
    const claimRequests = () => sim.stats().requests[CONTROL_METHODS.leaseClaim] ?? 0;
    const claimsBefore = claimRequests();
    expect(claimsBefore).toBe(1);
    const second = await a.campaignAction({ campaign_id: 'x1', action: 'claim' });
    expect(JSON.stringify(second)).toContain('lease_held');
    expect(sim.stats().mutationsApplied.claim).toBe(1);
    expect(claimRequests()).toBe(claimsBefore);
    expect((await rows()).filter((r) => r.context_id === 'shared-context')).toEqual([{ context_id: 'shared-context', campaign_id: 'x0' }]);
    // The reclaim rule reads a stored chart as it is really saved: x0's says it holds the context, x1's none.
    const stored = async (id: string) => (await sql('SELECT document FROM campaign_documents WHERE campaign_id = $1', [id])).rows[0]?.document;
    await until(async () => storedHold(await stored('x0')) === 'shared-context', 'x0 saved controlling', 100, 20);
    expect(storedHold(await stored('x1'))).toBeNull();
  });
});

async function replica(s: Scope, sim: RunningSimulator): Promise<Supervisor> {
  const env = { ARGUS_SUPERVISOR_DATABASE_URL: pgf.url(), ARGUS_SUPERVISOR_DATABASE_SCHEMA: pgf.schema };
  const backend = await selectStoreBackend(env, { ownership: { ttlMs: 3_000 } });
  if (!backend.ok || backend.kind !== 'postgres') throw new Error(`backend: ${JSON.stringify(backend)}`);
  const config = loadConfig(envFor({ stateRoot: await tempStateRoot(s), url: sim.url }));
  const supervisor = await createSupervisor({ config, logger: captureLogs().logger, database: backend });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  s.defer(supervisor, (x) => x.stop());
  return supervisor;
}
