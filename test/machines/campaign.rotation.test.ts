/**
 * A takeover's epoch rotation (issue 22 part 4) on the chart alone, with scripted effects: the
 * readback before the claim is judged by the chart (`rotationMayClaim`), not by the effect; the
 * renewal margin holds (a lease past its renewal deadline is given up, never claimed again);
 * and a campaign restored in doubt under a hold rotates too, stays in doubt, and is resolved by
 * readback afterwards, never resent.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { campaignMachine, EFFECT_IN_FLIGHT } from '../../machines/campaign.machine.js';
import { explainRefusal } from '../../machines/campaign.rules.js';
import type {
  ClaimLeaseInput,
  ClaimLeaseOutput,
  LeaseReadback,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  ReadLeaseInput,
  ReadLeaseOutput,
  RelayMutationInput,
  RelayMutationOutput,
  RotateLeaseInput,
  RotateLeaseOutput,
} from '../../machines/campaign.types.js';
import { readerOf } from '../fixtures/ask-reader.js';
import { claimEvent, CONTEXT, ENV, EPOCH, NOW, OURS, PAST_RENEW_DEADLINE, RIVAL } from './graph-events.js';

const INPUT = { campaignId: 'camp-r', maxAttempts: 2, binding: { taskId: null, contextId: CONTEXT }, environment: ENV };
const READY = { active: { authority: { controlling: 'ready' } } } as const;
const UNRESOLVED = { active: { authority: { 'ambiguous-intent': 'unresolved' } } } as const;
const ROTATED: LeaseReadback = { ...OURS, epoch: EPOCH + 1, readAt: NOW };

function wired(before: ReadLeaseOutput) {
  const readLease = vi.fn(async (_: ReadLeaseInput): Promise<ReadLeaseOutput> => before);
  const rotateLease = vi.fn(async ({ before: judged }: RotateLeaseInput): Promise<RotateLeaseOutput> => ({ before: judged, claimed: ROTATED, readback: ROTATED, code: null }));
  const relay = vi.fn(async (i: RelayMutationInput): Promise<RelayMutationOutput> => ({ outcome: 'applied', requestId: i.requestId, taskId: null }));
  const readBack = vi.fn(async (i: ReadBackIntentInput): Promise<ReadBackIntentOutput> => ({ requestId: i.requestId, status: 'not_applied', taskId: null }));
  const machine = campaignMachine.provide({
    actors: {
      statusReader: readerOf(async () => {
        throw new Error('no read in these tests');
      }),
      claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => ({ claimed: OURS, readback: OURS, contextId: input.binding.contextId, ttlSeconds: input.ttlSeconds, code: null })),
      readLease: fromPromise<ReadLeaseOutput, ReadLeaseInput>(({ input }) => readLease(input)),
      rotateLease: fromPromise<RotateLeaseOutput, RotateLeaseInput>(({ input }) => rotateLease(input)),
      relayMutation: fromPromise<RelayMutationOutput, RelayMutationInput>(({ input }) => relay(input)),
      readBackIntent: fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(({ input }) => readBack(input)),
    },
  });
  return { machine, readLease, rotateLease, relay, readBack };
}

const settled = (s: { hasTag(t: string): boolean }) => !s.hasTag(EFFECT_IN_FLIGHT);

/** Controlling at EPOCH on CONTEXT (claimed: the lease expires at EXPIRES). */
async function controlling(w: ReturnType<typeof wired>) {
  const actor = createActor(w.machine, { input: INPUT }).start();
  actor.send(claimEvent());
  await waitFor(actor, (s) => s.matches(READY));
  return actor;
}

/** As the host restores a document whose journal holds an open intent: controlling.ready, then INTENT_IN_DOUBT. */
async function restoredInDoubt(w: ReturnType<typeof wired>) {
  const actor = await controlling(w);
  actor.send({ type: 'INTENT_IN_DOUBT', requestId: 'req-doubt', kind: 'intervene' });
  expect(actor.getSnapshot().matches(UNRESOLVED)).toBe(true);
  expect(actor.getSnapshot().context).toMatchObject({ lease: null, lastEpoch: EPOCH });
  return actor;
}

describe('a takeover rotates the epoch in controlling', () => {
  it('claims again only after the chart judged the readback: us at our epoch → the greater epoch', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const actor = await controlling(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => s.matches(READY) && s.context.lease?.epoch === EPOCH + 1);
    expect(w.readLease).toHaveBeenCalledWith({ campaignId: 'camp-r', contextId: CONTEXT });
    // The claim step is handed the readback it was judged on, and the lease's own TTL.
    expect(w.rotateLease).toHaveBeenCalledWith({ campaignId: 'camp-r', contextId: CONTEXT, epoch: EPOCH, ttlSeconds: 600, before: { ...OURS, readAt: NOW } });
    actor.stop();
  });

  it.each([
    ['another holder', { readback: RIVAL, code: null }, 'lease_lost_readback'],
    ['no lease', { readback: null, code: null }, 'lease_lost_readback'],
    ['our controller at another epoch', { readback: { ...OURS, epoch: EPOCH + 3 }, code: null }, 'lease_lost_readback'],
    ['no answer', { readback: null, code: 'remote_timeout' }, 'epoch_rotation_failed'],
    // Ours, but read 5 s before expiry: within LEASE_RENEW_MARGIN_MS, a claim could land after the hold ended.
    ['ours past its renewal deadline', { readback: { ...OURS, readAt: PAST_RENEW_DEADLINE }, code: null }, 'lease_renewal_deadline'],
  ] as const)('%s: never claims, gives control up', async (_name, before, code) => {
    const w = wired(before as ReadLeaseOutput);
    const actor = await controlling(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => settled(s) && s.matches({ active: { authority: 'control-lost' } }));
    expect(w.rotateLease).not.toHaveBeenCalled();
    expect(actor.getSnapshot().context.lastErrorCode).toBe(code);
    actor.stop();
  });

  it('whatever the attention region: restored in controlling.ready while a mission awaits review, it rotates all the same', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const live = await controlling(w);
    const held = live.getSnapshot();
    live.stop();
    const value = { active: { authority: { controlling: 'ready' }, attention: { 'awaiting-review': 'mission' }, heartbeat: 'idle' } };
    const actor = createActor(w.machine, { snapshot: w.machine.resolveState({ value, context: held.context }), input: INPUT }).start();
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => settled(s) && s.context.lease?.epoch === EPOCH + 1);
    expect(actor.getSnapshot().matches({ active: { authority: { controlling: 'ready' }, attention: 'awaiting-review' } })).toBe(true);
    actor.stop();
  });

  it('a lease already past its renewal deadline is given up as TICK does: nothing is read or claimed', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const actor = await controlling(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: PAST_RENEW_DEADLINE });
    expect(actor.getSnapshot().matches({ active: { authority: 'control-lost' } })).toBe(true);
    expect(actor.getSnapshot().context.lastErrorCode).toBe('lease_renewal_deadline');
    expect(w.readLease).not.toHaveBeenCalled();
    expect(w.rotateLease).not.toHaveBeenCalled();
    actor.stop();
  });
});

describe('a takeover of a campaign restored in doubt', () => {
  it('rotates the epoch it held first, stays in doubt, then resolves by readback: never resent', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const actor = await restoredInDoubt(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => settled(s) && s.matches(UNRESOLVED));
    expect(w.readLease).toHaveBeenCalledWith({ campaignId: 'camp-r', contextId: CONTEXT });
    // The time the hold read back had left (its expiry 00:10:00 − read at 00:00:10 = 590 s): the rotation fences, it does not prolong.
    expect(w.rotateLease).toHaveBeenCalledWith({ campaignId: 'camp-r', contextId: CONTEXT, epoch: EPOCH, ttlSeconds: 590, before: { ...OURS, readAt: NOW } });
    // No control back: the greater epoch is only the last one held.
    expect(actor.getSnapshot().context).toMatchObject({ lease: null, lastEpoch: EPOCH + 1, pendingIntent: { requestId: 'req-doubt' } });
    expect(w.readBack).not.toHaveBeenCalled();
    actor.send({ type: 'RESOLVE_INTENT' });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));
    expect(w.readBack).toHaveBeenCalledTimes(1);
    expect(w.relay).not.toHaveBeenCalled();
    actor.stop();
  });

  it('a rotation that must not or cannot be done leaves its code and the intent in doubt, to be resolved by readback', async () => {
    for (const [before, code] of [
      [{ readback: RIVAL, code: null }, 'lease_lost_readback'],
      [{ readback: null, code: 'remote_timeout' }, 'epoch_rotation_failed'],
      [{ readback: { ...OURS, readAt: PAST_RENEW_DEADLINE }, code: null }, 'lease_renewal_deadline'],
    ] as const) {
      const w = wired(before as ReadLeaseOutput);
      const actor = await restoredInDoubt(w);
      actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
      await waitFor(actor, (s) => settled(s) && s.matches(UNRESOLVED));
      expect(w.rotateLease).not.toHaveBeenCalled();
      expect(actor.getSnapshot().context).toMatchObject({ lastEpoch: EPOCH, lastErrorCode: code, pendingIntent: { requestId: 'req-doubt' } });
      actor.send({ type: 'RESOLVE_INTENT' });
      await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));
      expect(w.relay).not.toHaveBeenCalled();
      actor.stop();
    }
  });

  it('a claim step that does not confirm leaves the intent in doubt too', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    w.rotateLease.mockImplementation(async ({ before }) => ({ before, claimed: null, readback: null, code: 'epoch_rotation_failed' }));
    const actor = await restoredInDoubt(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => settled(s) && s.matches(UNRESOLVED));
    expect(w.rotateLease).toHaveBeenCalledTimes(1);
    expect(actor.getSnapshot().context).toMatchObject({ lastEpoch: EPOCH, lastErrorCode: 'epoch_rotation_failed' });
    actor.stop();
  });

  it('refuses RESOLVE_INTENT and PAUSE while the rotation is in flight (effect_in_flight)', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    let answer: (o: ReadLeaseOutput) => void = () => undefined;
    w.readLease.mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    const actor = await restoredInDoubt(w);
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    expect(actor.getSnapshot().matches({ active: { authority: { 'ambiguous-intent': 'rotating' } } })).toBe(true);
    expect(explainRefusal(actor.getSnapshot(), { type: 'RESOLVE_INTENT' })).toBe('effect_in_flight');
    expect(explainRefusal(actor.getSnapshot(), { type: 'PAUSE' })).toBe('effect_in_flight');
    actor.send({ type: 'RESOLVE_INTENT' });
    expect(w.readBack).not.toHaveBeenCalled();
    answer({ readback: { ...OURS, readAt: NOW }, code: null });
    await waitFor(actor, (s) => settled(s) && s.matches(UNRESOLVED) && s.context.lastEpoch === EPOCH + 1);
    actor.stop();
  });

  it('an intent in doubt with no hold behind it (never controlled) has nothing to rotate: the event is not taken', () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const actor = createActor(w.machine, { input: { ...INPUT, binding: { taskId: null, contextId: null } } }).start();
    actor.send({ type: 'INTENT_IN_DOUBT', requestId: 'req-doubt', kind: 'submit' });
    expect(actor.getSnapshot().matches(UNRESOLVED)).toBe(true);
    expect(actor.getSnapshot().can({ type: 'HOSTING_TAKEN_OVER', now: NOW })).toBe(false);
    actor.stop();
  });

  it('a paused campaign holds no lease and does not take the event', async () => {
    const w = wired({ readback: { ...OURS, readAt: NOW }, code: null });
    const actor = await controlling(w);
    actor.send({ type: 'PAUSE' });
    expect(actor.getSnapshot().matches('paused')).toBe(true);
    expect(actor.getSnapshot().context.lease).toBeNull();
    expect(actor.getSnapshot().can({ type: 'HOSTING_TAKEN_OVER', now: NOW })).toBe(false);
    actor.stop();
  });
});
