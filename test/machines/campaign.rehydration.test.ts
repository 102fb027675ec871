import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { campaignMachine, CAMPAIGN_MACHINE_VERSION, initialCampaignContext } from '../../machines/campaign.machine.js';
import { explainRefusal } from '../../machines/campaign.refusals.js';
import type {
  ClaimLeaseInput,
  ClaimLeaseOutput,
  MutateEvent,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  RelayMutationInput,
  RelayMutationOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
} from '../../machines/campaign.types.js';
import { checkRestorable, isQuiescent } from '../../machines/campaign.version.js';
import { EPOCH, mutateEvent, NOW, OURS } from './graph-events.js';

const INPUT = { campaignId: 'camp-1', maxAttempts: 2 };

function wired(relay: (input: RelayMutationInput) => Promise<RelayMutationOutput>, readBack?: (input: ReadBackIntentInput) => Promise<ReadBackIntentOutput>) {
  return campaignMachine.provide({
    actors: {
      claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async () => ({ claimed: OURS, readback: OURS })),
      renewLease: fromPromise<RenewLeaseOutput, RenewLeaseInput>(async () => {
        throw new Error('renewal timed out');
      }),
      relayMutation: fromPromise<RelayMutationOutput, RelayMutationInput>(({ input }) => relay(input)),
      readBackIntent: fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(({ input }) =>
        readBack ? readBack(input) : Promise.resolve({ requestId: input.requestId, status: 'unavailable' as const }),
      ),
    },
  });
}

const submit = (requestId: string): MutateEvent => mutateEvent({ requestId });

async function controllingActor(machine: ReturnType<typeof wired>) {
  const actor = createActor(machine, { input: INPUT }).start();
  actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 600 });
  await waitFor(actor, (s) => s.matches({ active: { authority: { controlling: 'ready' } } }));
  return actor;
}

/** What the store does: JSON on disk, with the version beside it. */
const throughDisk = (snapshot: unknown) => JSON.parse(JSON.stringify({ version: CAMPAIGN_MACHINE_VERSION, snapshot })) as { version: string; snapshot: unknown };

describe('campaign actor: persist and restore', () => {
  it('round-trips a quiescent snapshot with getPersistedSnapshot()', async () => {
    const actor = await controllingActor(wired(async (i) => ({ outcome: 'applied', requestId: i.requestId })));
    expect(isQuiescent(actor.getSnapshot())).toBe(true);
    const stored = throughDisk(actor.getPersistedSnapshot());
    const check = checkRestorable(stored);
    expect(check.ok).toBe(true);
    const restored = createActor(wired(async () => ({ outcome: 'applied', requestId: 'x' })), { snapshot: check.ok ? (check.snapshot as never) : undefined, input: INPUT }).start();
    expect(restored.getSnapshot().value).toEqual(actor.getSnapshot().value);
    expect(restored.getSnapshot().context).toEqual(actor.getSnapshot().context);
  });

  it('restoring a quiescent snapshot never invokes the relay; a journaled intent restores into ambiguous-intent', async () => {
    const relay = vi.fn(async (i: RelayMutationInput): Promise<RelayMutationOutput> => ({ outcome: 'applied', requestId: i.requestId }));
    const actor = await controllingActor(wired(relay));
    const stored = throughDisk(actor.getPersistedSnapshot());
    // The process died after journaling req-9 and before its outcome was recorded.
    const readBack = vi.fn(async (i: ReadBackIntentInput): Promise<ReadBackIntentOutput> => ({ requestId: i.requestId, status: 'not_applied' }));
    const restored = createActor(wired(relay, readBack), { snapshot: stored.snapshot as never, input: INPUT }).start();
    restored.send({ type: 'INTENT_IN_DOUBT', requestId: 'req-9', kind: 'submit' });
    expect(restored.getSnapshot().matches({ active: { authority: 'ambiguous-intent' } })).toBe(true);
    expect(restored.getSnapshot().can(submit('req-10'))).toBe(false);
    expect(explainRefusal(restored.getSnapshot(), submit('req-10'))).toBe('intent_unresolved');
    restored.send({ type: 'RESOLVE_INTENT' });
    await waitFor(restored, (s) => s.matches({ active: { authority: 'observing' } }));
    expect(readBack).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req-9' }));
    expect(relay).not.toHaveBeenCalled();
    // Settled by readback → observing, not controlling: control must be claimed again, explicitly.
    expect(restored.getSnapshot().context.lease).toBeNull();
  });

  it('a snapshot taken mid-relay is not quiescent: XState would re-run the relay on restore', async () => {
    let release!: () => void;
    const relay = vi.fn((i: RelayMutationInput) => new Promise<RelayMutationOutput>((resolve) => (release = () => resolve({ outcome: 'applied', requestId: i.requestId }))));
    const actor = await controllingActor(wired(relay));
    actor.send(submit('req-1'));
    expect(actor.getSnapshot().matches({ active: { authority: { controlling: 'relaying' } } })).toBe(true);
    expect(isQuiescent(actor.getSnapshot())).toBe(false);
    const restored = createActor(wired(relay), { snapshot: throughDisk(actor.getPersistedSnapshot()).snapshot as never, input: INPUT }).start();
    await vi.waitFor(() => expect(relay).toHaveBeenCalledTimes(2)); // the pitfall this design avoids
    release();
    restored.stop();
    actor.stop();
  });

  it('detects an unknown machine version (the caller fails closed)', () => {
    expect(CAMPAIGN_MACHINE_VERSION).toMatch(/^campaign@\d+$/);
    expect(checkRestorable({ version: 'campaign@0', snapshot: {} })).toEqual({ ok: false, code: 'machine_version_unknown', version: 'campaign@0' });
    expect(checkRestorable({ version: 'campaign@999', snapshot: {} }).ok).toBe(false);
  });
});

describe('campaign actor: behaviour with real effects', () => {
  it('emits exactly one CONTROL_LOST when renewal fails, and keeps observing', async () => {
    const actor = await controllingActor(wired(async (i) => ({ outcome: 'applied', requestId: i.requestId })));
    const lost = vi.fn();
    actor.on('CONTROL_LOST', lost);
    actor.send({ type: 'RENEW_DUE', ttlSeconds: 600 });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'control-lost' } }));
    expect(lost).toHaveBeenCalledTimes(1);
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ type: 'CONTROL_LOST', campaignId: 'camp-1', reason: 'renewal_failed', epoch: EPOCH }));
    expect(lost.mock.calls[0]![0].heldSince).toEqual(expect.any(String));
    expect(actor.getSnapshot().can({ type: 'REMOTE_OBSERVED', observedAt: NOW, events: [], wakes: [], remoteBlocked: false, readback: null })).toBe(true);
    expect(explainRefusal(actor.getSnapshot(), submit('req-1'))).toBe('lease_required');
  });

  it('an ambiguous relay drops control, keeps the intent, and is never replayed', async () => {
    const relay = vi.fn(async (i: RelayMutationInput): Promise<RelayMutationOutput> => ({ outcome: 'ambiguous', requestId: i.requestId, code: 'remote_timeout' }));
    const actor = await controllingActor(wired(relay));
    const ambiguous = vi.fn();
    actor.on('INTENT_AMBIGUOUS', ambiguous);
    actor.send(submit('req-1'));
    await waitFor(actor, (s) => s.matches({ active: { authority: 'ambiguous-intent' } }));
    expect(ambiguous).toHaveBeenCalledWith({ type: 'INTENT_AMBIGUOUS', campaignId: 'camp-1', requestId: 'req-1', kind: 'submit' });
    expect(actor.getSnapshot().context).toMatchObject({ lease: null, pendingIntent: { requestId: 'req-1', kind: 'submit' }, lastErrorCode: 'remote_timeout' });
    actor.send({ type: 'RESOLVE_INTENT' }); // the remote cannot answer: stay in doubt
    await waitFor(actor, (s) => s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }));
    expect(relay).toHaveBeenCalledTimes(1);
  });

  it('counts applied submissions against max_attempts', async () => {
    const actor = await controllingActor(wired(async (i) => ({ outcome: 'applied', requestId: i.requestId })));
    for (const id of ['req-1', 'req-2']) {
      actor.send(submit(id));
      await waitFor(actor, (s) => s.matches({ active: { authority: { controlling: 'ready' } } }));
    }
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(2);
    expect(actor.getSnapshot().can(submit('req-3'))).toBe(false);
    expect(explainRefusal(actor.getSnapshot(), submit('req-3'))).toBe('attempt_limit_reached');
  });

  it('pause drops control; resume observes and returns attention to where it was', async () => {
    const actor = await controllingActor(wired(async (i) => ({ outcome: 'applied', requestId: i.requestId })));
    actor.send({
      type: 'REMOTE_OBSERVED',
      observedAt: NOW,
      remoteBlocked: true,
      readback: OURS,
      events: [{ class: 'BLOCKED', reason: 'blocked_input_required', dedupeKey: 'q-1', question: 'Which dataset?' }],
      wakes: [{ target: 'argus', reason: 'blocked_input_required', eventClass: 'BLOCKED', dedupeKey: 'q-1' }],
    });
    expect(actor.getSnapshot().context.wakes).toMatchObject({ argus: 1, lastArgusEventKey: 'q-1' });
    actor.send({ type: 'PAUSE' });
    expect(actor.getSnapshot().context.lease).toBeNull();
    expect(explainRefusal(actor.getSnapshot(), submit('req-1'))).toBe('campaign_paused');
    actor.send({ type: 'RESUME' });
    expect(actor.getSnapshot().value).toEqual({ active: { authority: 'observing', attention: 'needs-you' } });
    expect(explainRefusal(actor.getSnapshot(), { type: 'OPERATOR_ANSWER', questionKey: 'old', answer: 'x' })).toBe('question_stale');
    actor.send({ type: 'OPERATOR_ANSWER', questionKey: 'q-1', answer: 'v2' });
    expect(actor.getSnapshot().value).toEqual({ active: { authority: 'observing', attention: 'awaiting-review' } });
    expect(actor.getSnapshot().context.pendingQuestion).toBeNull();
  });

  it('explains refusals with stable codes', () => {
    const actor = createActor(campaignMachine, { input: INPUT }).start();
    expect(explainRefusal(actor.getSnapshot(), { type: 'OPERATOR_CLAIM', ttlSeconds: 5 })).toBe('ttl_out_of_bounds');
    expect(explainRefusal(actor.getSnapshot(), { type: 'RESOLVE_INTENT' })).toBe('intent_not_found');
    expect(explainRefusal(actor.getSnapshot(), { type: 'OPERATOR_ANSWER', questionKey: 'q', answer: 'a' })).toBe('no_pending_question');
    expect(explainRefusal(actor.getSnapshot(), { type: 'RESUME' })).toBe('not_paused');
    expect(explainRefusal(actor.getSnapshot(), { type: 'OPERATOR_CLAIM', ttlSeconds: 600 })).toBeNull();
    actor.send({ type: 'CLOSE' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(explainRefusal(actor.getSnapshot(), { type: 'OPERATOR_CLAIM', ttlSeconds: 600 })).toBe('campaign_closed');
  });

  it('refuses a max_attempts outside 1..20 instead of clamping it', () => {
    expect(() => initialCampaignContext({ campaignId: 'c', maxAttempts: 0 })).toThrow(RangeError);
    expect(() => initialCampaignContext({ campaignId: 'c', maxAttempts: 21 })).toThrow(RangeError);
    expect(initialCampaignContext({ campaignId: 'c' })).toMatchObject({ maxAttempts: 3, controllerId: 'argus-openoperator', lease: null });
  });
});
