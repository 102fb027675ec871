/**
 * Supervisors as replicas on one PostgreSQL schema, in one process (the real runtime, the real
 * simulator, the real database; the replicas are separate pools, ownerships and actor systems):
 * campaigns are split by fair share and handed over without being hosted twice; a replica that
 * stops has its campaigns taken by the other with a greater fence; a replica whose renewals stop
 * loses its campaigns one by one, stops their actors and refuses to call the remote for them;
 * a command for a campaign another replica hosts is relayed to it and answered with its answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.js';
import { attach, createScope, metricValue, until, type Scope } from '../../fixtures/supervisor-harness.js';
import { startReplica } from './support/replica.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());

const replica = (s: Scope, sim: RunningSimulator, ownership: { ttlMs: number; autoBeat?: boolean }) => startReplica(s, pgf, sim, ownership);

const requestsTo = (sim: RunningSimulator) => Object.values(sim.stats().requests).reduce((n, k) => n + k, 0);
const overlap = (a: string[], b: string[]) => a.filter((id) => b.includes(id));

describe('replicas on one database', () => {
  it('split the campaigns by fair share, hand over without hosting twice, and re-home a stopped replica\'s campaigns with a greater fence', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    const a = await replica(scope, sim, { ttlMs: 3_000 });
    const tasks = sim.createTasks(12, 'training');
    const ids = tasks.map((_, i) => `r${String(i).padStart(2, '0')}`);
    for (const [i, id] of ids.entries()) await attach(a.supervisor, id, tasks[i]!);
    expect(a.hosted()).toEqual(ids);

    const b = await replica(scope, sim, { ttlMs: 3_000 });
    // A holds 12 > share 6 + 1: it hands over quiescent actors (stopped before released), B takes them.
    const samples: string[][] = [];
    await until(async () => {
      samples.push(overlap(a.hosted(), b.hosted()));
      return a.hosted().length + b.hosted().length === 12 && a.hosted().length <= 7 && b.hosted().length >= 5;
    }, 'the handover', 320, 25);
    expect(samples.flat()).toEqual([]);
    expect([...a.hosted(), ...b.hosted()].sort()).toEqual(ids);

    // Any replica answers any campaign: a command sent to A for a campaign B hosts is relayed
    // to B through the database and answered with B's answer; the same Idempotency-Key through
    // A then B relays once (B's gate answers the second from the campaign's document).
    const onB = b.hosted()[0]!;
    await until(async () => (await a.supervisor.observe(onB)).ok, 'an observe relayed to the replica that hosts it', 200, 25);
    const claim = { campaign_id: onB, action: 'claim' };
    const viaA = await a.supervisor.campaignAction(claim, { idempotencyKey: 'claim-once' });
    expect(viaA).toMatchObject({ ok: true, value: { lease: { epoch: 1 } } });
    const viaB = await b.supervisor.campaignAction(claim, { idempotencyKey: 'claim-once' });
    expect(viaB).toMatchObject({ ok: true, replayed: true, value: { lease: { epoch: 1 } } });
    expect(sim.stats().mutationsApplied.claim).toBe(1);
    expect(a.supervisor.system?.host(onB)).toBeUndefined();

    // B stops (its rights released, fences kept): A takes every one back, each with a greater fence.
    const fencesBefore = new Map((await fences()).map((r) => [r.campaign_id, r.fence]));
    const bHeld = b.hosted();
    await b.supervisor.stop();
    await until(async () => a.hosted().length === 12, 'A re-homes B\'s campaigns', 320, 25);
    const after = await fences();
    for (const id of bHeld) {
      const row = after.find((r) => r.campaign_id === id)!;
      expect(row.holder).toBe(a.backend.ownership.replicaId);
      expect(row.fence).toBeGreaterThan(fencesBefore.get(id)!);
    }
    await until(async () => (await a.supervisor.observe(bHeld[0]!)).ok, 'an observe of a re-homed campaign', 200, 25);
    // The metrics say so: rights taken and handed over, renewals answered (one statement per beat).
    expect(await metricValue(a.supervisor, 'argus_supervisor_ownership_changes_total', { kind: 'took' })).toBeGreaterThanOrEqual(12 + bHeld.length);
    expect(await metricValue(a.supervisor, 'argus_supervisor_ownership_changes_total', { kind: 'handed_over' })).toBe(bHeld.length);
    expect(await metricValue(a.supervisor, 'argus_supervisor_ownership_renew_seconds', { outcome: 'answered' })).toBeGreaterThan(0);
  });

  it('a replica cut off from the database loses each campaign at its deadline: the actor stops, nothing more is sent for it, the other takes it', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 3 }), (x) => x.close());
    const a = await replica(scope, sim, { ttlMs: 3_000 });
    const tasks = sim.createTasks(3, 'training');
    const ids = ['p0', 'p1', 'p2'];
    for (const [i, id] of ids.entries()) await attach(a.supervisor, id, tasks[i]!);
    // A partition between A and the database: every statement of A's fails from now on (its
    // renewals, claims and writes), while A itself keeps running and can reach the remote.
    const cut = () => Promise.reject(new Error('connection to the database lost (partition)'));
    Object.assign(a.backend.db.pool, { query: cut, connect: cut });
    await until(async () => a.hosted().length === 0, 'A loses every campaign at its deadline', 200, 25);
    const requestsBefore = requestsTo(sim);
    // Its actors are gone: an observe is refused, and nothing reached the remote for them.
    const refused = await a.supervisor.observe('p0');
    expect(refused.ok).toBe(false);
    expect(requestsTo(sim)).toBe(requestsBefore);

    const b = await replica(scope, sim, { ttlMs: 3_000 });
    await until(async () => ids.every((id) => b.hosted().includes(id)), 'B takes them after they expire', 240, 25);
    const rows = (await fences()).filter((r) => ids.includes(r.campaign_id));
    // B's claim took each over from A's fence 1 (a loaded machine may make B lose and re-take one: still greater).
    expect(rows.map((r) => r.holder)).toEqual(ids.map(() => b.backend.ownership.replicaId));
    for (const r of rows) expect(r.fence).toBeGreaterThan(1);
    await until(async () => (await b.supervisor.observe('p1')).ok, 'an observe of a re-homed campaign', 200, 25);
  });
});

async function fences(): Promise<{ campaign_id: string; holder: string | null; fence: number }[]> {
  const client = await pgf.client();
  const { rows } = await client.query<{ campaign_id: string; holder: string | null; fence: string }>('SELECT campaign_id, holder, fence::text AS fence FROM campaign_owner ORDER BY campaign_id');
  return rows.map((r) => ({ ...r, fence: Number(r.fence) }));
}
