/**
 * What the chart hands its invoked effects and how it counts their answers, with a live actor
 * (the graph traversal never runs an effect, so it cannot see these). Each effect here answers
 * from its input alone: no outer variable, no recorder inside it. What each effect was given is
 * read from the actor system itself (the inspection stream's snapshot of each invoked actor).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor, type InspectionEvent } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type {
  BindingFacts,
  ClaimLeaseInput,
  ClaimLeaseOutput,
  JournalIntentInput,
  JournalIntentOutput,
  MutateEvent,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  ReadLeaseInput,
  ReadLeaseOutput,
  ReadStatusInput,
  ReadStatusOutput,
  RelayMutationInput,
  RelayMutationOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
} from '../../machines/campaign.types.js';
import { BOUND, CADENCE_MS, claimEvent, CONTEXT, ENV, EPOCH, LATER, mutateEvent, NOW, observe, READ_AT, TASK, tick, US } from './graph-events.js';
import { readerOf } from '../fixtures/ask-reader.js';

const RENEWED_UNTIL = '2030-01-01T00:20:00.000Z';

/** Effects that answer from their input only. `amb-*` requests are ambiguous, `rej-*` rejected; `na-*` read back as not applied. */
const effects = {
  statusReader: readerOf(async (input: ReadStatusInput): Promise<ReadStatusOutput> => ({
    ok: true,
    requestedAt: input.now,
    answeredAt: input.now,
    message: null,
    fingerprint: `fp:${input.taskId}`,
    // The remote shows our hold (a read's readback judges the lease).
    readback: { holder: input.controllerId, epoch: EPOCH, expiresAt: RENEWED_UNTIL, readAt: input.now },
    observation: {
      view: { taskId: input.taskId, contextId: input.contextId ?? '', state: 'completed', stage: null, revision: 1, attempt: 1, attemptId: 'att-1', artifactIds: [], lease: null, missionComplete: false, latestAgentMessageDigest: null, fingerprint: `fp:${input.taskId}`, observedAt: input.now },
      events: [],
      wakes: [],
      drafts: [],
      remoteBlocked: false,
      argusAvailable: false,
      foremanEnabled: false,
    },
  })),
  claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => {
    const lease = { holder: input.controllerId, epoch: EPOCH, expiresAt: '2030-01-01T00:10:00.000Z', readAt: READ_AT };
    return { claimed: lease, readback: lease, contextId: input.binding.contextId, ttlSeconds: input.ttlSeconds, code: null };
  }),
  renewLease: fromPromise<RenewLeaseOutput, RenewLeaseInput>(async ({ input }) => ({
    lease: { holder: input.controllerId, epoch: input.epoch, expiresAt: RENEWED_UNTIL, readAt: LATER },
    code: null,
  })),
  readLease: fromPromise<ReadLeaseOutput, ReadLeaseInput>(async () => ({ readback: { holder: US, epoch: EPOCH, expiresAt: RENEWED_UNTIL, readAt: LATER }, code: null })),
  journalIntent: fromPromise<JournalIntentOutput, JournalIntentInput>(async () => ({ journaledAt: LATER, refusedCode: null })),
  relayMutation: fromPromise<RelayMutationOutput, RelayMutationInput>(async ({ input }) =>
    input.requestId.startsWith('amb-')
      ? { outcome: 'ambiguous', requestId: input.requestId, code: 'remote_timeout' }
      : input.requestId.startsWith('rej-')
        ? { outcome: 'rejected', requestId: input.requestId, code: 'remote_rpc_error', leaseLost: false }
        : { outcome: 'applied', requestId: input.requestId, taskId: input.mutation.kind === 'submit' ? `task-for-${input.requestId}` : null },
  ),
  readBackIntent: fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(async ({ input }) => ({
    requestId: input.requestId,
    status: !input.readbackSupported ? 'unavailable' : input.requestId.includes('na-') ? 'not_applied' : 'applied',
    taskId: null,
  })),
};
const IDS = Object.keys(effects);

/** A live actor and, per invoked effect id, the inputs it was started with (from inspection); the reader's are its READs. */
function start(maxAttempts: number, binding: BindingFacts = BOUND) {
  const inputs: Record<string, unknown[]> = Object.fromEntries(IDS.map((id) => [id, []]));
  const seen = new Set<string>();
  const inspect = (ev: InspectionEvent) => {
    if (ev.type === '@xstate.event' && ev.event.type === 'READ') inputs.statusReader!.push((ev.event as unknown as { input: unknown }).input);
    if (ev.type !== '@xstate.snapshot' || (ev.actorRef as unknown as { id: string }).id === 'statusReader') return;
    const ref = ev.actorRef as unknown as { id: string; sessionId: string };
    if (!IDS.includes(ref.id) || seen.has(ref.sessionId)) return;
    seen.add(ref.sessionId);
    inputs[ref.id]!.push((ev.snapshot as unknown as { input: unknown }).input);
  };
  const actor = createActor(campaignMachine.provide({ actors: effects }), {
    input: { campaignId: 'camp-1', controllerId: US, maxAttempts, createdAt: '2029-12-01T00:00:00.000Z', binding, environment: ENV },
    inspect,
  }).start();
  return { actor, inputs };
}

const ready = { active: { authority: { controlling: 'ready' }, heartbeat: 'idle' } } as const;
const mutate = (requestId: string, mutation: MutateEvent['mutation'] = { kind: 'submit', text: 'train v2' }, now = NOW): MutateEvent =>
  mutateEvent({ requestId, mutation, now });

describe('campaign effects', () => {
  it('hands each of the seven authority effects exactly its input: the read the binding and last view, the claim its TTL, the renewal our hold, the mutation steps the accepted MUTATE', async () => {
    const { actor, inputs } = start(3);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { heartbeat: 'idle' } }) && s.context.remote !== null);
    const firstView = actor.getSnapshot().context.remote;
    actor.send(claimEvent({ ttlSeconds: 900 }));
    await waitFor(actor, (s) => s.matches(ready));
    actor.send(tick({ now: LATER })); // renewal due (120 s left of 900 s), and a read
    await waitFor(actor, (s) => s.matches(ready) && s.context.lease?.expiresAt === RENEWED_UNTIL);
    actor.send(mutate('req-1', { kind: 'intervene', instruction: 'lower the lr' }, LATER));
    await waitFor(actor, (s) => s.matches(ready) && s.context.pendingIntent === null);
    actor.send(mutate('amb-2', { kind: 'submit', text: 'train v3' }, LATER));
    await waitFor(actor, (s) => s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }));
    actor.send({ type: 'RESOLVE_INTENT' });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));

    const base = { campaignId: 'camp-1' };
    // Both reads were asked by a TICK (`beat`: the fleet listing may answer them; an OBSERVE's may not).
    const read = { ...base, controllerId: US, taskId: TASK, contextId: CONTEXT, createdAt: '2029-12-01T00:00:00.000Z', cadenceMs: CADENCE_MS, beat: true };
    expect(inputs.statusReader).toEqual([
      { ...read, previous: null, readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false }, now: NOW },
      { ...read, previous: firstView, readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false }, now: LATER },
    ]);
    expect(inputs.claimLease).toEqual([{ ...base, controllerId: US, ttlSeconds: 900, binding: BOUND }]);
    // The renewal deadline: 10 s (LEASE_RENEW_MARGIN_MS) before the lease's expiry (the claim's readback, 00:10:00).
    expect(inputs.renewLease).toEqual([{ ...base, controllerId: US, epoch: EPOCH, contextId: CONTEXT, ttlSeconds: 900, renewBy: '2030-01-01T00:09:50.000Z' }]);
    expect(inputs.readLease).toEqual([{ ...base, contextId: CONTEXT }, { ...base, contextId: CONTEXT }]);
    expect(inputs.journalIntent).toEqual([
      // An operator's mutation applies no Argus decision.
      { ...base, requestId: 'req-1', kind: 'intervene', epoch: EPOCH, mutation: { kind: 'intervene', instruction: 'lower the lr' }, binding: BOUND, decisionId: null },
      { ...base, requestId: 'amb-2', kind: 'submit', epoch: EPOCH, mutation: { kind: 'submit', text: 'train v3' }, binding: BOUND, decisionId: null },
    ]);
    expect(inputs.relayMutation).toEqual([
      { ...base, controllerId: US, epoch: EPOCH, requestId: 'req-1', mutation: { kind: 'intervene', instruction: 'lower the lr' }, binding: BOUND },
      { ...base, controllerId: US, epoch: EPOCH, requestId: 'amb-2', mutation: { kind: 'submit', text: 'train v3' }, binding: BOUND },
    ]);
    expect(inputs.readBackIntent).toEqual([{ ...base, requestId: 'amb-2', kind: 'submit', readbackSupported: true }]);
    actor.stop();
  });

  it('keeps the hold on renewal: same epoch and heldSince, the renewed expiry and confirmation instant', async () => {
    const { actor } = start(3, { taskId: null, contextId: CONTEXT });
    actor.send(claimEvent({ ttlSeconds: 900 }));
    await waitFor(actor, (s) => s.matches(ready));
    const held = actor.getSnapshot().context.lease!;
    actor.send(tick({ now: LATER }));
    await waitFor(actor, (s) => s.matches(ready) && s.context.lease?.expiresAt === RENEWED_UNTIL);
    expect(actor.getSnapshot().context.lease).toEqual({ ...held, expiresAt: RENEWED_UNTIL, confirmedAt: LATER });
    expect(held).toMatchObject({ epoch: EPOCH, heldSince: READ_AT, confirmedAt: READ_AT, contextId: CONTEXT, ttlSeconds: 900 });
    actor.stop();
  });

  it('counts an attempt only for a submit the remote applied, by answer or by readback', async () => {
    const { actor, inputs } = start(5);
    actor.send(claimEvent());
    await waitFor(actor, (s) => s.matches(ready));
    // One attempt at a time: a submit waits for a read that shows the bound task terminal.
    const observed = async () => {
      actor.send(observe());
      await waitFor(actor, (s) => s.matches(ready) && s.context.remote?.taskId === s.context.binding.taskId);
    };
    await observed();
    const settle = async (e: MutateEvent) => {
      actor.send(e);
      await waitFor(actor, (s) => s.context.pendingIntent === null || s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }));
    };
    await settle(mutate('rej-1'));
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(0);
    await settle(mutate('req-2'));
    await settle(mutate('req-3', { kind: 'cancel', reason: 'diverged' }));
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(1);
    // The applied submit bound its new task; a read of it (completed) lets the next submit through.
    expect(actor.getSnapshot().context.binding).toEqual({ taskId: 'task-for-req-2', contextId: CONTEXT });
    await observed();
    await settle(mutate('amb-na-4'));
    expect(actor.getSnapshot().matches({ active: { authority: 'ambiguous-intent' } })).toBe(true);
    actor.send({ type: 'RESOLVE_INTENT' });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));
    expect(inputs.readBackIntent).toEqual([{ campaignId: 'camp-1', requestId: 'amb-na-4', kind: 'submit', readbackSupported: true }]);
    // Read back as not applied: still one attempt.
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(1);
    actor.stop();
  });
});
