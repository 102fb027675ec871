/**
 * The two rules of issue 7 as the chart holds them: `noAttemptRunning` (a submit only once the
 * bound task, as last read, is terminal) and `noMutationInFlight` (one mutation per campaign:
 * the chart's own mutation steps), each with both outcomes, the refusal code the API reports,
 * and agreement between `can()` and the refusal. Both are judged on the actor's own context and
 * state (issue 18 item 3): no caller supplies them.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { attemptRunning, boundTaskState } from '../../machines/campaign.guards.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { explainRefusal, MUTATION_RULES, stateProbe } from '../../machines/campaign.rules.js';
import { TERMINAL_TASK_STATES, type CampaignContext, type CampaignEvent, type MutateEvent, type Mutation, type RemoteView } from '../../machines/campaign.types.js';
import { claimEvent, CLAIM_OUTPUTS, CONTEXT, done, EPOCH, FACTS, JOURNAL_OUTPUTS, mutateEvent, READ_LEASE_OUTPUTS, US, view } from './graph-events.js';

/** The chart's own guard implementations, by name (as setup() declares them). */
const named = campaignMachine.implementations.guards as unknown as Record<string, ((args: { context: CampaignContext; event: CampaignEvent }) => boolean) | undefined>;
const guards = { noAttemptRunning: named.noAttemptRunning! };

const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 3, ...FACTS };

const mutate = mutateEvent;

/** controlling.ready, reached purely (no actor runs). */
function controlling() {
  let [s] = initialTransition(campaignMachine, INPUT);
  [s] = transition(campaignMachine, s, claimEvent());
  [s] = transition(campaignMachine, s, done('claimLease', CLAIM_OUTPUTS[0]));
  expect(s.matches({ active: { authority: { controlling: 'ready' } } })).toBe(true);
  return s;
}
type Snap = ReturnType<typeof controlling>;

/** The same state, with the bound task last read in `state` (null: no task bound; 'unobserved': never read). */
function withBoundTask(s: Snap, state: string | null): Snap {
  const context: CampaignContext =
    state === null
      ? { ...s.context, binding: { taskId: null, contextId: CONTEXT }, remote: null }
      : state === 'unobserved'
        ? { ...s.context, remote: null }
        : { ...s.context, remote: { ...view('fp-x', state as RemoteView['state']) } };
  return { ...s, context } as Snap;
}

/** Accepted: the chart starts the mutation's steps (the lease readback first, then journal and relay). */
const relaysFrom = (s: Snap, e: MutateEvent) => transition(campaignMachine, s, e)[0].matches({ active: { authority: { controlling: 'verifying' } } });

describe('noAttemptRunning', () => {
  const ready = controlling();

  it('lets a submit through when no task is bound or the bound one is terminal', () => {
    for (const state of [null, ...TERMINAL_TASK_STATES]) {
      const s = withBoundTask(ready, state);
      const e = mutate();
      expect([state, s.can(e), explainRefusal(s, e), relaysFrom(s, e)]).toEqual([state, true, null, true]);
    }
  });

  it('refuses a submit with attempt_running while the bound task is not terminal or not yet observed', () => {
    for (const state of ['submitted', 'working', 'input-required', 'auth-required', 'unknown', 'unobserved']) {
      const s = withBoundTask(ready, state);
      const e = mutate();
      expect([state, s.can(e), explainRefusal(s, e), relaysFrom(s, e)]).toEqual([state, false, 'attempt_running', false]);
    }
  });

  it('judges the task bound now: a view of another task (the one before a submit) is not its state', () => {
    const s = { ...ready, context: { ...ready.context, binding: { taskId: 'task-2', contextId: CONTEXT }, remote: view('fp-x', 'completed') } } as Snap;
    expect([boundTaskState(s.context), explainRefusal(s, mutate())]).toEqual(['unobserved', 'attempt_running']);
  });

  it('never stops the operator from acting on a running attempt (cancel, intervene, release)', () => {
    const running = withBoundTask(ready, 'working');
    const others: Mutation[] = [{ kind: 'cancel', reason: 'stop' }, { kind: 'intervene', instruction: 'lower lr' }, { kind: 'release' }];
    for (const mutation of others) expect([mutation.kind, running.can(mutate({ mutation }))]).toEqual([mutation.kind, true]);
  });

  it('is one predicate: terminal states end an attempt, anything else is one still running', () => {
    expect(attemptRunning(withBoundTask(ready, null).context)).toBe(false);
    for (const state of TERMINAL_TASK_STATES) expect(attemptRunning(withBoundTask(ready, state).context)).toBe(false);
    for (const state of ['working', 'unobserved']) expect(attemptRunning(withBoundTask(ready, state).context)).toBe(true);
    // As a machine guard it holds only for MUTATE.
    const running = withBoundTask(ready, 'working');
    expect(guards.noAttemptRunning({ context: running.context, event: mutate() })).toBe(false);
    expect(guards.noAttemptRunning({ context: withBoundTask(ready, 'completed').context, event: mutate() })).toBe(true);
    expect(guards.noAttemptRunning({ context: running.context, event: { type: 'PAUSE' } })).toBe(false);
  });
});

describe('noMutationInFlight', () => {
  const ready = withBoundTask(controlling(), 'completed');

  it('refuses any mutation with mutation_in_progress while another is in flight, and admits it otherwise', () => {
    for (const mutation of [{ kind: 'submit', text: 'x' }, { kind: 'cancel', reason: 'x' }, { kind: 'release' }] as Mutation[]) {
      // The first is accepted: the chart is in its mutation steps (readback, journal, relay) until its outcome.
      let [busy] = transition(campaignMachine, ready, mutate({ requestId: 'req-first' }));
      const second = mutate({ mutation, requestId: 'req-second' });
      for (const [step, answer] of [['verifying', done('readLease', READ_LEASE_OUTPUTS[0])], ['journaling', done('journalIntent', JOURNAL_OUTPUTS[0])], ['relaying', null]] as const) {
        expect(busy.matches({ active: { authority: { controlling: step } } })).toBe(true);
        expect([step, mutation.kind, busy.can(second), explainRefusal(busy, second), stateProbe(busy).mutationInFlight]).toEqual([step, mutation.kind, false, 'mutation_in_progress', true]);
        if (answer) [busy] = transition(campaignMachine, busy, answer);
      }
      expect(ready.can(mutate({ mutation }))).toBe(true);
      expect(stateProbe(ready).mutationInFlight).toBe(false);
    }
  });

  it('is reported first, whatever else the second request gets wrong (no I/O: the state alone decides)', () => {
    const [busy] = transition(campaignMachine, ready, mutate({ requestId: 'req-first' }));
    const wrong = mutate({ requestId: 'req-second', epoch: EPOCH + 1, approval: { kind: 'operator', principal: '' }, now: '2030-01-01T00:10:00.000Z' });
    expect(explainRefusal(busy, wrong)).toBe('mutation_in_progress');
    const [observing] = initialTransition(campaignMachine, INPUT);
    expect(explainRefusal(observing, mutate())).toBe('lease_required');
    const first = MUTATION_RULES[0]!;
    expect(['where' in first && first.where, first.code]).toEqual(['noMutationInFlight', 'mutation_in_progress']);
    // A restored controlling.ready with an intent still open is not "in flight": it is refused as an unresolved intent.
    const open = { ...ready, context: { ...ready.context, pendingIntent: { requestId: 'r0', kind: 'submit', epoch: null, mutation: null, binding: null, readback: null } } } as Snap;
    expect(explainRefusal(open, mutate())).toBe('intent_unresolved');
  });
});
