/**
 * `attention`: whether a person or Argus is needed, and the decision boundaries themselves.
 *
 * - Only a decision-worthy event wakes anyone: a completed attempt, a blocker, a Foreman
 *   directive that asks for Argus, an operator answer. Each is taken up at most once: one
 *   `argus_message` per event (`turn`), never re-sent on a re-entry (`sentFor`) or a restore
 *   (campaign.restore.ts turns a persisted turn into an "interrupted" NEEDS_YOU).
 * - Foreman (`assessing`) runs first for evidence and completed attempts when enabled; its
 *   directive is a hint or a wake, FINISH completes nothing, and a Foreman that cannot run
 *   blocks nothing.
 * - A dispatched mission is polled on the heartbeat with `argus_status` only (`mission` →
 *   `checking`), until its own Reviewer verdict (argus.verdict.ts) or the mission deadline.
 * - An approved proposal becomes a MUTATE with a review approval, raised only when
 *   `controlling.ready` will take it (the same MUTATE rule rows); without a lease it waits as
 *   NEEDS_YOU "claim to apply", and the next tick that finds a lease checks the verdict again.
 * - None of these states is an effect in flight: a snapshot may be saved in any of them.
 * @module
 */
import { and, not, stateIn } from 'xstate';
import { campaignSetup, rulesOf } from './campaign.setup.js';

const NEEDS_YOU = '#campaign.active.attention.needs-you';
const IDLE = '#campaign.active.attention.idle';
const CHECKING = '#campaign.active.attention.awaiting-review.checking';
const CONTROLLING = '#campaign.active.authority.controlling';
const READY = '#campaign.active.authority.controlling.ready';

/** A remote blocker always wins: the person answers the remote's own question first. */
const blocked = { guard: 'remoteReportsBlocked', target: NEEDS_YOU, actions: ['recordWakes', 'holdQuestion'] } as const;
/** …and the event being decided is dropped (recorded as interrupted; its turn is never replayed). */
const blockedMidDecision = { guard: 'remoteReportsBlocked', target: NEEDS_YOU, actions: ['recordWakes', 'abandonDecision', 'holdQuestion'] } as const;

export const attentionState = campaignSetup.createStateConfig({
  initial: 'idle',
  states: {
    idle: {
      initial: 'quiet',
      // An event that arrived while another was decided is taken up once that one settles.
      always: { guard: 'wakeQueued', target: 'awaiting-review', actions: 'takeQueuedWake' },
      on: {
        REMOTE_OBSERVED: [
          blocked,
          { guard: 'observationWantsForeman', target: 'assessing', actions: ['recordWakes', 'takeWake'] },
          { guard: 'observationWakesArgusHere', target: 'awaiting-review', actions: ['recordWakes', 'takeWake'] },
          { actions: 'recordWakes' },
        ],
        BIND_MISSION: { guard: rulesOf('BIND_MISSION'), target: 'binding' },
      },
      states: {
        quiet: { on: { TICK: { guard: 'bindingUnverified', target: 'verifying' } } },
        // After a restore: does the bound project still answer? (argus_status; no model call)
        verifying: {
          invoke: {
            id: 'verifyBinding',
            src: 'verifyBinding',
            input: ({ context }) => ({ projectId: context.argus.projectId ?? '' }),
            onDone: [
              { guard: { type: 'bindingAnswered', params: ({ event }) => ({ output: event.output }) }, target: 'quiet', actions: 'bindingVerified' },
              { guard: { type: 'bindingGone', params: ({ event }) => ({ output: event.output }) }, target: 'quiet', actions: { type: 'loseBinding', params: ({ event }) => ({ output: event.output }) } },
              // The runtime cannot run now: not a lost binding; the next tick asks again.
              { target: 'quiet' },
            ],
            onError: { target: 'quiet' },
          },
        },
      },
    },
    binding: {
      invoke: {
        id: 'bindMission',
        src: 'bindMission',
        input: ({ context }) => ({ campaignId: context.campaignId, projectId: context.argus.projectId }),
        onDone: [
          { guard: { type: 'missionBound', params: ({ event }) => ({ output: event.output }) }, target: 'idle', actions: { type: 'adoptBinding', params: ({ event }) => ({ output: event.output }) } },
          { target: 'idle', actions: { type: 'noteError', params: ({ event }) => ({ code: event.output.ok ? 'bind_failed' : event.output.code }) } },
        ],
        onError: { target: 'idle', actions: { type: 'noteError', params: { code: 'bind_failed' } } },
      },
      on: { REMOTE_OBSERVED: [blocked, { actions: 'recordWakes' }] },
    },
    assessing: {
      initial: 'entering',
      on: { REMOTE_OBSERVED: [blockedMidDecision, { actions: ['recordWakes', 'queueWake'] }] },
      states: {
        // Re-entered by a resume: Foreman is not asked twice about one event.
        entering: {
          always: [
            { guard: and(['assessmentAlreadyStarted', 'wakeWantsArgus']), target: '#campaign.active.attention.awaiting-review' },
            { guard: 'assessmentAlreadyStarted', target: IDLE, actions: { type: 'settleAssessment', params: ({ context }) => ({ output: { ok: false, code: 'assessment_interrupted', at: context.argus.last?.at ?? context.createdAt } }) } },
            { target: 'running' },
          ],
        },
        running: {
          entry: 'markAssessed',
          invoke: {
            id: 'foremanAssess',
            src: 'foremanAssess',
            input: ({ context }) => {
              const wake = context.argus.wake;
              if (!wake) throw new Error('foremanAssess is entered only with a wake');
              return { campaignId: context.campaignId, wake, remote: context.remote, attemptsSubmitted: context.attemptsSubmitted, maxAttempts: context.maxAttempts };
            },
            onDone: [
              {
                guard: { type: 'assessmentWakesArgus', params: ({ event }) => ({ output: event.output }) },
                target: '#campaign.active.attention.awaiting-review',
                actions: { type: 'adoptForemanHint', params: ({ event }) => ({ output: event.output }) },
              },
              { guard: { type: 'assessmentEscalates', params: ({ event }) => ({ output: event.output }) }, target: NEEDS_YOU, actions: { type: 'holdEscalation', params: ({ event }) => ({ output: event.output }) } },
              // CONTINUE, FINISH (a candidate completion only), or no Foreman: nobody is woken.
              { target: IDLE, actions: { type: 'settleAssessment', params: ({ event }) => ({ output: event.output }) } },
            ],
            onError: [
              { guard: 'wakeWantsArgus', target: '#campaign.active.attention.awaiting-review' },
              { target: IDLE, actions: { type: 'settleAssessment', params: ({ context }) => ({ output: { ok: false, code: 'foreman_crashed', at: context.argus.last?.at ?? context.createdAt } }) } },
            ],
          },
        },
      },
    },
    'awaiting-review': {
      initial: 'entering',
      on: { REMOTE_OBSERVED: [blockedMidDecision, { actions: ['recordWakes', 'queueWake'] }] },
      states: {
        // Re-entered by a resume: a turn already sent is never sent again for the same event.
        entering: {
          always: [
            { guard: 'missionDispatched', target: 'mission' },
            { guard: 'turnAlreadySent', target: NEEDS_YOU, actions: { type: 'holdTurnReceipt', params: ({ context }) => ({ kind: 'interrupted' as const, output: { ok: false as const, code: 'turn_interrupted', wokeAt: context.argus.last?.at ?? context.createdAt } }) } },
            { target: 'turn' },
          ],
        },
        turn: {
          entry: 'markTurnSent',
          invoke: {
            id: 'argusTurn',
            src: 'argusTurn',
            input: ({ context }) => {
              const wake = context.argus.wake;
              if (!wake || !context.argus.projectId) throw new Error('argusTurn is entered only with a wake and a binding');
              const q = context.pendingQuestion;
              return { campaignId: context.campaignId, projectId: context.argus.projectId, wake, remote: context.remote, remoteQuestion: q?.source === 'remote' ? q.text : null };
            },
            onDone: [
              { guard: { type: 'turnDispatched', params: ({ event }) => ({ output: event.output }) }, target: 'mission', actions: { type: 'startMission', params: ({ event }) => ({ output: event.output }) } },
              { guard: { type: 'turnAsked', params: ({ event }) => ({ output: event.output }) }, target: NEEDS_YOU, actions: { type: 'holdTurnQuestion', params: ({ event }) => ({ output: event.output }) } },
              { guard: { type: 'turnChatted', params: ({ event }) => ({ output: event.output }) }, target: IDLE, actions: { type: 'settleChat', params: ({ event }) => ({ output: event.output }) } },
              { guard: { type: 'turnTimedOut', params: ({ event }) => ({ output: event.output }) }, target: NEEDS_YOU, actions: { type: 'holdTurnReceipt', params: ({ event }) => ({ kind: 'timeout' as const, output: event.output }) } },
              { target: NEEDS_YOU, actions: { type: 'holdTurnReceipt', params: ({ event }) => ({ kind: 'failed' as const, output: event.output }) } },
            ],
            onError: {
              target: NEEDS_YOU,
              actions: { type: 'holdTurnReceipt', params: ({ context }) => ({ kind: 'failed' as const, output: { ok: false as const, code: 'turn_crashed', wokeAt: context.argus.last?.at ?? context.createdAt } }) },
            },
          },
        },
        // The mission runs in Argus's own daemon; each heartbeat asks how it stands.
        mission: {
          on: {
            TICK: [{ guard: 'missionPastDeadline', target: NEEDS_YOU, actions: 'holdUnsettled' }, { target: 'checking' }],
          },
        },
        checking: {
          invoke: {
            id: 'argusCheck',
            src: 'argusCheck',
            input: ({ context }) => {
              const mission = context.argus.mission;
              if (!mission || !context.argus.projectId) throw new Error('argusCheck is entered only with a dispatched mission');
              return { campaignId: context.campaignId, projectId: context.argus.projectId, eventKey: mission.eventKey };
            },
            onDone: [
              { guard: { type: 'checkUnsettled', params: ({ event }) => ({ output: event.output }) }, target: 'mission' },
              { guard: { type: 'verdictAsks', params: ({ event }) => ({ output: event.output }) }, target: NEEDS_YOU, actions: { type: 'holdVerdictQuestion', params: ({ event }) => ({ output: event.output }) } },
              { guard: { type: 'verdictRejected', params: ({ event }) => ({ output: event.output }) }, target: IDLE, actions: { type: 'settleVerdict', params: ({ event }) => ({ output: event.output, outcome: 'rejected' as const }) } },
              { guard: { type: 'decisionConsumed', params: ({ event }) => ({ output: event.output }) }, target: IDLE, actions: { type: 'settleVerdict', params: ({ event }) => ({ output: event.output, outcome: 'consumed' as const }) } },
              { guard: { type: 'verdictObserves', params: ({ event }) => ({ output: event.output }) }, target: IDLE, actions: { type: 'settleVerdict', params: ({ event }) => ({ output: event.output, outcome: 'approved' as const }) } },
              {
                guard: and([stateIn(READY), 'decisionPassesMutationRules']),
                target: IDLE,
                actions: { type: 'relayDecision', params: ({ event }) => ({ output: event.output }) },
              },
              {
                guard: and([not(stateIn(CONTROLLING)), 'verdictApprovesMutation']),
                target: NEEDS_YOU,
                actions: { type: 'holdDecision', params: ({ event }) => ({ output: event.output }) },
              },
              // Controlling, but renewing or relaying right now: the next tick checks again.
              { guard: and([not(stateIn(READY)), 'verdictApprovesMutation']), target: 'mission' },
              { target: NEEDS_YOU, actions: { type: 'holdRefusedDecision', params: ({ event }) => ({ output: event.output }) } },
            ],
            onError: { target: 'mission' },
          },
        },
      },
    },
    'needs-you': {
      on: {
        // An Argus question (or receipt) is answered to Argus: one turn with the operator's words.
        OPERATOR_ANSWER: { guard: and([rulesOf('OPERATOR_ANSWER'), 'questionFromArgus']), target: 'awaiting-review', actions: ['recordWakes', 'takeAnswerWake', 'clearQuestion'] },
        // The remote's question was answered by our fenced `answer` (authority region).
        REMOTE_ANSWERED: { guard: 'answeredPendingQuestion', target: 'idle', actions: 'clearQuestion' },
        // A proposal held for the lease: once we control, check its verdict again and apply it.
        TICK: { guard: and(['decisionHeld', stateIn(READY)]), target: CHECKING, actions: 'clearQuestion' },
        REMOTE_OBSERVED: [
          // The remote's question takes the card; a proposal held for the lease is dropped with it
          // (settled as interrupted), or the next tick in control would apply it and clear the question.
          { guard: 'remoteReportsBlocked', actions: ['recordWakes', 'abandonDecision', 'holdQuestion'] },
          { guard: and(['remoteQuestionWithdrawn', 'observationWakesArgusHere']), target: 'awaiting-review', actions: ['recordWakes', 'clearQuestion', 'takeWake'] },
          { guard: 'remoteQuestionWithdrawn', target: 'idle', actions: ['recordWakes', 'clearQuestion'] },
          { actions: ['recordWakes', 'queueWake'] },
        ],
      },
    },
    'before-pause': { type: 'history' },
  },
});
