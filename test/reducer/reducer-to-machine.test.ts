/**
 * Reducer → machine, end to end in process: the chart's TICK invokes the REAL status-read effect
 * (real fingerprint, real reducer) over a stub remote, and the chart decides from its output.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { ClaimLeaseInput, ClaimLeaseOutput, HostEnvironment, MutateEvent, ObserveEvent, RemoteCapabilities } from '../../machines/campaign.types.js';
import { reduce } from '../../services/reducer/reducer.js';
import { effectsAnswering } from './read-effect-harness.js';
import { ctx, lease, snap, T0, T1, US, viewOf } from './fixtures.js';

const OURS = { holder: US, epoch: 3, expiresAt: lease().expiresAt, readAt: T1 };
const CAPS: RemoteCapabilities = { claim: true, renew: true, release: true, submit: true, intervene: true, cancel: true, epochEnforced: true, requestReadback: true };
const BINDING = { taskId: 'task-1', contextId: 'ctx-1' };
// Two-minute beats: the shortest TTL the heartbeat keeps renewed is 240 s, under the 600 s claimed.
const ENVIRONMENT: HostEnvironment = { capabilities: CAPS, argusAvailable: false, cadenceMs: 120_000 };
// An operator's read: it reads at the same instant again, backoff or not.
const tick: ObserveEvent = { type: 'OBSERVE', now: T1 };

async function controlling() {
  let answer: TaskSnapshot = snap();
  const machine = campaignMachine.provide({
    actors: {
      statusReader: effectsAnswering(() => answer).statusReader,
      claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => ({
        claimed: OURS,
        readback: OURS,
        contextId: 'ctx-1',
        ttlSeconds: input.ttlSeconds,
        code: null,
      })),
    },
  });
  const actor = createActor(machine, { input: { campaignId: 'camp-1', createdAt: T0, binding: BINDING, environment: ENVIRONMENT } }).start();
  const read = async (next: TaskSnapshot) => {
    answer = next;
    actor.send(tick);
    await waitFor(actor, (s) => s.matches({ active: { heartbeat: 'idle' } }));
  };
  await read(snap());
  expect(actor.getSnapshot().context.remote?.fingerprint).toBe(viewOf(snap()).fingerprint);
  actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 600, now: T1 });
  await waitFor(actor, (s) => s.matches({ active: { authority: 'controlling' } }));
  return { actor, read };
}

const cancelApprovedFor = (eventKey: string): MutateEvent => ({
  type: 'MUTATE',
  mutation: { kind: 'cancel', reason: 'diverged' },
  requestId: 'req-1',
  epoch: 3,
  approval: { kind: 'review', decisionId: 'd-1', verdict: 'approved', eventKey },
  now: T1,
});

describe('reducer → machine', () => {
  it('a terminal attempt records an Argus wake, and only a verdict naming that event can authorize', async () => {
    const { actor, read } = await controlling();
    const next = snap({ state: 'completed' });
    const reduced = reduce(viewOf(snap()), next, ctx);
    const wakes: string[] = [];
    actor.on('WAKE_REQUESTED', (e) => wakes.push(e.wake.dedupeKey));
    await read(next);
    // No Argus runtime here (the read's facts say so): the wake is recorded, no turn starts.
    expect(actor.getSnapshot().value).toMatchObject({ active: { attention: { idle: 'quiet' } } });
    const wakeKey = reduced.wakes[0]!.dedupeKey;
    expect(wakes).toEqual([wakeKey]);
    expect(actor.getSnapshot().context.wakes.lastArgusEventKey).toBe(wakeKey);
    expect(actor.getSnapshot().can(cancelApprovedFor('attempt:task-0:att-0:terminal'))).toBe(false);
    expect(actor.getSnapshot().can(cancelApprovedFor(wakeKey))).toBe(true);
  });

  it('routine progress while controlling changes nothing (and the readback keeps authority)', async () => {
    const { actor, read } = await controlling();
    const before = actor.getSnapshot();
    const next = snap({ latestAgentMessageExcerpt: 'step 500/1000' }, { revision: 40 });
    expect(reduce(viewOf(snap()), next, ctx).material).toBe(false);
    await read(next);
    expect(actor.getSnapshot().value).toEqual(before.value);
    // Not a single assign: the context object is the very one from before (nothing to save).
    expect(actor.getSnapshot().context).toBe(before.context);
  });

  it('a readback showing another holder moves the machine to control-lost', async () => {
    const { actor, read } = await controlling();
    await read(snap({}, { lease: lease({ holder: 'rival', epoch: 4 }) }));
    expect(actor.getSnapshot().value).toMatchObject({ active: { authority: 'control-lost' } });
  });

  it('a blocked remote puts the question in front of the operator', async () => {
    const { actor, read } = await controlling();
    await read(snap({ state: 'input-required', latestAgentMessageExcerpt: 'Which dataset?' }));
    expect(actor.getSnapshot().value).toMatchObject({ active: { attention: 'needs-you' } });
    expect(actor.getSnapshot().context.pendingQuestion).toMatchObject({ text: 'Which dataset?', source: 'remote' });
  });
});
