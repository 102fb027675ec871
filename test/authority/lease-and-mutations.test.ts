import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../adapters/a2a/index.js';
import { attached, attachedFinished, authorityWorld, finishAttempt, type AuthorityWorld } from './authority-fixture.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('authority: lease and fenced mutations', () => {
  it('rejects a mutation without a lease and sends nothing', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const before = JSON.stringify(world.sim.stats().requests);
    for (const body of [
      { action: 'submit', epoch: 1, text: 'train again' },
      { action: 'intervene', epoch: 1, instruction: 'lower the lr' },
      { action: 'cancel', epoch: 1, reason: 'stop' },
      { action: 'release', epoch: 1 },
    ]) {
      const r = await world.act({ campaign_id: 'c1', ...body });
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe('lease_required');
    }
    // Not a mutation, not a lease read, not a readback: nothing at all was sent.
    expect(JSON.stringify(world.sim.stats().requests)).toBe(before);
    expect((await world.campaign('c1')).state).toBe('observing');
  });

  it('claims only on an explicit action, then submits, intervenes and cancels with the epoch it holds', async () => {
    world = await authorityWorld();
    const taskId = await attachedFinished(world, 'c1', 3);
    expect(world.sim.stats().mutationsApplied.claim).toBe(0);

    const claimed = await world.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok).toBe(true);
    const epoch = claimed.value.lease.epoch as number;
    expect((await world.campaign('c1')).state).toBe('controlling');

    const submitted = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2 with warmup' });
    expect(submitted.ok).toBe(true);
    expect(submitted.value.outcome).toBe('applied');
    const newTask = submitted.value.task_id as string;
    expect(newTask).not.toBe(taskId);
    expect((await world.campaign('c1')).remote.task_id).toBe(newTask);

    const intervened = await world.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'halve the learning rate' });
    expect(intervened.ok).toBe(true);
    const canceled = await world.act({ campaign_id: 'c1', action: 'cancel', epoch, reason: 'operator stop' });
    expect(canceled.ok).toBe(true);

    const stats = world.sim.stats();
    expect(stats.mutationsApplied).toMatchObject({ claim: 1, submit: 1, intervene: 1, cancel: 1 });
    // Every applied request id was applied exactly once.
    expect(Object.values(stats.appliedByRequestId).every((n) => n === 1)).toBe(true);
    expect(stats.staleMutationsApplied).toBe(0);
  });

  it('rejects a stale or wrong epoch locally, before any I/O', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const claimed = await world.act({ campaign_id: 'c1', action: 'claim' });
    const epoch = claimed.value.lease.epoch as number;
    const requestsBefore = JSON.stringify(world.sim.stats().requests);
    for (const wrong of [epoch - 1, epoch + 1]) {
      const r = await world.act({ campaign_id: 'c1', action: 'submit', epoch: wrong, text: 'x' });
      expect(r.error?.code).toBe('lease_stale_epoch');
    }
    // Not even a lease readback was sent.
    expect(JSON.stringify(world.sim.stats().requests)).toBe(requestsBefore);
  });

  it('enforces max_attempts before sending', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1', 1);
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    const first = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'one' });
    expect(first.ok).toBe(true);
    await finishAttempt(world, 'c1', first.value.task_id);
    const second = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'two' });
    expect(second.error?.code).toBe('attempt_limit_reached');
    expect(world.sim.stats().mutationsApplied.submit).toBe(1);
  });

  it('moves to control-lost with exactly one CONTROL_LOST when another controller takes over, within one tick', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const claimed = await world.act({ campaign_id: 'c1', action: 'claim' });
    const epoch = claimed.value.lease.epoch as number;
    const contextId = (await world.campaign('c1')).remote.context_id as string;
    world.sim.takeover(contextId, 'rival-controller');

    await world.supervisor.sweep();
    const c = await world.campaign('c1');
    expect(c.state).toBe('control-lost');
    expect(c.lease.mode).toBe('observer');
    const lost = world.supervisor.status().events.filter((e) => e.campaign_id === 'c1' && e.kind === 'CRITICAL');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.data).toMatchObject({ reason: 'lease_lost_readback', epoch });

    // It keeps observing, never mutates with the stale epoch, and never raises a second loss.
    await world.supervisor.sweep();
    await world.supervisor.sweep();
    const r = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'late' });
    expect(r.ok).toBe(false);
    expect(world.publicKinds('c1').filter((k) => k === 'CRITICAL')).toHaveLength(1);
    const stats = world.sim.stats();
    expect(stats.staleMutationsApplied).toBe(0);
    expect(stats.mutationsApplied.submit).toBe(0);
  });

  it('never replays a mutation whose answer was lost, and settles it only by readback', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    world.sim.injectFaults({ kind: 'lost-response', methods: ['opentraining.control/intervene'] });
    const r = await world.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'checkpoint now' });
    expect(r.error?.code).toBe('mutation_in_doubt');
    let c = await world.campaign('c1');
    expect(c.state).toBe('ambiguous-intent');
    expect(c.lease.mode).toBe('observer');
    expect(c.open_intent.action).toBe('intervene');

    // Nothing can be sent while in doubt, not even with the right epoch, and a sweep resends nothing.
    expect((await world.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'again' })).error?.code).toBe('intent_unresolved');
    await world.supervisor.sweep();
    await world.restart();
    await world.supervisor.sweep();
    // The remote saw exactly one intervene request: nothing was re-sent, not even under the same id.
    const sent = () => world!.sim.stats().requests['opentraining.control/intervene'] ?? 0;
    expect(sent()).toBe(1);
    expect(world.sim.stats().duplicateRequestIdHits).toBe(0);

    const resolved = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(resolved.ok).toBe(true);
    expect(resolved.value.status).toBe('applied');
    c = await world.campaign('c1');
    expect(c.state).toBe('observing');
    expect(c.open_intent).toBeNull();
    expect(sent()).toBe(1);
    expect(world.sim.stats().mutationsApplied.intervene).toBe(1);
    expect(world.sim.stats().mutationsApplied.claim).toBe(1);
  });

  it('restart neither duplicates a remote task nor silently reclaims, and an unsettled intent restores into doubt', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1');
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    world.sim.injectFaults({ kind: 'lost-response', methods: ['SendMessage'] });
    await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' });
    const tasksBefore = world.sim.stats().tasksCreated;
    const claimsBefore = world.sim.stats().mutationsApplied.claim;

    await world.restart();
    await world.supervisor.sweep();
    const c = await world.campaign('c1');
    expect(c.state).toBe('ambiguous-intent');
    expect(world.sim.stats().tasksCreated).toBe(tasksBefore);
    expect(world.sim.stats().mutationsApplied.claim).toBe(claimsBefore);

    const resolved = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(resolved.value.status).toBe('applied');
    // The campaign follows the attempt the readback names; it was created exactly once.
    expect((await world.campaign('c1')).attempts_submitted).toBe(1);
    expect(world.sim.stats().mutationsApplied.submit).toBe(1);
    expect(world.sim.stats().requests['SendMessage']).toBe(1);
    expect(world.sim.stats().duplicateRequestIdHits).toBe(0);
  });

  it('after a restart a journal is not authority: the readback decides, and nothing is reclaimed', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    await world.act({ campaign_id: 'c1', action: 'claim' });
    const claims = world.sim.stats().mutationsApplied.claim;

    // Still ours on the remote: the restarted supervisor says so after reading it back.
    await world.restart();
    await world.supervisor.sweep();
    expect((await world.campaign('c1')).state).toBe('controlling');

    // It lapsed while we were down: control-lost, one CRITICAL, no claim sent.
    await world.supervisor.stop();
    world.sim.advanceClock(3600);
    await world.restart();
    await world.supervisor.sweep();
    const c = await world.campaign('c1');
    expect(c.state).toBe('control-lost');
    expect(c.lease.mode).toBe('observer');
    expect(world.publicKinds('c1').filter((k) => k === 'CRITICAL')).toHaveLength(1);
    expect(world.sim.stats().mutationsApplied.claim).toBe(claims);
  });

  it('pause stops renewal and polling; resume only observes and never claims', async () => {
    world = await authorityWorld({}, { ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '120' });
    await attached(world, 'c1');
    await world.act({ campaign_id: 'c1', action: 'claim', ttl_seconds: 120 });
    expect((await world.act({ campaign_id: 'c1', action: 'pause' })).ok).toBe(true);
    const before = world.sim.stats();
    await world.supervisor.sweep();
    const after = world.sim.stats();
    expect(after.mutationsApplied.renew).toBe(before.mutationsApplied.renew);
    expect(after.requests['GetTask'] ?? 0).toBe(before.requests['GetTask'] ?? 0);

    const resumed = await world.act({ campaign_id: 'c1', action: 'resume' });
    expect(resumed.ok).toBe(true);
    expect((await world.campaign('c1')).state).toBe('observing');
    expect(world.sim.stats().mutationsApplied.claim).toBe(before.mutationsApplied.claim);
  });

  it('a controlling campaign whose lease is sound ticks as quietly as an observer', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    await world.act({ campaign_id: 'c1', action: 'claim' });
    // The first read after the claim records the new holder (a material change, once).
    await world.supervisor.sweep();
    const writes = () => world!.supervisor.store!.writes();
    const before = { writes: writes(), renew: world.sim.stats().mutationsApplied.renew };
    await world.supervisor.sweep();
    await world.supervisor.sweep();
    expect(writes()).toBe(before.writes);
    expect(world.sim.stats().mutationsApplied.renew).toBe(before.renew);
    expect((await world.campaign('c1')).state).toBe('controlling');
  });

  it('renews the lease from the heartbeat before it expires', async () => {
    world = await authorityWorld({}, { ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '120' });
    await attached(world, 'c1');
    await world.act({ campaign_id: 'c1', action: 'claim', ttl_seconds: 120 });
    const renewalsBefore = world.sim.stats().mutationsApplied.renew;
    await world.supervisor.sweep();
    expect(world.sim.stats().mutationsApplied.renew).toBe(renewalsBefore + 1);
    expect((await world.campaign('c1')).state).toBe('controlling');
  });
});

describe('authority: answers that settle nothing', () => {
  it('a mutation that times out is in doubt, never re-sent, and the readback settles it', async () => {
    world = await authorityWorld({}, {}, { remote: (url) => createA2AClient({ baseUrl: url, timeouts: { headersMs: 300 } }) });
    await attachedFinished(world, 'c1');
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    world.sim.injectFaults({ kind: 'slow', methods: ['SendMessage'], delayMs: 3000 });
    const r = await world.act({ campaign_id: 'c1', action: 'submit', epoch, text: 'attempt 2' });
    expect(r.error?.code).toBe('mutation_in_doubt');
    expect((await world.campaign('c1')).state).toBe('ambiguous-intent');
    await world.supervisor.sweep();
    await world.restart();
    await world.supervisor.sweep();
    expect(world.sim.stats().requests['SendMessage']).toBe(1);

    const resolved = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(resolved.ok).toBe(true);
    // The delayed request was abandoned before the remote handled it: authoritatively not applied.
    expect(resolved.value.status).toBe('not_applied');
    const c = await world.campaign('c1');
    expect([c.state, c.open_intent, c.attempts_submitted]).toEqual(['observing', null, 0]);
    expect(world.sim.stats().requests['SendMessage']).toBe(1);
    expect(world.sim.stats().mutationsApplied.submit).toBe(0);
  });

  it('resolve_intent settles nothing when the readback fails, and settles not_applied without resending', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    // A 5xx after the request left may hide an application: in doubt. (The simulator's 5xx fault
    // answers before handling, so the remote truly did not apply it.)
    world.sim.injectFaults({ kind: 'http-5xx', methods: ['opentraining.control/intervene'] });
    expect((await world.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'x' })).error?.code).toBe('mutation_in_doubt');

    world.sim.injectFaults({ kind: 'http-5xx', methods: ['opentraining.control/request.get'] });
    const unsettled = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(unsettled.error?.code).toBe('intent_unresolved');
    const still = await world.campaign('c1');
    expect(still.state).toBe('ambiguous-intent');
    expect(still.open_intent.action).toBe('intervene');

    const settled = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(settled.value.status).toBe('not_applied');
    expect((await world.campaign('c1')).state).toBe('observing');
    expect(world.sim.stats().requests['opentraining.control/intervene']).toBe(1);
    expect(world.sim.stats().mutationsApplied.intervene).toBe(0);
  });
});

describe('authority: a remote without the control extension', () => {
  it('refuses claim, submit, intervene and cancel with unsupported_capability, sends nothing, keeps observing', async () => {
    world = await authorityWorld({ control: false });
    await attached(world, 'c1');
    const sentBefore = JSON.stringify(world.sim.stats().requests);
    for (const body of [
      { action: 'claim' },
      { action: 'submit', epoch: 1, text: 'x' },
      { action: 'intervene', epoch: 1, instruction: 'x' },
      { action: 'cancel', epoch: 1, reason: 'x' },
      { action: 'release', epoch: 1 },
    ]) {
      const r = await world.act({ campaign_id: 'c1', ...body });
      expect(r.error?.code).toBe('unsupported_capability');
    }
    expect(JSON.stringify(world.sim.stats().requests)).toBe(sentBefore);
    const requests = world.sim.stats().requests;
    expect(requests['SendMessage'] ?? 0).toBe(0);
    expect(requests['CancelTask'] ?? 0).toBe(0);
    // Observation continues.
    expect((await world.act({ campaign_id: 'c1', action: 'observe' })).ok).toBe(true);
  });
});
