/**
 * The two rules of issue 7 as the chart holds them: `noAttemptRunning` (a submit only once the
 * bound task is terminal) and `noMutationInFlight` (one mutation per campaign), each with both
 * outcomes, the refusal code the API reports, and agreement between `can()` and the refusal.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { attemptRunning } from '../../machines/campaign.guards.js';
import { campaignMachine, initialCampaignContext } from '../../machines/campaign.machine.js';
import { explainRefusal, MUTATION_RULES } from '../../machines/campaign.rules.js';
import { TERMINAL_TASK_STATES, type CampaignContext, type CampaignEvent, type MutateEvent, type Mutation } from '../../machines/campaign.types.js';
import { claimEvent, CLAIM_OUTPUTS, done, EPOCH, mutateEvent, US } from './graph-events.js';

/** The chart's own guard implementations, by name (as setup() declares them). */
const named = campaignMachine.implementations.guards as unknown as Record<string, ((args: { context: CampaignContext; event: CampaignEvent }) => boolean) | undefined>;
const guards = {
  noAttemptRunning: named.noAttemptRunning!,
  noMutationInFlight: named.noMutationInFlight!,
};

const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 3 };

const mutate = mutateEvent;


/** controlling.ready, reached purely (no actor runs). */
function controlling() {
  let [s] = initialTransition(campaignMachine, INPUT);
  [s] = transition(campaignMachine, s, claimEvent());
  [s] = transition(campaignMachine, s, done('claimLease', CLAIM_OUTPUTS[0]));
  expect(s.matches({ active: { authority: { controlling: 'ready' } } })).toBe(true);
  return s;
}

/** Accepted: the chart starts the mutation's steps (the lease readback first, then journal and relay). */
const relaysFrom = (s: ReturnType<typeof controlling>, e: MutateEvent) =>
  transition(campaignMachine, s, e)[0].matches({ active: { authority: { controlling: 'verifying' } } });

describe('noAttemptRunning', () => {
  const ready = controlling();

  it('lets a submit through when no task is bound or the bound one is terminal', () => {
    for (const boundTaskState of [null, ...TERMINAL_TASK_STATES]) {
      const e = mutate({ boundTaskState });
      expect([boundTaskState, ready.can(e), explainRefusal(ready, e), relaysFrom(ready, e)]).toEqual([boundTaskState, true, null, true]);
    }
  });

  it('refuses a submit with attempt_running while the bound task is not terminal or not yet observed', () => {
    for (const boundTaskState of ['submitted', 'working', 'input-required', 'auth-required', 'unknown', 'unobserved']) {
      const e = mutate({ boundTaskState });
      expect([boundTaskState, ready.can(e), explainRefusal(ready, e), relaysFrom(ready, e)]).toEqual([boundTaskState, false, 'attempt_running', false]);
    }
  });

  it('never stops the operator from acting on a running attempt (cancel, intervene, release)', () => {
    const others: Mutation[] = [{ kind: 'cancel', reason: 'stop' }, { kind: 'intervene', instruction: 'lower lr' }, { kind: 'release' }];
    for (const mutation of others) expect([mutation.kind, ready.can(mutate({ mutation, boundTaskState: 'working' }))]).toEqual([mutation.kind, true]);
  });

  it('is one predicate: terminal states end an attempt, anything else is one still running', () => {
    expect(attemptRunning(null)).toBe(false);
    for (const state of TERMINAL_TASK_STATES) expect(attemptRunning(state)).toBe(false);
    for (const state of ['working', 'unobserved', '']) expect(attemptRunning(state)).toBe(true);
    // As a machine guard it holds only for MUTATE.
    const args = { context: ready.context, event: mutate({ boundTaskState: 'working' }) };
    expect(guards.noAttemptRunning(args)).toBe(false);
    expect(guards.noAttemptRunning({ ...args, event: mutate() })).toBe(true);
    expect(guards.noAttemptRunning({ ...args, event: { type: 'PAUSE' } })).toBe(false);
  });
});

describe('noMutationInFlight', () => {
  const ready = controlling();

  it('refuses any mutation with mutation_in_progress while another is in flight, and admits it otherwise', () => {
    for (const mutation of [{ kind: 'submit', text: 'x' }, { kind: 'cancel', reason: 'x' }, { kind: 'release' }] as Mutation[]) {
      const busy = mutate({ mutation, mutationInFlight: true });
      expect([mutation.kind, ready.can(busy), explainRefusal(ready, busy), relaysFrom(ready, busy)]).toEqual([mutation.kind, false, 'mutation_in_progress', false]);
      expect(ready.can(mutate({ mutation }))).toBe(true);
    }
    expect(guards.noMutationInFlight({ context: ready.context, event: mutate({ mutationInFlight: true }) })).toBe(false);
    expect(guards.noMutationInFlight({ context: ready.context, event: mutate() })).toBe(true);
  });

  it('is reported first, in any state, and decidable from the event alone (before any I/O)', () => {
    const [observing] = initialTransition(campaignMachine, INPUT);
    const busy = mutate({ mutationInFlight: true, boundTaskState: 'working', epoch: EPOCH + 1 });
    expect(explainRefusal(observing, busy)).toBe('mutation_in_progress');
    expect(explainRefusal(ready, busy)).toBe('mutation_in_progress');
    expect(explainRefusal(observing, mutate())).toBe('lease_required');
    // The first row reads the event alone: any context (even none of ours) gives the same answer.
    const first = MUTATION_RULES[0]!;
    expect('guard' in first && first.guard).toBe('noMutationInFlight');
    if (!('guard' in first)) throw new Error('the first MUTATE row must be a guard on the event');
    const strangers = [initialCampaignContext({ campaignId: 'other' }), ready.context, { ...ready.context, lease: null, pendingIntent: null }];
    for (const context of strangers) {
      expect(first.holds(context, mutate({ mutationInFlight: true }))).toBe(false);
      expect(first.holds(context, mutate({ mutationInFlight: false }))).toBe(true);
    }
    expect(first.code).toBe('mutation_in_progress');
  });
});
