/**
 * What the chart hands its invoked effects and how it counts their answers, with a live actor
 * and recording implementations (the graph traversal never runs an effect, so it cannot see these).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';
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
import { EPOCH, mutateEvent, OURS, US } from './graph-events.js';

type Inputs = { claim: ClaimLeaseInput[]; renew: RenewLeaseInput[]; relay: RelayMutationInput[]; readBack: ReadBackIntentInput[] };

function recorded(relayAnswer: (i: RelayMutationInput) => RelayMutationOutput, readBackStatus: ReadBackIntentOutput['status'] = 'applied') {
  const inputs: Inputs = { claim: [], renew: [], relay: [], readBack: [] };
  const machine = campaignMachine.provide({
    actors: {
      claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => (inputs.claim.push(input), { claimed: OURS, readback: OURS })),
      renewLease: fromPromise<RenewLeaseOutput, RenewLeaseInput>(async ({ input }) => (inputs.renew.push(input), { lease: OURS })),
      relayMutation: fromPromise<RelayMutationOutput, RelayMutationInput>(async ({ input }) => (inputs.relay.push(input), relayAnswer(input))),
      readBackIntent: fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(async ({ input }) => (inputs.readBack.push(input), { requestId: input.requestId, status: readBackStatus })),
    },
  });
  return { machine, inputs };
}

const mutate = (requestId: string, mutation: MutateEvent['mutation'] = { kind: 'submit', text: 'train v2' }): MutateEvent =>
  mutateEvent({ requestId, mutation });

const ready = { active: { authority: { controlling: 'ready' } } } as const;

describe('campaign effects', () => {
  it('hands each effect exactly what it needs: the claim its TTL, the renewal our epoch, the relay the MUTATE itself', async () => {
    const { machine, inputs } = recorded((i) => ({ outcome: 'applied', requestId: i.requestId }));
    const actor = createActor(machine, { input: { campaignId: 'camp-1', controllerId: US, maxAttempts: 3 } }).start();
    actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 900 });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send({ type: 'RENEW_DUE', ttlSeconds: 1200 });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send(mutate('req-1', { kind: 'intervene', instruction: 'lower the lr' }));
    await waitFor(actor, (s) => s.matches(ready));
    expect(inputs.claim).toEqual([{ campaignId: 'camp-1', controllerId: US, ttlSeconds: 900 }]);
    expect(inputs.renew).toEqual([{ campaignId: 'camp-1', controllerId: US, epoch: EPOCH, ttlSeconds: 1200 }]);
    expect(inputs.relay).toEqual([{ campaignId: 'camp-1', controllerId: US, epoch: EPOCH, requestId: 'req-1', mutation: { kind: 'intervene', instruction: 'lower the lr' } }]);
    actor.stop();
  });

  it('counts an attempt only for a submit the remote applied, by answer or by readback', async () => {
    const answers: Record<string, RelayMutationOutput['outcome']> = { 'req-1': 'rejected', 'req-2': 'applied', 'req-3': 'applied', 'req-4': 'ambiguous' };
    const { machine, inputs } = recorded(
      (i) =>
        answers[i.requestId] === 'rejected'
        ? { outcome: 'rejected', requestId: i.requestId, code: 'remote_rpc_error', leaseLost: false }
        : answers[i.requestId] === 'ambiguous'
          ? { outcome: 'ambiguous', requestId: i.requestId, code: 'remote_timeout' }
          : { outcome: 'applied', requestId: i.requestId },
      'not_applied',
    );
    const actor = createActor(machine, { input: { campaignId: 'camp-1', controllerId: US, maxAttempts: 5 } }).start();
    actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 600 });
    await waitFor(actor, (s) => s.matches(ready));
    actor.send(mutate('req-1'));
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(0);
    actor.send(mutate('req-2'));
    await waitFor(actor, (s) => s.matches(ready));
    actor.send(mutate('req-3', { kind: 'cancel', reason: 'diverged' }));
    await waitFor(actor, (s) => s.matches(ready));
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(1);
    actor.send(mutate('req-4'));
    await waitFor(actor, (s) => s.matches({ active: { authority: 'ambiguous-intent' } }));
    actor.send({ type: 'RESOLVE_INTENT' });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));
    expect(inputs.readBack).toEqual([{ campaignId: 'camp-1', requestId: 'req-4' }]);
    // Read back as not applied: still one attempt.
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(1);
    actor.stop();
  });
});
