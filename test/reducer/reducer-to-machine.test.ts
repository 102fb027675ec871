import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { ClaimLeaseInput, ClaimLeaseOutput, MutateEvent } from '../../machines/campaign.types.js';
import { reduce, toRemoteObserved } from '../../services/reducer/reducer.js';
import { ctx, lease, snap, T1, US, viewOf } from './fixtures.js';

const OURS = { holder: US, epoch: 3, expiresAt: lease().expiresAt, readAt: T1 };

async function controlling() {
  const machine = campaignMachine.provide({
    actors: { claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async () => ({ claimed: OURS, readback: OURS })) },
  });
  const actor = createActor(machine, { input: { campaignId: 'camp-1' } }).start();
  actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 600 });
  await waitFor(actor, (s) => s.matches({ active: { authority: 'controlling' } }));
  return actor;
}

const cancelApprovedFor = (eventKey: string): MutateEvent => ({
  type: 'MUTATE',
  mutation: { kind: 'cancel', reason: 'diverged' },
  requestId: 'req-1',
  epoch: 3,
  readback: OURS,
  epochEnforced: true,
  approval: { kind: 'review', decisionId: 'd-1', verdict: 'approved', eventKey },
  now: T1,
  mutationInFlight: false,
  boundTaskState: 'completed',
});

describe('reducer → machine', () => {
  it('a terminal attempt wakes Argus, and only a verdict naming that event can authorize', async () => {
    const actor = await controlling();
    const next = snap({ state: 'completed' });
    const reduced = reduce(viewOf(snap()), next, ctx);
    actor.send(toRemoteObserved(reduced, next, T1));
    expect(actor.getSnapshot().value).toMatchObject({ active: { attention: 'awaiting-review' } });
    expect(actor.getSnapshot().context.wakes.argus).toBe(1);
    const wakeKey = reduced.wakes[0]!.dedupeKey;
    expect(actor.getSnapshot().can(cancelApprovedFor('attempt:task-0:att-0:terminal'))).toBe(false);
    expect(actor.getSnapshot().can(cancelApprovedFor(wakeKey))).toBe(true);
  });

  it('routine progress while controlling changes nothing (and the readback keeps authority)', async () => {
    const actor = await controlling();
    const before = actor.getSnapshot();
    const next = snap({ latestAgentMessageExcerpt: 'step 500/1000' }, { revision: 40 });
    const reduced = reduce(viewOf(snap()), next, ctx);
    expect(reduced.material).toBe(false);
    actor.send(toRemoteObserved(reduced, next, T1));
    expect(actor.getSnapshot().value).toEqual(before.value);
    expect(actor.getSnapshot().context.wakes).toEqual(before.context.wakes);
  });

  it('a readback showing another holder moves the machine to control-lost', async () => {
    const actor = await controlling();
    const next = snap({}, { lease: lease({ holder: 'rival', epoch: 4 }) });
    actor.send(toRemoteObserved(reduce(viewOf(snap()), next, ctx), next, T1));
    expect(actor.getSnapshot().value).toMatchObject({ active: { authority: 'control-lost' } });
  });

  it('a blocked remote puts the question in front of the operator', async () => {
    const actor = await controlling();
    const next = snap({ state: 'input-required', latestAgentMessageExcerpt: 'Which dataset?' });
    actor.send(toRemoteObserved(reduce(viewOf(snap()), next, ctx), next, T1));
    expect(actor.getSnapshot().value).toMatchObject({ active: { attention: 'needs-you' } });
    expect(actor.getSnapshot().context.pendingQuestion).toMatchObject({ text: 'Which dataset?', source: 'remote' });
  });
});
