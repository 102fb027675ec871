/**
 * Two `create`s of one new campaign with one Idempotency-Key through two replicas at once (two
 * in-process replicas on one schema): both find nobody hosting it, both run it, one claims the
 * campaign first. The other must answer as one process does for that key (request-gate.ts): the
 * creator's answer replayed, or `mutation_in_progress` while the creator is still running it —
 * never `campaign_exists`. Asked again with the same key, it replays the creator's answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { createScope, until } from '../../fixtures/supervisor-harness.js';
import { startReplica } from './support/replica.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());

describe('a create raced through two replicas with one Idempotency-Key', () => {
  it('one replica creates the campaign; the other answers as one process would (replay or mutation_in_progress), never campaign_exists', async () => {
    const sim = scope.defer(await startSimulator({ port: 0 }), (x) => x.close());
    const a = await startReplica(scope, pgf, sim, { ttlMs: 3_000 });
    const b = await startReplica(scope, pgf, sim, { ttlMs: 3_000 });
    const tasks = sim.createTasks(6);
    const losers: { code: string | null; replayed: boolean }[] = [];
    for (const [i, task] of tasks.entries()) {
      const body = { action: 'create', campaign_id: `race-${i}`, objective: `observe ${task}`, remote_task_id: task };
      const key = `create-race-${i}`;
      const answers = await Promise.all([a.supervisor.campaigns(body, { idempotencyKey: key }), b.supervisor.campaigns(body, { idempotencyKey: key })]);
      const fresh = answers.filter((x) => x.ok && !x.replayed);
      expect(fresh, JSON.stringify(answers)).toHaveLength(1);
      const loser = answers.find((x) => x !== fresh[0])!;
      losers.push({ code: loser.ok ? null : loser.error.code, replayed: loser.ok && loser.replayed === true });
      expect(loser.ok ? 'replayed' : loser.error.code, JSON.stringify(loser)).toMatch(/^(replayed|mutation_in_progress)$/);
      if (loser.ok) expect(loser).toMatchObject({ replayed: true, value: { campaign: { campaign_id: `race-${i}` } } });
      // Each replica, asked again with the key: the creator's answer, replayed.
      for (const r of [a, b]) expect(await r.supervisor.campaigns(body, { idempotencyKey: key })).toMatchObject({ ok: true, replayed: true });
    }
    expect(losers.map((l) => l.code)).not.toContain('campaign_exists');
    // Every campaign hosted by one of the two, never both (the rebalance may be moving one: wait for it).
    expect(a.hosted().filter((id) => b.hosted().includes(id))).toEqual([]);
    await until(async () => a.hosted().length + b.hosted().length === tasks.length, 'every raced campaign hosted once', 200, 25);
  });
});
