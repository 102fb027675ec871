/**
 * Any replica answers any campaign (issue 22, part 5), reads and events, on the real database
 * with two in-process replicas (separate pools, ownerships, relays, actor systems) and the
 * real simulator: public events a campaign produces on replica B reach replica A's feed and A's
 * HTTP event stream (once each, by id); `list` on A shows B's campaigns (marked `hosted_by` B,
 * projected from their documents); `get` on A answers for B's campaign (relayed to B).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoreBackend, type PostgresBackend } from '../../../persistence/postgres/backend.js';
import { API_PREFIX, createHttpServer, listen } from '../../../server/http-server.js';
import type { CampaignSummary, PublicEventView } from '../../../services/api/read-model.js';
import { createReadModel } from '../../../services/api/read-model.js';
import { loadConfig } from '../../../services/config/config.js';
import { ReplicaReads } from '../../../services/runtime/replica-reads.js';
import { versionsElsewhere } from '../../../persistence/postgres/campaign-reads.js';
import { NO_ENVIRONMENT } from '../../../machines/campaign.types.js';
import { createSupervisor, type Supervisor } from '../../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { canary } from '../../fixtures/canary.js';
import { captureLogs } from '../../fixtures/log-capture.js';
import { attach, createScope, envFor, observe, tempStateRoot, until, type Scope } from '../../fixtures/supervisor-harness.js';
import { dataOf, openSse } from '../../cli/sse.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('replica-reads-api-key');

interface Replica {
  supervisor: Supervisor;
  backend: PostgresBackend;
  hosted(): string[];
}

async function replica(s: Scope, sim: RunningSimulator): Promise<Replica> {
  const env = { ARGUS_SUPERVISOR_DATABASE_URL: pgf.url(), ARGUS_SUPERVISOR_DATABASE_SCHEMA: pgf.schema };
  const backend = await selectStoreBackend(env, { ownership: { ttlMs: 3_000 } });
  if (!backend.ok || backend.kind !== 'postgres') throw new Error(`backend: ${JSON.stringify(backend)}`);
  const config = loadConfig(envFor({ stateRoot: await tempStateRoot(s), url: sim.url, apiKey: KEY }));
  const supervisor = await createSupervisor({ config, logger: captureLogs().logger, database: backend });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  s.defer(supervisor, (x) => x.stop());
  return { supervisor, backend, hosted: () => supervisor.system?.list().sort() ?? [] };
}

const feedOf = (r: Replica, id: string): PublicEventView[] => r.supervisor.status().events.filter((e) => e.campaign_id === id);
const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);

describe('any replica answers any campaign: events and reads', () => {
  it('B\'s public events reach A\'s feed and SSE once each; list on A shows B\'s campaigns; get on A answers for them', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (x) => x.close());
    const b = await replica(scope, sim);
    const [t0, t1] = sim.createTasks(2);
    await attach(b.supervisor, 'b0', t0!);
    await attach(b.supervisor, 'b1', t1!);
    await until(async () => (await observe(b.supervisor, 'b0'), feedOf(b, 'b0').length > 0), 'a public event of b0 on B', 20, 10);
    const early = feedOf(b, 'b0');
    expect(early.length, 'B produced public events for b0').toBeGreaterThan(0);

    // A starts after them: its catch-up reads them from the shared store.
    const a = await replica(scope, sim);
    expect(a.hosted()).toEqual([]);
    await until(() => ids(early).every((id) => ids(feedOf(a, 'b0')).includes(id)), 'B\'s earlier events in A\'s feed (catch-up)', 200, 25);

    // A first list (its views of B's campaigns are kept by document version; the change below must show).
    const firstList = await a.supervisor.campaigns({ action: 'list' });
    expect(firstList.ok && (firstList.value as { campaigns: CampaignSummary[] }).campaigns.length).toBe(2);
    const b0Before = JSON.stringify((firstList as { ok: true; value: { campaigns: CampaignSummary[] } }).value.campaigns.find((c) => c.campaign_id === 'b0'));

    // A's HTTP event stream, then new events on B: they come through the NOTIFY, not a catch-up.
    const app = scope.defer(createHttpServer({ supervisor: a.supervisor, apiKey: KEY, logger: captureLogs().logger }), (x) => x.close());
    const base = await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 });
    const sse = scope.defer(await openSse(`${base}${API_PREFIX}/events`, { 'x-api-key': KEY }), (x) => x.close());
    await sse.next((fr) => fr.event === 'hello');
    const before = feedOf(b, 'b0').length;
    await until(async () => (await observe(b.supervisor, 'b0'), feedOf(b, 'b0').length > before), 'a new public event of b0 on B', 20, 10);
    const fresh = feedOf(b, 'b0').slice(before);
    expect(fresh.length, 'B produced new public events for b0').toBeGreaterThan(0);
    await until(() => ids(fresh).every((id) => ids(feedOf(a, 'b0')).includes(id)), 'B\'s new events in A\'s feed (notice)', 200, 25);
    for (const event of fresh) await sse.next((fr) => fr.event === 'public' && dataOf(fr).id === event.id, 5_000);
    // Once each, in A's feed and on A's stream, with B's content as saved.
    const aFeed = a.supervisor.status().events;
    expect(new Set(ids(aFeed)).size).toBe(aFeed.length);
    expect(feedOf(a, 'b0').filter((e) => fresh.some((f) => f.id === e.id))).toEqual(fresh);
    const streamed = sse.frames.filter((fr) => fr.event === 'public').map((fr) => dataOf(fr).id as string);
    expect(new Set(streamed).size).toBe(streamed.length);
    // B never takes its own notices back into its feed twice.
    const bFeed = b.supervisor.status().events;
    expect(new Set(ids(bFeed)).size).toBe(bFeed.length);

    // list on A: B's campaigns, marked with B, projected like B's own views of them.
    const listed = await a.supervisor.campaigns({ action: 'list' });
    if (!listed.ok) throw new Error(`list: ${listed.error.code}`);
    const campaigns = (listed.value as { campaigns: CampaignSummary[] }).campaigns;
    expect(campaigns.map((c) => c.campaign_id).sort()).toEqual(['b0', 'b1']);
    const bView = (await b.supervisor.campaigns({ action: 'get', campaign_id: 'b0' })) as { ok: true; value: { campaign: CampaignSummary } };
    const aListed = JSON.parse(JSON.stringify(campaigns.find((c) => c.campaign_id === 'b0'))) as CampaignSummary;
    expect(aListed.hosted_by).toBe(b.backend.ownership.replicaId);
    const durable = (c: CampaignSummary) => ({ ...c, hosted_by: undefined, remote: { ...c.remote, last_read_at: null, status_message: null }, last_error: null });
    expect(durable(aListed)).toEqual(durable(JSON.parse(JSON.stringify(bView.value.campaign)) as CampaignSummary));
    expect(JSON.stringify(aListed), 'b0 changed on B since the first list').not.toBe(b0Before);
    // B's own list is unchanged in shape: its campaigns, no hosted_by.
    const bList = await b.supervisor.campaigns({ action: 'list' });
    expect(bList.ok && (bList.value as { campaigns: CampaignSummary[] }).campaigns.map((c) => [c.campaign_id, c.hosted_by])).toEqual([['b0', undefined], ['b1', undefined]]);

    // get on A for B's campaign: relayed to B, B's answer (its view and its feed's events).
    const got = await a.supervisor.campaigns({ action: 'get', campaign_id: 'b0' });
    expect(got).toMatchObject({ ok: true, value: { campaign: { campaign_id: 'b0' } } });
    expect(ids((got as { ok: true; value: { events: PublicEventView[] } }).value.events)).toEqual(ids(feedOf(b, 'b0')));
    expect(a.supervisor.system?.host('b0')).toBeUndefined();
  });

  it('after a gap (listener reconnect) the latest events of every campaign hosted elsewhere are read again, bounded, never twice; its own notices are ignored', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (x) => x.close());
    const b = await replica(scope, sim);
    const [t0] = sim.createTasks(1);
    await attach(b.supervisor, 'g0', t0!);
    await until(async () => (await observe(b.supervisor, 'g0'), feedOf(b, 'g0').length >= 2), 'public events of g0 on B', 40, 10);
    const saved = feedOf(b, 'g0');
    // A reader with its own feed (as replica A's), on its own pool; no notice reaches it.
    const readModel = createReadModel();
    const reads = new ReplicaReads({
      db: await pgf.db(),
      readModel,
      hosted: () => [],
      open: () => true,
      summaries: { environment: () => NO_ENVIRONMENT, allowedActions: () => [], now: () => new Date() },
      logger: captureLogs().logger,
      catchUpPerCampaign: 1,
    });
    const g0 = () => readModel.getSnapshot().context.events.filter((e) => e.campaign_id === 'g0');
    reads.heard({ kind: 'events', campaignId: 'g0', fromSeq: 1, toSeq: 1_000, fromSelf: true });
    await reads.settled();
    expect(g0()).toEqual([]);
    reads.heard({ kind: 'gap' });
    await reads.settled();
    // Bounded: the latest one only (catchUpPerCampaign 1), with B's content as saved.
    expect(g0()).toEqual(saved.slice(-1));
    reads.heard({ kind: 'gap' });
    reads.heard({ kind: 'events', campaignId: 'g0', fromSeq: 1, toSeq: 1_000, fromSelf: false });
    await reads.settled();
    // The notice adds the older ones; nothing twice.
    expect(ids(g0()).sort()).toEqual(ids(saved).sort());
    const all = ids(readModel.getSnapshot().context.events);
    expect(new Set(all).size).toBe(all.length);
    reads.detach();
  });

  it('list pages through every campaign hosted elsewhere (never cut at a page size); the catch-up reads every page too', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (x) => x.close());
    const b = await replica(scope, sim);
    const tasks = sim.createTasks(7);
    const names = tasks.map((_, i) => `p${i}`);
    for (const [i, id] of names.entries()) await attach(b.supervisor, id, tasks[i]!);
    const lacking = () => names.filter((id) => feedOf(b, id).length === 0);
    await until(async () => {
      for (const id of lacking()) await observe(b.supervisor, id);
      return lacking().length === 0;
    }, 'a public event of every campaign on B', 40, 10);
    const db = await pgf.db();
    // Every document in this file's schema (earlier tests' campaigns too), in the database's id order.
    const every = (await db.pool.query<{ campaign_id: string }>('SELECT campaign_id FROM campaign_documents ORDER BY campaign_id')).rows.map((r) => r.campaign_id);
    const others = every.filter((id) => id !== 'p1');
    expect(others.length).toBeGreaterThan(6);
    // The read itself, a page of 3 at a time: all the others, in id order (a limit would stop at 3).
    expect((await versionsElsewhere(db, ['p1'], 3)).map((v) => v.campaignId)).toEqual(others);
    expect((await versionsElsewhere(db, [], 7)).map((v) => v.campaignId)).toEqual(every);
    await expect(versionsElsewhere(db, [], 0)).rejects.toThrow('page size');

    const readModel = createReadModel();
    const reads = new ReplicaReads({
      db,
      readModel,
      hosted: () => ['p1'],
      open: () => true,
      summaries: { environment: () => NO_ENVIRONMENT, allowedActions: () => [], now: () => new Date() },
      logger: captureLogs().logger,
      catchUpPerCampaign: 1,
      pageSize: 2,
    });
    const listed = await reads.elsewhere();
    expect(listed.map((c) => c.campaign_id)).toEqual(others);
    expect(listed.filter((c) => c.campaign_id.startsWith('p')).every((c) => c.hosted_by === b.backend.ownership.holder)).toBe(true);
    reads.heard({ kind: 'gap' });
    await reads.settled();
    const fed = new Set(readModel.getSnapshot().context.events.map((e) => e.campaign_id));
    expect(names.filter((id) => !fed.has(id))).toEqual(['p1']);
    reads.detach();
  });
});
