/**
 * The campaign: who holds authority over the remote task (authority region) and whether a
 * person or Argus is needed (attention region), side by side. Read it as the spec:
 *
 * - A mutation is relayed only from `controlling.ready`, and only when every named rule holds.
 * - Claim is only ever an explicit operator event, confirmed by a readback that shows us.
 * - Losing the lease enters `control-lost`, which emits CONTROL_LOST exactly once (on entry).
 * - An ambiguous relay enters `ambiguous-intent`; only a readback by request id leaves it, and
 *   it leaves to `observing` (never back to control, never a resend).
 * - The heartbeat is outside: the machine hears REMOTE_OBSERVED / REMOTE_UNAVAILABLE.
 * - Snapshots are persisted only when no effect is in flight (`isQuiescent`): XState re-runs
 *   an in-flight promise actor on restore, and a relay must never run twice.
 * @module
 */
import { and, assign, emit, enqueueActions, not, or, setup, stateIn } from 'xstate';
import { campaignActors } from './campaign.actors.js';
import { campaignGuards } from './campaign.guards.js';
import {
  DEFAULT_CONTROLLER_ID,
  DEFAULT_MAX_ATTEMPTS,
  MAX_ATTEMPTS_BOUNDS,
  type CampaignContext,
  type CampaignEmitted,
  type CampaignEvent,
  type CampaignInput,
  type LeaseReadback,
} from './campaign.types.js';
import type { WakeRequest } from './vocabulary.js';

export { CAMPAIGN_MACHINE_VERSION, checkRestorable, isQuiescent } from './campaign.version.js';
export type * from './campaign.types.js';

const AUTHORITY = '#campaign.active.authority';
const ATTENTION = '#campaign.active.attention';
/** Tag on every state with an invoked effect: never persist a snapshot while it is active. */
export const EFFECT_IN_FLIGHT = 'effect-in-flight';

export function initialCampaignContext(input: CampaignInput): CampaignContext {
  const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < MAX_ATTEMPTS_BOUNDS.min || maxAttempts > MAX_ATTEMPTS_BOUNDS.max) {
    // Fail closed: a bound we cannot honour is not silently clamped.
    throw new RangeError(`maxAttempts must be an integer in ${MAX_ATTEMPTS_BOUNDS.min}..${MAX_ATTEMPTS_BOUNDS.max}`);
  }
  return {
    campaignId: input.campaignId,
    controllerId: input.controllerId ?? DEFAULT_CONTROLLER_ID,
    maxAttempts,
    attemptsSubmitted: 0,
    lease: null,
    lastEpoch: null,
    lastHeldSince: null,
    pendingIntent: null,
    pendingQuestion: null,
    lastErrorCode: null,
    remoteReachable: true,
    wakes: { argus: 0, foreman: 0, lastArgusEventKey: null },
  };
}



export const campaignMachine = setup({
  types: {
    context: {} as CampaignContext,
    events: {} as CampaignEvent,
    input: {} as CampaignInput,
    emitted: {} as CampaignEmitted,
    tags: {} as typeof EFFECT_IN_FLIGHT,
  },
  actors: campaignActors,
  guards: {
    ...campaignGuards,
    // Pausing or closing mid-relay would abort it and manufacture an ambiguous intent.
    notRelaying: not(stateIn(`${AUTHORITY}.controlling.relaying`)),
  },
  actions: {
    noteError: assign((_, params: { code: string }) => ({ lastErrorCode: params.code })),
    dropLease: assign(({ context }) => ({
      lease: null,
      lastEpoch: context.lease?.epoch ?? context.lastEpoch,
      lastHeldSince: context.lease?.heldSince ?? context.lastHeldSince,
    })),
    // A claim starts a new hold; a renewal extends the one we have.
    adoptLease: assign(({ context }, params: { lease: LeaseReadback | null }) => ({
      lease: params.lease
        ? { epoch: params.lease.epoch, expiresAt: params.lease.expiresAt, heldSince: context.lease?.heldSince ?? params.lease.readAt }
        : null,
    })),
    openIntent: assign(({ event }) => (event.type === 'MUTATE' ? { pendingIntent: { requestId: event.requestId, kind: event.mutation.kind } } : {})),
    adoptIntentInDoubt: assign(({ context, event }) =>
      event.type === 'INTENT_IN_DOUBT' ? { pendingIntent: context.pendingIntent ?? { requestId: event.requestId, kind: event.kind } } : {},
    ),
    settleIntent: assign(({ context }, params: { applied: boolean }) => ({
      pendingIntent: null,
      attemptsSubmitted: context.attemptsSubmitted + (params.applied && context.pendingIntent?.kind === 'submit' ? 1 : 0),
    })),
    emitControlLost: emit(({ context }) => ({
      type: 'CONTROL_LOST' as const,
      campaignId: context.campaignId,
      reason: context.lastErrorCode ?? 'lease_lost',
      epoch: context.lastEpoch,
      heldSince: context.lastHeldSince,
    })),
    emitIntentAmbiguous: enqueueActions(({ context, enqueue }) => {
      const intent = context.pendingIntent;
      if (intent) enqueue.emit({ type: 'INTENT_AMBIGUOUS', campaignId: context.campaignId, requestId: intent.requestId, kind: intent.kind });
    }),
    recordObservation: assign({ remoteReachable: true }),
    recordReadFailure: assign({ remoteReachable: false, lastErrorCode: 'remote_unavailable' }),
    recordWakes: enqueueActions(({ context, event, enqueue }) => {
      const wakes: WakeRequest[] = [];
      if (event.type === 'REMOTE_OBSERVED') wakes.push(...event.wakes);
      if (event.type === 'OPERATOR_ANSWER') {
        wakes.push({ target: 'argus', reason: 'operator_answered', eventClass: null, dedupeKey: `answer:${event.questionKey}` });
      }
      if (event.type === 'FOREMAN_ASSESSED' && event.wakeArgus) {
        wakes.push({ target: 'argus', reason: 'foreman_directive', eventClass: null, dedupeKey: `foreman:${event.eventKey}` });
      }
      if (wakes.length === 0) return;
      let { argus, foreman, lastArgusEventKey } = context.wakes;
      for (const wake of wakes) {
        if (wake.target === 'argus') {
          argus += 1;
          lastArgusEventKey = wake.dedupeKey;
        } else {
          foreman += 1;
        }
        enqueue.emit({ type: 'WAKE_REQUESTED', campaignId: context.campaignId, wake });
      }
      enqueue.assign({ wakes: { argus, foreman, lastArgusEventKey } });
    }),
    holdQuestion: assign(({ event }) => {
      if (event.type === 'ARGUS_ASKED') return { pendingQuestion: { key: event.questionKey, text: event.question, source: 'argus' as const } };
      const blocked = event.type === 'REMOTE_OBSERVED' ? event.events.find((e) => e.class === 'BLOCKED') : undefined;
      return blocked ? { pendingQuestion: { key: blocked.dedupeKey, text: blocked.question ?? '', source: 'remote' as const } } : {};
    }),
    clearQuestion: assign({ pendingQuestion: null }),
  },
}).createMachine({
  id: 'campaign',
  context: ({ input }) => initialCampaignContext(input),
  initial: 'active',
  states: {
    active: {
      type: 'parallel',
      on: {
        PAUSE: { guard: 'notRelaying', target: 'paused' },
        CLOSE: { guard: 'notRelaying', target: 'closed' },
        // Record only: a failed read is never a failed attempt.
        REMOTE_UNAVAILABLE: { actions: 'recordReadFailure' },
      },
      states: {
        authority: {
          initial: 'observing',
          on: {
            // Restore found a journaled intent with no outcome: whatever we were, we are in doubt.
            INTENT_IN_DOUBT: { target: '.ambiguous-intent', actions: 'adoptIntentInDoubt' },
          },
          states: {
            observing: {
              on: { OPERATOR_CLAIM: { guard: and(['ttlWithinBounds', 'noOpenIntent']), target: 'claiming' } },
            },
            claiming: {
              tags: EFFECT_IN_FLIGHT,
              invoke: {
                id: 'claimLease',
                src: 'claimLease',
                input: ({ context, event }) => ({
                  campaignId: context.campaignId,
                  controllerId: context.controllerId,
                  ttlSeconds: event.type === 'OPERATOR_CLAIM' ? event.ttlSeconds : 0,
                }),
                onDone: [
                  {
                    guard: { type: 'claimConfirmedByReadback', params: ({ event }) => ({ result: event.output }) },
                    target: 'controlling',
                    actions: { type: 'adoptLease', params: ({ event }) => ({ lease: event.output.readback }) },
                  },
                  { target: 'observing', actions: { type: 'noteError', params: { code: 'claim_not_confirmed' } } },
                ],
                onError: { target: 'observing', actions: { type: 'noteError', params: { code: 'claim_failed' } } },
              },
            },
            controlling: {
              initial: 'ready',
              // Whatever way we leave, the local lease goes with us: it was never proof anyway.
              exit: 'dropLease',
              states: {
                ready: {
                  on: {
                    MUTATE: {
                      guard: and([
                        'noMutationInFlight',
                        'readbackFresh',
                        'leaseValidForEpoch',
                        'remoteEnforcesEpochs',
                        'requestedEpochMatchesLease',
                        or(['operatorApproved', 'reviewFreshForEvent']),
                        'attemptBoundNotExceeded',
                        'noOpenIntent',
                        'noAttemptRunning',
                      ]),
                      target: 'relaying',
                      actions: 'openIntent',
                    },
                    RENEW_DUE: { target: 'renewing' },
                    REMOTE_OBSERVED: {
                      guard: 'readbackShowsLeaseLost',
                      target: `${AUTHORITY}.control-lost`,
                      actions: { type: 'noteError', params: { code: 'lease_lost_readback' } },
                    },
                  },
                },
                renewing: {
                  tags: EFFECT_IN_FLIGHT,
                  invoke: {
                    id: 'renewLease',
                    src: 'renewLease',
                    input: ({ context, event }) => ({
                      campaignId: context.campaignId,
                      controllerId: context.controllerId,
                      epoch: context.lease?.epoch ?? -1,
                      ttlSeconds: event.type === 'RENEW_DUE' ? event.ttlSeconds : 0,
                    }),
                    onDone: [
                      {
                        guard: { type: 'renewalConfirmsLease', params: ({ event }) => ({ result: event.output }) },
                        target: 'ready',
                        actions: { type: 'adoptLease', params: ({ event }) => ({ lease: event.output.lease }) },
                      },
                      { target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'renewal_rejected' } } },
                    ],
                    onError: { target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'renewal_failed' } } },
                  },
                  on: {
                    REMOTE_OBSERVED: {
                      guard: 'readbackShowsLeaseLost',
                      target: `${AUTHORITY}.control-lost`,
                      actions: { type: 'noteError', params: { code: 'lease_lost_readback' } },
                    },
                  },
                },
                // Only the relay's own answer leaves this state. Snapshots are never saved here, so a
                // restore never lands in it: an unsettled journal entry restores into ambiguous-intent.
                relaying: {
                  tags: EFFECT_IN_FLIGHT,
                  invoke: {
                    id: 'relayMutation',
                    src: 'relayMutation',
                    input: ({ context, event }) => {
                      if (event.type !== 'MUTATE') throw new Error('relayMutation is entered only by MUTATE');
                      return {
                        campaignId: context.campaignId,
                        controllerId: context.controllerId,
                        epoch: event.epoch,
                        requestId: event.requestId,
                        mutation: event.mutation,
                      };
                    },
                    onDone: [
                      {
                        guard: { type: 'relayAppliedRelease', params: ({ event }) => ({ result: event.output }) },
                        target: `${AUTHORITY}.observing`,
                        actions: { type: 'settleIntent', params: { applied: true } },
                      },
                      {
                        guard: { type: 'relayApplied', params: ({ event }) => ({ result: event.output }) },
                        target: 'ready',
                        actions: { type: 'settleIntent', params: { applied: true } },
                      },
                      {
                        guard: { type: 'relayRejectedForLease', params: ({ event }) => ({ result: event.output }) },
                        target: `${AUTHORITY}.control-lost`,
                        actions: [
                          { type: 'settleIntent', params: { applied: false } },
                          { type: 'noteError', params: ({ event }) => ({ code: 'code' in event.output ? event.output.code : 'relay_rejected' }) },
                        ],
                      },
                      {
                        guard: { type: 'relayRejected', params: ({ event }) => ({ result: event.output }) },
                        target: 'ready',
                        actions: [
                          { type: 'settleIntent', params: { applied: false } },
                          { type: 'noteError', params: ({ event }) => ({ code: 'code' in event.output ? event.output.code : 'relay_rejected' }) },
                        ],
                      },
                      // Anything else may have been applied: keep the intent, never resend.
                      {
                        target: `${AUTHORITY}.ambiguous-intent`,
                        actions: { type: 'noteError', params: ({ event }) => ({ code: 'code' in event.output ? event.output.code : 'relay_ambiguous' }) },
                      },
                    ],
                    onError: { target: `${AUTHORITY}.ambiguous-intent`, actions: { type: 'noteError', params: { code: 'relay_crashed' } } },
                  },
                },
              },
            },
            'control-lost': {
              entry: 'emitControlLost',
              on: { OPERATOR_CLAIM: { guard: and(['ttlWithinBounds', 'noOpenIntent']), target: 'claiming' } },
            },
            'ambiguous-intent': {
              initial: 'unresolved',
              entry: 'emitIntentAmbiguous',
              // Already in doubt: record, but do not re-enter (no second emission).
              on: { INTENT_IN_DOUBT: { actions: 'adoptIntentInDoubt' } },
              states: {
                unresolved: { on: { RESOLVE_INTENT: { target: 'resolving' } } },
                resolving: {
                  tags: EFFECT_IN_FLIGHT,
                  invoke: {
                    id: 'readBackIntent',
                    src: 'readBackIntent',
                    input: ({ context }) => ({ campaignId: context.campaignId, requestId: context.pendingIntent?.requestId ?? '' }),
                    onDone: [
                      {
                        guard: { type: 'intentSettledByReadback', params: ({ event }) => ({ result: event.output }) },
                        target: `${AUTHORITY}.observing`,
                        actions: { type: 'settleIntent', params: ({ event }) => ({ applied: event.output.status === 'applied' }) },
                      },
                      { target: 'unresolved', actions: { type: 'noteError', params: { code: 'intent_unresolvable' } } },
                    ],
                    onError: { target: 'unresolved', actions: { type: 'noteError', params: { code: 'intent_readback_failed' } } },
                  },
                },
              },
            },
          },
        },
        attention: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                REMOTE_OBSERVED: [
                  { guard: 'remoteReportsBlocked', target: 'needs-you', actions: ['recordObservation', 'recordWakes', 'holdQuestion'] },
                  { guard: 'observationWakesArgus', target: 'awaiting-review', actions: ['recordObservation', 'recordWakes'] },
                  { actions: ['recordObservation', 'recordWakes'] },
                ],
                FOREMAN_ASSESSED: { guard: 'foremanWantsArgus', target: 'awaiting-review', actions: 'recordWakes' },
              },
            },
            // Placeholder: a later issue invokes the Foreman assessment and the Argus turn here.
            'awaiting-review': {
              on: {
                REMOTE_OBSERVED: [
                  { guard: 'remoteReportsBlocked', target: 'needs-you', actions: ['recordObservation', 'recordWakes', 'holdQuestion'] },
                  { actions: ['recordObservation', 'recordWakes'] },
                ],
                FOREMAN_ASSESSED: { guard: 'foremanWantsArgus', actions: 'recordWakes' },
                ARGUS_ASKED: { target: 'needs-you', actions: 'holdQuestion' },
                ARGUS_TURN_SETTLED: { target: 'idle' },
              },
            },
            'needs-you': {
              on: {
                // The answer is a decision boundary for Argus.
                OPERATOR_ANSWER: { guard: 'answerMatchesQuestion', target: 'awaiting-review', actions: ['recordWakes', 'clearQuestion'] },
                REMOTE_OBSERVED: [
                  { guard: 'remoteReportsBlocked', actions: ['recordObservation', 'recordWakes', 'holdQuestion'] },
                  {
                    guard: and(['remoteQuestionWithdrawn', 'observationWakesArgus']),
                    target: 'awaiting-review',
                    actions: ['recordObservation', 'recordWakes', 'clearQuestion'],
                  },
                  { guard: 'remoteQuestionWithdrawn', target: 'idle', actions: ['recordObservation', 'recordWakes', 'clearQuestion'] },
                  { actions: ['recordObservation', 'recordWakes'] },
                ],
                FOREMAN_ASSESSED: { guard: 'foremanWantsArgus', actions: 'recordWakes' },
              },
            },
            'before-pause': { type: 'history' },
          },
        },
      },
    },
    // Polling and renewal stop; the remote lease expires unless released first.
    paused: {
      on: {
        // Resume only observes; an open intent keeps blocking from where it was.
        RESUME: [
          { guard: 'intentOpen', target: [`${AUTHORITY}.ambiguous-intent`, `${ATTENTION}.before-pause`] },
          { target: [`${AUTHORITY}.observing`, `${ATTENTION}.before-pause`] },
        ],
        INTENT_IN_DOUBT: { actions: 'adoptIntentInDoubt' },
        CLOSE: { target: 'closed' },
      },
    },
    closed: { type: 'final' },
  },
});

export type CampaignMachine = typeof campaignMachine;
