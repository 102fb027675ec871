/**
 * `controlling`: we hold the lease. Renewal rides on TICK, up to a renewal deadline
 * (LEASE_RENEW_MARGIN_MS before expiry) past which the lease is given up; a mutation goes verify → journal →
 * relay, each step an invoked effect whose answer a named guard judges. Leaving, by any arrow,
 * drops the local lease copy. A takeover by another replica (HOSTING_TAKEN_OVER) rotates the
 * epoch before anything else: `rotating` reads the lease back, `reclaiming` claims again
 * (campaign.rotating.ts), or control is given up.
 * @module
 */
import { and } from 'xstate';
import { renewalDeadlineOf } from './campaign.guards.js';
import { AUTHORITY, campaignSetup, EFFECT_IN_FLIGHT, PAUSED, relayCode, rulesOf } from './campaign.setup.js';
import { rotationStates } from './campaign.rotating.js';

export const controllingState = campaignSetup.createStateConfig({
  initial: 'ready',
  exit: 'dropLease',
  states: {
    ready: {
      on: {
        MUTATE: { guard: rulesOf('MUTATE'), target: 'verifying', actions: 'openIntent' },
        // The operator's answer to the remote's own question is a fenced mutation like intervene.
        OPERATOR_ANSWER: { guard: and([rulesOf('OPERATOR_ANSWER'), 'questionFromRemote']), target: 'verifying', actions: 'openAnswerIntent' },
        TICK: [
          // Too late to renew: give the lease up now, while it is still valid (one CONTROL_LOST, before expiry).
          { guard: 'leaseRenewalDeadlinePassed', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_renewal_deadline' } } },
          { guard: 'leaseDueForRenewal', target: 'renewing' },
        ],
        LEASE_READBACK: { guard: 'readbackShowsLeaseLost', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_lost_readback' } } },
        LEASE_LAPSED: { guard: 'leaseLapsed', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_lapsed' } } },
        PAUSE: { target: PAUSED },
        // Only `ready` hears it: a snapshot is saved only when quiescent, and every other
        // substate is an effect in flight, so a campaign just taken over in `controlling` was
        // restored here, whatever its attention region (awaiting-review included). `paused` holds
        // no lease (leaving controlling drops it). In doubt: ambiguous-intent (campaign.machine.ts).
        HOSTING_TAKEN_OVER: [
          // Too late to claim again in time: given up, as TICK does.
          { guard: 'leaseRenewalDeadlinePassed', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_renewal_deadline' } } },
          { target: 'rotating' },
        ],
      },
    },
    // The previous host may still hold our epoch: nothing is renewed or mutated with it until
    // the remote has granted a greater one (or control is given up).
    ...rotationStates('ready', `${AUTHORITY}.control-lost`, 'adoptRotation'),
    renewing: {
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'renewLease',
        src: 'renewLease',
        input: ({ context }) => ({
          campaignId: context.campaignId,
          controllerId: context.controllerId,
          epoch: context.lease?.epoch ?? -1,
          contextId: context.lease?.contextId ?? '',
          ttlSeconds: context.lease?.ttlSeconds ?? 0,
          renewBy: context.lease ? renewalDeadlineOf(context.lease) : new Date(0).toISOString(),
        }),
        onDone: [
          {
            guard: { type: 'renewalConfirmsLease', params: ({ event }) => ({ output: event.output }) },
            target: 'ready',
            actions: { type: 'adoptRenewal', params: ({ event }) => ({ output: event.output }) },
          },
          { target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: ({ event }) => ({ code: event.output.code ?? 'renewal_rejected' }) } },
        ],
        onError: { target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'renewal_failed' } } },
      },
      on: {
        // A renewal still unanswered at its deadline (the effect bounds itself too) is a failed one.
        TICK: { guard: 'leaseRenewalDeadlinePassed', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_renewal_deadline' } } },
        LEASE_READBACK: { guard: 'readbackShowsLeaseLost', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_lost_readback' } } },
        LEASE_LAPSED: { guard: 'leaseLapsed', target: `${AUTHORITY}.control-lost`, actions: { type: 'noteError', params: { code: 'lease_lapsed' } } },
      },
    },
    // A fresh readback, taken now, decides; nothing is journaled or sent without it.
    verifying: {
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'readLease',
        src: 'readLease',
        input: ({ context }) => ({ campaignId: context.campaignId, contextId: context.lease?.contextId ?? '' }),
        onDone: [
          {
            guard: { type: 'leaseReadFailed', params: ({ event }) => ({ output: event.output }) },
            target: 'ready',
            actions: { type: 'refuseMutation', params: { code: 'remote_unavailable', journaled: false } },
          },
          {
            guard: { type: 'readbackShowsUs', params: ({ event }) => ({ output: event.output }) },
            target: 'journaling',
            actions: { type: 'recordReadback', params: ({ event }) => ({ readback: event.output.readback }) },
          },
          {
            target: `${AUTHORITY}.control-lost`,
            actions: [
              { type: 'refuseMutation', params: { code: 'lease_not_held', journaled: false } },
              { type: 'noteError', params: { code: 'lease_lost_readback' } },
            ],
          },
        ],
        onError: { target: 'ready', actions: { type: 'refuseMutation', params: { code: 'remote_unavailable', journaled: false } } },
      },
    },
    // The intent is durable (fsynced) before any byte of the mutation leaves the process.
    journaling: {
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'journalIntent',
        src: 'journalIntent',
        input: ({ context }) => {
          const intent = context.pendingIntent;
          if (!intent?.mutation || !intent.binding || intent.epoch === null) throw new Error('journalIntent needs the accepted mutation');
          return { campaignId: context.campaignId, requestId: intent.requestId, kind: intent.kind, epoch: intent.epoch, mutation: intent.mutation, binding: intent.binding, decisionId: intent.decisionId ?? null };
        },
        onDone: [
          // The journal refused the intent (nothing written): a decision applied or in doubt already.
          {
            guard: { type: 'journalRefused', params: ({ event }) => ({ output: event.output }) },
            target: 'ready',
            actions: { type: 'refuseMutation', params: ({ event }) => ({ code: event.output.refusedCode ?? 'journal_refused', journaled: false }) },
          },
          { guard: { type: 'leaseOutlivesSend', params: ({ event }) => ({ output: event.output }) }, target: 'relaying' },
          // The journal write took too long: the readback is stale or the lease could lapse in flight.
          { target: 'ready', actions: { type: 'refuseMutation', params: { code: 'readback_stale', journaled: true } } },
        ],
        onError: { target: 'ready', actions: { type: 'refuseMutation', params: { code: 'storage_unavailable', journaled: false } } },
      },
    },
    // Only the relay's own answer leaves this state. Snapshots are never saved here, so a
    // restore never lands in it: an unsettled journal entry restores into ambiguous-intent.
    relaying: {
      tags: EFFECT_IN_FLIGHT,
      invoke: {
        id: 'relayMutation',
        src: 'relayMutation',
        input: ({ context }) => {
          const intent = context.pendingIntent;
          if (!intent?.mutation || !intent.binding || intent.epoch === null) throw new Error('relayMutation needs the journaled mutation');
          return {
            campaignId: context.campaignId,
            controllerId: context.controllerId,
            epoch: intent.epoch,
            requestId: intent.requestId,
            mutation: intent.mutation,
            binding: { taskId: intent.binding.taskId, contextId: context.lease?.contextId ?? intent.binding.contextId },
          };
        },
        onDone: [
          {
            guard: { type: 'relayAppliedRelease', params: ({ event }) => ({ output: event.output }) },
            target: `${AUTHORITY}.observing`,
            actions: { type: 'settleIntent', params: { status: 'applied', code: null, settledBy: 'response', taskId: null } },
          },
          {
            guard: { type: 'relayApplied', params: ({ event }) => ({ output: event.output }) },
            target: 'ready',
            actions: {
              type: 'settleIntent',
              params: ({ event }) => ({ status: 'applied', code: null, settledBy: 'response', taskId: event.output.outcome === 'applied' ? event.output.taskId : null }),
            },
          },
          {
            guard: { type: 'relayRejectedForLease', params: ({ event }) => ({ output: event.output }) },
            target: `${AUTHORITY}.control-lost`,
            actions: [
              { type: 'settleIntent', params: ({ event }) => ({ status: 'rejected', code: relayCode(event.output), settledBy: 'response', taskId: null }) },
              { type: 'noteError', params: ({ event }) => ({ code: relayCode(event.output) ?? 'relay_rejected' }) },
            ],
          },
          {
            guard: { type: 'relayRejected', params: ({ event }) => ({ output: event.output }) },
            target: 'ready',
            actions: [
              { type: 'settleIntent', params: ({ event }) => ({ status: 'rejected', code: relayCode(event.output), settledBy: 'response', taskId: null }) },
              { type: 'noteError', params: ({ event }) => ({ code: relayCode(event.output) ?? 'relay_rejected' }) },
            ],
          },
          // Anything else may have been applied: keep the intent, never resend.
          {
            target: `${AUTHORITY}.ambiguous-intent`,
            actions: [
              { type: 'settleIntent', params: ({ event }) => ({ status: 'ambiguous', code: relayCode(event.output), settledBy: 'response', taskId: null }) },
              { type: 'noteError', params: ({ event }) => ({ code: relayCode(event.output) ?? 'relay_ambiguous' }) },
            ],
          },
        ],
        onError: {
          target: `${AUTHORITY}.ambiguous-intent`,
          actions: [
            { type: 'settleIntent', params: { status: 'ambiguous', code: 'relay_crashed', settledBy: 'response', taskId: null } },
            { type: 'noteError', params: { code: 'relay_crashed' } },
          ],
        },
      },
    },
  },
});
