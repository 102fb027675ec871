/**
 * One controller per remote context ACROSS replicas (issue 22, part 5), on the real database:
 * the index each replica uses (services/runtime/replica-contexts.ts over `context_controllers`)
 * lets one campaign hold a context whichever replica asks, two first holds at once give it to
 * exactly one, a settle lets it go, a lost race keeps the loser's previous context, and a hold
 * that cannot reach the database rejects (the claim fails closed). End to end: two campaigns on
 * two replicas with tasks in one context, both claimed with the same controller id: the remote
 * would grant both, the database lets only the first claim through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_METHODS } from '../../../adapters/a2a/index.js';
import { selectStoreBackend } from '../../../persistence/postgres/backend.js';
import { loadConfig } from '../../../services/config/config.js';
import { DatabaseContextIndex } from '../../../services/runtime/replica-contexts.js';
import { createSupervisor, type Supervisor } from '../../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { captureLogs } from '../../fixtures/log-capture.js';
import { attach, createScope, envFor, tempStateRoot, type Scope } from '../../fixtures/supervisor-harness.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());

const rows = async () => (await (await pgf.client()).query<{ context_id: string; campaign_id: string }>('SELECT context_id, campaign_id FROM context_controllers ORDER BY context_id')).rows;

describe('context controllers across replicas', () => {
  it('one campaign per context whichever replica asks; a race has one winner; settle lets go; a lost race keeps the previous context; no database, no hold', async () => {
    const a = new DatabaseContextIndex(await pgf.db(), captureLogs().logger);
    const b = new DatabaseContextIndex(await pgf.db(), captureLogs().logger);
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
    const other = await (await pgf.client()).query("DELETE FROM context_controllers WHERE campaign_id = 'c2'");
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
    const cut = new DatabaseContextIndex(cutDb, captureLogs().logger);
    Object.assign(cutDb.pool, { query: () => Promise.reject(new Error('partition')), connect: () => Promise.reject(new Error('partition')) });
    await expect(cut.hold('ctx-9', 'c9')).rejects.toThrow('partition');
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
