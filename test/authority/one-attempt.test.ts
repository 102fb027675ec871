/**
 * One remote attempt at a time, one mutation in flight (issue 7, defect 2): 20 parallel submits
 * with the held epoch start exactly one remote run when no attempt is running, and none while
 * one is; a request refused because another is in flight costs no I/O at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attached, attachedFinished, authorityWorld, finishAttempt, type AuthorityWorld } from './authority-fixture.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const LEASE_GET = 'opentraining.control/lease.get';
const codes = (answers: { ok: boolean; error?: { code: string } }[]) => answers.filter((a) => !a.ok).map((a) => a.error!.code);

async function claimed(w: AuthorityWorld, id: string): Promise<number> {
  const claim = await w.act({ campaign_id: id, action: 'claim' });
  if (!claim.ok) throw new Error(`claim failed: ${JSON.stringify(claim.error)}`);
  return claim.value.lease.epoch as number;
}

describe('one attempt at a time', () => {
  it('20 parallel submits after the last attempt finished start exactly one remote run', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1', 5);
    const epoch = await claimed(world, 'c1');
    const before = world.sim.stats();
    const writesBefore = world.supervisor.store!.writes();

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => world!.act({ campaign_id: 'c1', action: 'submit', epoch, text: `attempt ${i}` })),
    );

    const applied = answers.filter((a) => a.ok);
    expect(applied).toHaveLength(1);
    expect(applied[0]!.value.outcome).toBe('applied');
    // The other 19 arrived while it was in flight: refused before any I/O.
    expect(codes(answers)).toEqual(Array(19).fill('mutation_in_progress'));
    const after = world.sim.stats();
    expect(after.tasksCreated - before.tasksCreated).toBe(1);
    expect(after.mutationsApplied.submit - before.mutationsApplied.submit).toBe(1);
    expect((after.requests['SendMessage'] ?? 0) - (before.requests['SendMessage'] ?? 0)).toBe(1);
    // Only the admitted request read the lease back and wrote (journal, then outcome).
    expect((after.requests[LEASE_GET] ?? 0) - (before.requests[LEASE_GET] ?? 0)).toBe(1);
    expect(world.supervisor.store!.writes() - writesBefore).toBe(2);
    const campaign = await world.campaign('c1');
    expect([campaign.attempts_submitted, campaign.remote.task_id]).toEqual([1, applied[0]!.value.task_id]);
  });

  it('20 parallel submits while an attempt runs start none, and the next submit waits for its end', async () => {
    world = await authorityWorld();
    await attached(world, 'c1', 'steady', 5);
    const epoch = await claimed(world, 'c1');
    const before = world.sim.stats();

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => world!.act({ campaign_id: 'c1', action: 'submit', epoch, text: `attempt ${i}` })),
    );

    expect(answers.filter((a) => a.ok)).toHaveLength(0);
    const refused = codes(answers);
    expect(refused).toHaveLength(20);
    expect(refused.every((c) => c === 'attempt_running' || c === 'mutation_in_progress')).toBe(true);
    expect(refused).toContain('attempt_running');
    // Refused on the local rules: not even a lease readback was sent.
    expect(JSON.stringify(world.sim.stats().requests)).toBe(JSON.stringify(before.requests));
    expect(world.sim.stats().tasksCreated).toBe(before.tasksCreated);
  });

  it('a submit right after an applied one is refused until the new attempt is observed finished', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1', 5);
    const epoch = await claimed(world, 'c1');
    const first = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' });
    expect(first.ok).toBe(true);
    // The new attempt has not been read yet: unknown counts as running (fail closed).
    expect((await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 3' })).error?.code).toBe('attempt_running');
    await world.act({ campaign_id: 'c1', action: 'observe' });
    expect((await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 3' })).error?.code).toBe('attempt_running');
    // The operator may still stop it; once it is seen ended, the next attempt may start.
    expect((await world.act({ campaign_id: 'c1', action: 'cancel', epoch, reason: 'wrong data' })).ok).toBe(true);
    await finishAttempt(world, 'c1', first.value.task_id);
    expect((await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 3' })).ok).toBe(true);
    expect(world.sim.stats().mutationsApplied.submit).toBe(2);
  });

  it('a mutation that arrives while another is in flight is refused with no I/O', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1');
    const epoch = await claimed(world, 'c1');
    // Hold the first relay at the remote so it is certainly in flight.
    world.sim.injectFaults({ kind: 'slow', methods: ['SendMessage'], delayMs: 1500 });
    const first = world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' });
    // Wait until the first has sent its relay (bounded), then measure everything the second costs.
    for (let i = 0; i < 1000 && !(world.sim.stats().requests['SendMessage'] ?? 0); i++) await new Promise((r) => setTimeout(r, 5));
    expect(world.sim.stats().requests['SendMessage']).toBe(1);
    const requests = JSON.stringify(world.sim.stats().requests);
    const writes = world.supervisor.store!.writes();
    for (const body of [
      { action: 'intervene', epoch, instruction: 'lower the lr' },
      { action: 'cancel', epoch, reason: 'stop' },
      { action: 'release', epoch },
      { action: 'submit', epoch, text: 'again' },
    ]) {
      expect((await world.act({ campaign_id: 'c1', ...body })).error?.code, body.action).toBe('mutation_in_progress');
    }
    expect(JSON.stringify(world.sim.stats().requests)).toBe(requests);
    expect(world.supervisor.store!.writes()).toBe(writes);
    expect((await first).ok).toBe(true);
  });
});
