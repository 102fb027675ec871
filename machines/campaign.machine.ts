/**
 * The campaign: who holds authority over the remote task (authority), whether a person or Argus
 * is needed (attention), and the status read (heartbeat), side by side. Read it as the spec:
 *
 * - The heartbeat scheduler only sends TICK; the chart decides to read, and what the read means.
 *   An unchanged read changes nothing but `LEASE_READBACK`, which judges the lease.
 * - A mutation is relayed only from `controlling.ready`, only when every rule of its table holds,
 *   after a fresh lease readback, after its intent is journaled, and only if the lease still
 *   outlives the send. Only the relay's own answer leaves `relaying`.
 * - Claim is only ever an explicit operator event, confirmed by a readback that shows us.
 * - Losing the lease enters `control-lost`, which emits CONTROL_LOST exactly once (on entry).
 * - An ambiguous relay enters `ambiguous-intent`; only a readback by request id leaves it, and
 *   it leaves to `observing` (never back to control, never a resend). A takeover in doubt first
 *   rotates the epoch the intent was sent under (campaign.rotating.ts), and stays in doubt.
 * - Snapshots are persisted only when no effect is in flight (`isQuiescent`): XState re-runs an
 *   in-flight promise actor on restore, and a relay must never run twice. A status read is not
 *   such an effect: a snapshot written mid-read restores in `heartbeat.idle` and the next TICK
 *   reads again (campaign.restore.ts).
 * - The status read is one long-lived reader per campaign (`statusReader`), asked once per due
 *   TICK: at 10,000 campaigns a child actor per read was most of a sweep's garbage.
 * @module
 */
import { sendTo } from 'xstate';
import { initialArgusMemory } from './campaign.argus.js';
import { attentionState } from './campaign.attention.js';
import { controllingState } from './campaign.controlling.js';
import { rotationStates } from './campaign.rotating.js';
import { AUTHORITY, ATTENTION, CLOSED, campaignSetup, EFFECT_IN_FLIGHT, PAUSED, rulesOf } from './campaign.setup.js';
import { DEFAULT_CONTROLLER_ID, DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_BOUNDS, NO_ENVIRONMENT, type CampaignContext, type CampaignInput } from './campaign.types.js';

export { CAMPAIGN_MACHINE_VERSION, isQuiescent } from './campaign.version.js';
export { checkRestorable, isKnownMachineVersion } from './campaign.restore.js';
export type * from './campaign.types.js';

export { EFFECT_IN_FLIGHT } from './campaign.setup.js';

export function initialCampaignContext(input: CampaignInput): CampaignContext {
  const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < MAX_ATTEMPTS_BOUNDS.min || maxAttempts > MAX_ATTEMPTS_BOUNDS.max) {
    // Fail closed: a bound we cannot honour is not silently clamped.
    throw new RangeError(`maxAttempts must be an integer in ${MAX_ATTEMPTS_BOUNDS.min}..${MAX_ATTEMPTS_BOUNDS.max}`);
  }
  return {
    campaignId: input.campaignId,
    controllerId: input.controllerId ?? DEFAULT_CONTROLLER_ID,
    createdAt: input.createdAt ?? new Date(0).toISOString(),
    maxAttempts,
    attemptsSubmitted: 0,
    lease: null,
    lastEpoch: null,
    lastHeldSince: null,
    pendingIntent: null,
    pendingQuestion: null,
    lastErrorCode: null,
    remote: null,
    readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false },
    wakes: { lastArgusEventKey: null },
    argus: initialArgusMemory(),
    binding: input.binding ?? { taskId: null, contextId: null },
    environment: input.environment ?? NO_ENVIRONMENT,
  };
}

export const campaignMachine = campaignSetup.createMachine({
  id: 'campaign',
  context: ({ input }) => initialCampaignContext(input),
  initial: 'active',
  // The process's facts reach every actor, whatever its state; an unchanged broadcast is no assign.
  on: { ENVIRONMENT: { guard: 'environmentChanged', actions: 'adoptEnvironment' } },
  states: {
    active: {
      type: 'parallel',
      states: {
        authority: {
          initial: 'observing',
          on: {
            // Restore found a journaled intent with no outcome: whatever we were, we are in doubt.
            INTENT_IN_DOUBT: { target: '.ambiguous-intent', actions: 'adoptIntentInDoubt' },
          },
          states: {
            observing: { on: {
                OPERATOR_CLAIM: { guard: rulesOf('OPERATOR_CLAIM'), target: 'claiming' },
                PAUSE: { target: PAUSED },
                CLOSE: { guard: rulesOf('CLOSE'), target: CLOSED },
              },
            },
            claiming: {
              tags: EFFECT_IN_FLIGHT,
              invoke: {
                id: 'claimLease',
                src: 'claimLease',
                input: ({ context, event }) => {
                  if (event.type !== 'OPERATOR_CLAIM') throw new Error('claimLease is entered only by OPERATOR_CLAIM');
                  return { campaignId: context.campaignId, controllerId: context.controllerId, ttlSeconds: event.ttlSeconds, binding: context.binding };
                },
                onDone: [
                  {
                    guard: { type: 'claimConfirmedByReadback', params: ({ event }) => ({ output: event.output }) },
                    target: 'controlling',
                    actions: [
                      { type: 'adoptClaim', params: ({ event }) => ({ output: event.output }) },
                      { type: 'emitClaimSettled', params: { granted: true, code: null } },
                    ],
                  },
                  {
                    target: 'observing',
                    actions: [
                      { type: 'noteError', params: ({ event }) => ({ code: event.output.code ?? 'claim_not_confirmed' }) },
                      { type: 'emitClaimSettled', params: ({ event }) => ({ granted: false, code: event.output.code ?? 'claim_not_confirmed' }) },
                    ],
                  },
                ],
                onError: {
                  target: 'observing',
                  actions: [
                    { type: 'noteError', params: { code: 'claim_failed' } },
                    { type: 'emitClaimSettled', params: { granted: false, code: 'claim_failed' } },
                  ],
                },
              },
            },
            controlling: controllingState,
            'control-lost': { entry: 'emitControlLost', on: {
                OPERATOR_CLAIM: { guard: rulesOf('OPERATOR_CLAIM'), target: 'claiming' },
                PAUSE: { target: PAUSED },
                CLOSE: { guard: rulesOf('CLOSE'), target: CLOSED },
              },
            },
            'ambiguous-intent': {
              initial: 'unresolved',
              entry: 'emitIntentAmbiguous',
              // Already in doubt: record, but do not re-enter (no second emission).
              on: { INTENT_IN_DOUBT: { actions: 'adoptIntentInDoubt' } },
              states: {
                unresolved: {
                  on: {
                    RESOLVE_INTENT: { target: 'resolving' },
                    PAUSE: { target: PAUSED },
                    // A takeover in doubt: the previous host's request may still be in flight at
                    // the epoch we held, so the remote is made to refuse it (while it still shows
                    // that hold) before the readback by request id can say `not_applied`.
                    HOSTING_TAKEN_OVER: { guard: 'inDoubtUnderHold', target: 'rotating' },
                  },
                },
                // Back to `unresolved` whatever the rotation found: the intent is still in doubt
                // and only its readback settles it (never a resend). A rotation that could not be
                // done (another holder, no lease, too late, no answer) leaves its code, and the
                // operator resolves as always: a lease already gone from us fences the old epoch
                // too, while an unreachable remote could not have been asked to refuse it anyway.
                // Giving up here (control-lost) would drop the intent's only way out.
                ...rotationStates('unresolved', 'unresolved', 'adoptRotationInDoubt'),
                resolving: {
                  tags: EFFECT_IN_FLIGHT,
                  invoke: {
                    id: 'readBackIntent',
                    src: 'readBackIntent',
                    input: ({ context }) => ({
                      campaignId: context.campaignId,
                      requestId: context.pendingIntent?.requestId ?? '',
                      kind: context.pendingIntent?.kind ?? 'submit',
                      readbackSupported: context.environment.capabilities?.requestReadback === true,
                    }),
                    onDone: [
                      {
                        guard: { type: 'intentSettledByReadback', params: ({ event }) => ({ output: event.output }) },
                        target: `${AUTHORITY}.observing`,
                        actions: {
                          type: 'settleIntent',
                          params: ({ event }) => ({
                            status: event.output.status === 'applied' ? 'applied' : 'not_applied',
                            code: null,
                            settledBy: 'readback',
                            taskId: event.output.taskId,
                          }),
                        },
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
        attention: attentionState,
        heartbeat: {
          initial: 'idle',
          // One reader for as long as the campaign is active (paused stops it); each due TICK
          // asks it once, and only its answer leaves `reading`.
          invoke: { id: 'statusReader', src: 'statusReader' },
          states: {
            idle: {
              on: {
                TICK: { guard: 'readDue', target: 'reading' },
                OBSERVE: { guard: rulesOf('OBSERVE'), target: 'reading' },
              },
            },
            reading: {
              entry: sendTo('statusReader', ({ context, event }) => {
                const { taskId, contextId } = context.binding;
                if ((event.type !== 'TICK' && event.type !== 'OBSERVE') || taskId === null) throw new Error('a status read is asked only by a TICK or an OBSERVE with a bound task');
                return {
                  type: 'READ' as const,
                  input: {
                    campaignId: context.campaignId,
                    controllerId: context.controllerId,
                    taskId,
                    contextId,
                    previous: context.remote,
                    readFailures: context.readFailures,
                    createdAt: context.createdAt,
                    cadenceMs: context.environment.cadenceMs,
                    now: event.now,
                    beat: event.type === 'TICK',
                  },
                };
              }),
              on: {
                READ_DONE: [
                  { guard: { type: 'statusUnchanged', params: ({ event }) => ({ output: event.output }) }, target: 'idle', actions: { type: 'settleUnchangedRead', params: ({ event }) => ({ output: event.output }) } },
                  { guard: { type: 'statusRead', params: ({ event }) => ({ output: event.output }) }, target: 'idle', actions: { type: 'settleMaterialRead', params: ({ event }) => ({ output: event.output }) } },
                  { target: 'idle', actions: { type: 'settleFailedRead', params: ({ event }) => ({ output: event.output }) } },
                ],
                READ_CRASHED: { target: 'idle', actions: { type: 'noteError', params: { code: 'read_crashed' } } },
              },
            },
          },
        },
      },
    },
    // Reading and renewal stop; the remote lease expires unless released first.
    paused: {
      on: {
        // Resume only observes; an open intent keeps blocking from where it was.
        RESUME: [
          { guard: 'intentOpen', target: [`${AUTHORITY}.ambiguous-intent`, `${ATTENTION}.before-pause`], actions: 'clearBackoff' },
          { target: [`${AUTHORITY}.observing`, `${ATTENTION}.before-pause`], actions: 'clearBackoff' },
        ],
        INTENT_IN_DOUBT: { actions: 'adoptIntentInDoubt' },
        CLOSE: { guard: rulesOf('CLOSE'), target: CLOSED },
      },
    },
    closed: { type: 'final' },
  },
});

export type CampaignMachine = typeof campaignMachine;
