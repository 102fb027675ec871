/**
 * The lease and intent effects against a real simulator: a claim counts only with its
 * readback; the relay sends once and classifies applied / rejected / ambiguous; a readback
 * settles only its own request; with no remote nothing is sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_METHODS } from '../../adapters/a2a/index.js';
import type { BindingFacts, Mutation, RelayMutationInput } from '../../machines/campaign.types.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { createCampaignEffects, REMOTE_NOT_CONFIGURED, type EffectDeps } from '../../services/campaign/effects.js';
import { RIVAL_CONTROLLER_ID } from '../../simulator/index.js';
import { CONTROLLER, effectsWorld, run, type EffectsWorld } from './effects-fixture.js';
/** A renewal deadline no test reaches. */
const FAR = new Date(Date.now() + 3_600_000).toISOString();

let w: EffectsWorld;
beforeAll(async () => {
  w = await effectsWorld();
});
afterAll(() => w.close());

/** A running task in its own context, leased by us; returns the binding and the epoch. */
async function leased(): Promise<{ binding: BindingFacts; epoch: number }> {
  const { ids, contextIds } = w.sim.createTasksDetailed(1, 'steady');
  const binding = { taskId: ids[0]!, contextId: contextIds[0]! };
  const out = await run(w.effects.claimLease, { campaignId: 'c', controllerId: CONTROLLER, ttlSeconds: 600, binding });
  if (!out.readback) throw new Error(`claim failed: ${JSON.stringify(out)}`);
  return { binding, epoch: out.readback.epoch };
}

const relayInput = (binding: BindingFacts, epoch: number, mutation: Mutation, requestId: string = randomUUID()): RelayMutationInput => ({
  campaignId: 'c',
  controllerId: CONTROLLER,
  epoch,
  requestId,
  mutation,
  binding,
});

describe('claimLease', () => {
  it('learns the context from the task, claims, and confirms by readback', async () => {
    const { ids, contextIds } = w.sim.createTasksDetailed(1, 'steady');
    const before = { get: w.requests('GetTask'), claim: w.requests(CONTROL_METHODS.leaseClaim), read: w.requests(CONTROL_METHODS.leaseGet) };
    const out = await run(w.effects.claimLease, {
      campaignId: 'c',
      controllerId: CONTROLLER,
      ttlSeconds: 600,
      binding: { taskId: ids[0]!, contextId: null },
    });
    expect(w.requests('GetTask') - before.get).toBe(1);
    expect(w.requests(CONTROL_METHODS.leaseClaim) - before.claim).toBe(1);
    expect(w.requests(CONTROL_METHODS.leaseGet) - before.read).toBe(1);
    expect(out).toMatchObject({ contextId: contextIds[0], ttlSeconds: 600, code: null });
    expect(out.claimed).toMatchObject({ holder: CONTROLLER });
    expect(out.readback).toMatchObject({ holder: CONTROLLER, epoch: out.claimed!.epoch, expiresAt: out.claimed!.expiresAt });
    expect(w.sim.ledger().entries.filter((e) => e.action === 'claim').length).toBeGreaterThan(0);
  });

  it('a claim whose readback fails is not confirmed: the readback is null and the code says why', async () => {
    const { ids, contextIds } = w.sim.createTasksDetailed(1, 'steady');
    w.sim.injectFaults({ kind: 'http-5xx', methods: [CONTROL_METHODS.leaseGet] });
    const out = await run(w.effects.claimLease, { campaignId: 'c', controllerId: CONTROLLER, ttlSeconds: 600, binding: { taskId: ids[0]!, contextId: contextIds[0]! } });
    w.sim.clearFaults();
    expect(out.claimed).toMatchObject({ holder: CONTROLLER });
    expect(out.readback).toBeNull();
    expect(out.code).toBe('remote_http_status');
  });

  it('another holder: refused with the remote code, no readback', async () => {
    const { ids, contextIds } = w.sim.createTasksDetailed(1, 'steady');
    w.sim.takeover(contextIds[0]!, RIVAL_CONTROLLER_ID, 600);
    const out = await run(w.effects.claimLease, { campaignId: 'c', controllerId: CONTROLLER, ttlSeconds: 600, binding: { taskId: ids[0]!, contextId: contextIds[0]! } });
    expect(out).toEqual({ claimed: null, readback: null, contextId: contextIds[0], ttlSeconds: 600, code: 'lease_held' });
  });
});

describe('renewLease and readLease', () => {
  it('renews at our epoch; a stale epoch is refused with its code; the readback shows a takeover', async () => {
    const { binding, epoch } = await leased();
    const renewed = await run(w.effects.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch, contextId: binding.contextId!, ttlSeconds: 900, renewBy: FAR });
    expect(renewed.code).toBeNull();
    expect(renewed.lease).toMatchObject({ holder: CONTROLLER, epoch });
    const stale = await run(w.effects.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch: epoch + 1, contextId: binding.contextId!, ttlSeconds: 900, renewBy: FAR });
    expect(stale).toEqual({ lease: null, code: 'lease_stale_epoch' });

    const ours = await run(w.effects.readLease, { campaignId: 'c', contextId: binding.contextId! });
    expect(ours).toMatchObject({ code: null, readback: { holder: CONTROLLER, epoch } });
    w.sim.takeover(binding.contextId!, RIVAL_CONTROLLER_ID, 600);
    const lost = await run(w.effects.readLease, { campaignId: 'c', contextId: binding.contextId! });
    expect(lost.readback).toMatchObject({ holder: RIVAL_CONTROLLER_ID, epoch: epoch + 1 });
  });
});

describe('rotateLease (a takeover\'s claim step)', () => {
  it('judges nothing: sends the claim first (the chart judged the readback before it), hands that readback back, and reports the grant and its readback', async () => {
    const { binding, epoch } = await leased();
    const judged = (await run(w.effects.readLease, { campaignId: 'c', contextId: binding.contextId! })).readback;
    const before = { claim: w.requests(CONTROL_METHODS.leaseClaim), read: w.requests(CONTROL_METHODS.leaseGet) };
    const out = await run(w.effects.rotateLease, { campaignId: 'c', contextId: binding.contextId!, epoch, ttlSeconds: 600, before: judged });
    expect([w.requests(CONTROL_METHODS.leaseClaim) - before.claim, w.requests(CONTROL_METHODS.leaseGet) - before.read]).toEqual([1, 1]);
    expect(out).toMatchObject({ before: judged, code: null, claimed: { holder: CONTROLLER, epoch: epoch + 1 }, readback: { holder: CONTROLLER, epoch: epoch + 1 } });
    // The remote refuses the epoch the previous host holds.
    const stale = await run(w.effects.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch, contextId: binding.contextId!, ttlSeconds: 600, renewBy: FAR });
    expect(stale.code).toBe('lease_stale_epoch');
  });

  it('a claim the remote refuses (held elsewhere) or does not answer: its code, nothing read back', async () => {
    const { binding, epoch } = await leased();
    w.sim.takeover(binding.contextId!, RIVAL_CONTROLLER_ID, 600);
    const held = await run(w.effects.rotateLease, { campaignId: 'c', contextId: binding.contextId!, epoch, ttlSeconds: 600, before: null });
    expect(held).toEqual({ before: null, claimed: null, readback: null, code: 'lease_lost_readback' });
    const other = await leased();
    w.sim.injectFaults({ kind: 'http-5xx', methods: [CONTROL_METHODS.leaseClaim] });
    const failed = await run(w.effects.rotateLease, { campaignId: 'c', contextId: other.binding.contextId!, epoch: other.epoch, ttlSeconds: 600, before: null });
    w.sim.clearFaults();
    expect(failed).toEqual({ before: null, claimed: null, readback: null, code: 'epoch_rotation_failed' });
  });
});

describe('renewLease at its renewal deadline', () => {
  it('an answer not in by `renewBy` is a failed renewal (lease_renewal_deadline), whatever the remote does later', async () => {
    const { binding, epoch } = await leased();
    w.sim.injectFaults({ kind: 'slow', count: 1, methods: [CONTROL_METHODS.leaseRenew], delayMs: 3_000 });
    const renewBy = new Date(Date.now() + 300).toISOString();
    const started = Date.now();
    const late = await run(w.effects.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch, contextId: binding.contextId!, ttlSeconds: 900, renewBy });
    expect(late).toEqual({ lease: null, code: 'lease_renewal_deadline' });
    expect(Date.now() - started).toBeLessThan(2_500);
    // Past the deadline already: nothing is sent, nothing is waited for.
    const renewsBefore = w.requests(CONTROL_METHODS.leaseRenew);
    const past = new Date(Date.now() - 1).toISOString();
    expect(await run(w.effects.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch, contextId: binding.contextId!, ttlSeconds: 900, renewBy: past })).toEqual({
      lease: null,
      code: 'lease_renewal_deadline',
    });
    expect(w.requests(CONTROL_METHODS.leaseRenew)).toBe(renewsBefore);
  });
});

describe('journalIntent', () => {
  it('writes the intent with the payload digest, then answers with the clock after the write', async () => {
    let clock = Date.parse('2030-01-01T00:00:00.000Z');
    let written = false;
    let clockAtWrite = 0;
    const records: Parameters<EffectDeps['journal']>[1][] = [];
    const effects = createCampaignEffects({
      ...w.deps,
      now: () => new Date((clock += 1000)),
      journal: async (_id, intent) => {
        await new Promise((r) => setTimeout(r, 5));
        records.push(intent);
        clockAtWrite = clock;
        written = true;
      },
    });
    const mutation: Mutation = { kind: 'intervene', instruction: 'lower the learning rate' };
    const binding = { taskId: 't-1', contextId: 'ctx-1' };
    const out = await run(effects.journalIntent, { campaignId: 'c', requestId: 'r-1', kind: 'intervene', epoch: 4, mutation, binding, decisionId: null });
    expect(written).toBe(true);
    expect(records).toEqual([
      {
        requestId: 'r-1',
        action: 'intervene',
        epoch: 4,
        payloadDigest: digestPayload({ mutation, epoch: 4, contextId: 'ctx-1', taskId: 't-1' }),
        createdAt: records[0]!.createdAt,
      },
    ]);
    expect(Date.parse(out.journaledAt)).toBeGreaterThan(clockAtWrite);
    expect(Date.parse(out.journaledAt)).toBeGreaterThan(Date.parse(records[0]!.createdAt));
  });

  it('a journal that cannot write fails the effect (the chart fails closed)', async () => {
    const effects = createCampaignEffects({ ...w.deps, journal: async () => Promise.reject(new Error('disk full')) });
    const mutation: Mutation = { kind: 'cancel', reason: 'x' };
    await expect(
      run(effects.journalIntent, { campaignId: 'c', requestId: 'r-2', kind: 'cancel', epoch: 1, mutation, binding: { taskId: 't', contextId: 'x' }, decisionId: null }),
    ).rejects.toThrow('disk full');
  });
});

describe('relayMutation', () => {
  it('applied: intervene carries no task; submit carries the task it created', async () => {
    const { binding, epoch } = await leased();
    const requestId = randomUUID();
    const intervened = await run(w.effects.relayMutation, relayInput(binding, epoch, { kind: 'intervene', instruction: 'keep going' }, requestId));
    expect(intervened).toEqual({ outcome: 'applied', requestId, taskId: null });
    expect(w.sim.stats().appliedByRequestId[requestId]).toBe(1);

    const submitted = await run(w.effects.relayMutation, relayInput(binding, epoch, { kind: 'submit', text: 'attempt two' }));
    if (submitted.outcome !== 'applied' || !submitted.taskId) throw new Error(`expected an applied submit, got ${JSON.stringify(submitted)}`);
    expect(submitted.taskId).not.toBe(binding.taskId);
    expect(w.sim.task(submitted.taskId)!.contextId).toBe(binding.contextId);
  });

  it('rejected: a stale epoch reaches the remote once and is refused, lease lost', async () => {
    const { binding, epoch } = await leased();
    const staleBefore = w.sim.stats().staleMutationsRejected;
    const requestId = randomUUID();
    const out = await run(w.effects.relayMutation, relayInput(binding, epoch + 1, { kind: 'cancel', reason: 'stop' }, requestId));
    expect(out).toEqual({ outcome: 'rejected', requestId, code: 'lease_stale_epoch', leaseLost: true });
    expect(w.sim.stats().staleMutationsRejected - staleBefore).toBe(1);
    expect(w.sim.task(binding.taskId!)!.state).not.toBe('canceled');
  });

  it('ambiguous: a lost response is in doubt though the remote applied it, and nothing is re-sent', async () => {
    const { binding, epoch } = await leased();
    const requestId = randomUUID();
    const sentBefore = w.requests(CONTROL_METHODS.intervene);
    w.sim.injectFaults({ kind: 'lost-response', methods: [CONTROL_METHODS.intervene] });
    const out = await run(w.effects.relayMutation, relayInput(binding, epoch, { kind: 'intervene', instruction: 'lost' }, requestId));
    w.sim.clearFaults();
    expect(out.outcome).toBe('ambiguous');
    expect(out.requestId).toBe(requestId);
    expect(w.requests(CONTROL_METHODS.intervene) - sentBefore).toBe(1);
    expect(w.sim.stats().appliedByRequestId[requestId]).toBe(1);

    // readBackIntent: only an answer about this very request and action settles it.
    const settled = await run(w.effects.readBackIntent, { campaignId: 'c', requestId, kind: 'intervene', readbackSupported: true });
    expect(settled).toEqual({ requestId, status: 'applied', taskId: binding.taskId });
    const otherAction = await run(w.effects.readBackIntent, { campaignId: 'c', requestId, kind: 'cancel', readbackSupported: true });
    expect(otherAction).toEqual({ requestId, status: 'unavailable', taskId: null });
    const never = randomUUID();
    const unseen = await run(w.effects.readBackIntent, { campaignId: 'c', requestId: never, kind: 'intervene', readbackSupported: true });
    expect(unseen).toEqual({ requestId: never, status: 'not_applied', taskId: null });
    const readsBefore = w.requests(CONTROL_METHODS.requestGet);
    const unsupported = await run(w.effects.readBackIntent, { campaignId: 'c', requestId, kind: 'intervene', readbackSupported: false });
    expect(unsupported.status).toBe('unavailable');
    expect(w.requests(CONTROL_METHODS.requestGet) - readsBefore).toBe(0);
  });

  it('a binding without the target sends nothing', async () => {
    const before = w.requests();
    const out = await run(w.effects.relayMutation, relayInput({ taskId: null, contextId: 'ctx' }, 1, { kind: 'cancel', reason: 'x' }));
    expect(out).toMatchObject({ outcome: 'rejected', code: 'binding_incomplete', leaseLost: false });
    expect(w.requests() - before).toBe(0);
  });
});

describe('no remote', () => {
  it('every effect fails closed with remote_not_configured and sends nothing', async () => {
    const journal: unknown[] = [];
    const offline = createCampaignEffects({ ...w.deps, remote: null, journal: async (_c, i) => void journal.push(i) });
    const before = w.requests();
    const binding = { taskId: 't', contextId: 'ctx' };
    expect(await run(offline.claimLease, { campaignId: 'c', controllerId: CONTROLLER, ttlSeconds: 600, binding })).toMatchObject({
      claimed: null,
      readback: null,
      code: REMOTE_NOT_CONFIGURED,
    });
    expect(await run(offline.renewLease, { campaignId: 'c', controllerId: CONTROLLER, epoch: 1, contextId: 'ctx', ttlSeconds: 600, renewBy: FAR })).toEqual({
      lease: null,
      code: REMOTE_NOT_CONFIGURED,
    });
    expect(await run(offline.readLease, { campaignId: 'c', contextId: 'ctx' })).toEqual({ readback: null, code: REMOTE_NOT_CONFIGURED });
    expect(await run(offline.relayMutation, relayInput(binding, 1, { kind: 'release' }, 'r-x'))).toEqual({
      outcome: 'rejected',
      requestId: 'r-x',
      code: REMOTE_NOT_CONFIGURED,
      leaseLost: false,
    });
    expect(await run(offline.readBackIntent, { campaignId: 'c', requestId: 'r-x', kind: 'release', readbackSupported: true })).toEqual({
      requestId: 'r-x',
      status: 'unavailable',
      taskId: null,
    });
    await expect(
      run(offline.journalIntent, { campaignId: 'c', requestId: 'r-x', kind: 'release', epoch: 1, mutation: { kind: 'release' }, binding, decisionId: null }),
    ).rejects.toThrow();
    expect(journal).toEqual([]);
    expect(w.requests() - before).toBe(0);
  });
});
