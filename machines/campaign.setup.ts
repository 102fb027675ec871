/**
 * The campaign chart's vocabulary of behaviour: the typed setup with every named guard and
 * every action, so the chart (`campaign.machine.ts` and its regions) reads as states and arrows.
 * Guards are the rules of `campaign.guards.ts` and the operator tables of `campaign.rules.ts`;
 * actions only assign, emit (for the host) and raise (to the other regions). Pure.
 * @module
 */
import { and, assign, emit, enqueueActions, setup } from 'xstate';
import { campaignActors } from './campaign.actors.js';
import * as rule from './campaign.guards.js';
import { decisionGuards, decisionSteps as steps, run } from './campaign.decide.setup.js';
import { guardsOf, operatorGuards } from './campaign.rules.js';
import { rotatedInDoubt, rotatedLease, rotationGuards } from './campaign.rotation.js';
import type {
  CampaignContext,
  CampaignEmitted,
  CampaignEvent,
  CampaignInput,
  OperatorEvent,
  ClaimLeaseOutput,
  IntentStatus,
  LeaseReadback,
  ReadStatusOutput,
  RelayMutationOutput,
  RenewLeaseOutput,
  RotateLeaseOutput,
} from './campaign.types.js';
import type { WakeRequest } from './vocabulary.js';

export const AUTHORITY = '#campaign.active.authority';
export const ATTENTION = '#campaign.active.attention';
export const PAUSED = '#campaign.paused';
export const CLOSED = '#campaign.closed';

/** The chart's guard for an operator event: every `guard` row of its table, in order. */
export const rulesOf = (type: OperatorEvent['type']) => and(guardsOf(type) as never[]);

/** Tag on every state with an invoked effect that must not re-run: never persist a snapshot then. */
export const EFFECT_IN_FLIGHT = 'effect-in-flight';

const addMs = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** The stable code of a relay answer that carries one. */
export const relayCode = (output: RelayMutationOutput): string | null => ('code' in output ? output.code : null);

type ReadArgs = { output: ReadStatusOutput };

const readSettled = (context: CampaignContext, result: 'unchanged' | 'changed' | 'failed', output: ReadStatusOutput): CampaignEmitted => ({
  type: 'READ_SETTLED',
  campaignId: context.campaignId,
  result,
  code: output.ok ? null : output.code,
  at: output.requestedAt,
  answeredAt: output.answeredAt,
  message: output.ok ? output.message : null,
});

type G = { context: CampaignContext; event: CampaignEvent };
const on =
  <T extends CampaignEvent['type']>(type: T, test: (c: CampaignContext, e: Extract<CampaignEvent, { type: T }>) => boolean) =>
  ({ context, event }: G) =>
    event.type === type && test(context, event as Extract<CampaignEvent, { type: T }>);

export const campaignSetup = setup({
  types: {
    context: {} as CampaignContext,
    events: {} as CampaignEvent,
    input: {} as CampaignInput,
    emitted: {} as CampaignEmitted,
    tags: {} as typeof EFFECT_IN_FLIGHT,
  },
  actors: campaignActors,
  guards: {
    ...operatorGuards(),
    intentOpen: ({ context }: G) => context.pendingIntent !== null,
    leaseDueForRenewal: on('TICK', (c, e) => rule.renewalDue(c.campaignId, c.lease, e.now, c.environment.cadenceMs)),
    // On a TICK, and on a takeover: a lease that can no longer be renewed in time is not rotated either.
    leaseRenewalDeadlinePassed: ({ context, event }: G) =>
      (event.type === 'TICK' || event.type === 'HOSTING_TAKEN_OVER') && rule.leaseRenewalDeadlinePassed(context.lease, event.now),
    readDue: on('TICK', (c, e) => rule.readDue(c, e.now)),
    environmentChanged: on('ENVIRONMENT', (c, e) => rule.environmentChanged(c.environment, e.environment)),
    readbackShowsLeaseLost: on('LEASE_READBACK', (c, e) => rule.readbackShowsLeaseLost(c, e.readback, e.requestedAt)),
    leaseLapsed: on('LEASE_LAPSED', (c, e) => c.lease !== null && !rule.leaseUnexpiredAt(c.lease, e.now)),
    remoteReportsBlocked: on('REMOTE_OBSERVED', (_c, e) => e.events.some((x) => x.class === 'BLOCKED')),
    /** The remote asked, and is no longer blocked: someone answered it elsewhere. */
    remoteQuestionWithdrawn: on('REMOTE_OBSERVED', (c, e) => !e.remoteBlocked && c.pendingQuestion?.source === 'remote'),
    ...decisionGuards,
    ...rotationGuards,
    // Effect answers arrive as params (typed from the done event at the transition).
    statusUnchanged: ({ context }: G, p: { output: Parameters<typeof rule.statusUnchanged>[1] }) => rule.statusUnchanged(context, p.output),
    statusRead: (_: G, p: { output: Parameters<typeof rule.statusUnchanged>[1] }) => p.output.ok,
    claimConfirmedByReadback: ({ context }: G, p: { output: Parameters<typeof rule.claimConfirmedByReadback>[1] }) => rule.claimConfirmedByReadback(context, p.output),
    renewalConfirmsLease: ({ context }: G, p: { output: Parameters<typeof rule.renewalConfirmsLease>[1] }) => rule.renewalConfirmsLease(context, p.output),
    leaseReadFailed: (_: G, p: { output: Parameters<typeof rule.leaseReadFailed>[0] }) => rule.leaseReadFailed(p.output),
    readbackShowsUs: ({ context }: G, p: { output: Parameters<typeof rule.readbackShowsUs>[1] }) => rule.readbackShowsUs(context, p.output),
    journalRefused: (_: G, p: { output: Parameters<typeof rule.journaledInTime>[1] }) => p.output.refusedCode !== null,
    leaseOutlivesSend: ({ context }: G, p: { output: Parameters<typeof rule.journaledInTime>[1] }) => rule.journaledInTime(context, p.output),
    relayAppliedRelease: ({ context }: G, p: { output: Parameters<typeof rule.relayApplied>[0] }) =>
      rule.relayApplied(p.output) && context.pendingIntent?.kind === 'release',
    relayApplied: (_: G, p: { output: Parameters<typeof rule.relayApplied>[0] }) => rule.relayApplied(p.output),
    relayRejectedForLease: (_: G, p: { output: Parameters<typeof rule.relayApplied>[0] }) => rule.relayRejectedForLease(p.output),
    relayRejected: (_: G, p: { output: Parameters<typeof rule.relayApplied>[0] }) => rule.relayRejected(p.output),
    intentSettledByReadback: ({ context }: G, p: { output: Parameters<typeof rule.intentSettledByReadback>[1] }) =>
      rule.intentSettledByReadback(context, p.output),
  },
  actions: {
    noteError: assign((_, params: { code: string }) => ({ lastErrorCode: params.code })),
    /** Whatever way we leave controlling, the local lease goes with us: it was never proof anyway. */
    dropLease: assign(({ context }) => ({
      lease: null,
      lastEpoch: context.lease?.epoch ?? context.lastEpoch,
      lastHeldSince: context.lease?.heldSince ?? context.lastHeldSince,
    })),
    /** A claim starts a new hold; the context it leased is the campaign's context from now on. */
    adoptClaim: assign(({ context }, params: { output: ClaimLeaseOutput }) => {
      const { readback, contextId, ttlSeconds } = params.output;
      if (!readback || !contextId) return {};
      const lease = { epoch: readback.epoch, expiresAt: readback.expiresAt, heldSince: readback.readAt, confirmedAt: readback.readAt, contextId, ttlSeconds };
      return { lease, lastErrorCode: null, binding: { ...context.binding, contextId: context.binding.contextId ?? contextId } };
    }),
    /** A takeover's rotation: the greater epoch the remote granted is our hold from now on. */
    adoptRotation: assign(({ context }, params: { output: RotateLeaseOutput }) => rotatedLease(context, params.output)),
    /** The same in doubt: no control comes back, the greater epoch is only the last we held. */
    adoptRotationInDoubt: assign((_, params: { output: RotateLeaseOutput }) => rotatedInDoubt(params.output)),
    /** The process's facts changed (discovery answered, Argus's runtime came or went). */
    adoptEnvironment: assign(({ event }) => (event.type === 'ENVIRONMENT' ? { environment: event.environment } : {})),
    /** A renewal extends the hold we have (same epoch, same `heldSince`). */
    adoptRenewal: assign(({ context }, params: { output: RenewLeaseOutput }) => {
      const lease = params.output.lease;
      if (!lease || !context.lease) return {};
      return { lease: { ...context.lease, expiresAt: lease.expiresAt, confirmedAt: lease.readAt } };
    }),
    emitClaimSettled: emit(({ context }, params: { granted: boolean; code: string | null }) => ({
      type: 'CLAIM_SETTLED' as const,
      campaignId: context.campaignId,
      granted: params.granted,
      epoch: params.granted ? (context.lease?.epoch ?? null) : null,
      code: params.code,
    })),
    /** The accepted MUTATE becomes the pending intent: the later steps read it, not the event. */
    openIntent: assign(({ context, event }) =>
      event.type === 'MUTATE'
        ? {
            pendingIntent: {
              requestId: event.requestId,
              kind: event.mutation.kind,
              epoch: event.epoch,
              mutation: event.mutation,
              binding: rule.mutationTarget(context),
              readback: null,
              decisionId: event.approval.kind === 'review' ? event.approval.decisionId : null,
            },
          }
        : {},
    ),
    /** The operator's answer to the remote's question, as the pending fenced mutation (our epoch, never anyone else's). */
    openAnswerIntent: assign(({ context, event }) =>
      event.type === 'OPERATOR_ANSWER' && context.lease
        ? {
            pendingIntent: {
              requestId: event.requestId,
              kind: 'answer' as const,
              epoch: context.lease.epoch,
              mutation: { kind: 'answer' as const, text: event.answer, questionKey: event.questionKey },
              binding: rule.mutationTarget(context),
              readback: null,
              decisionId: null,
            },
          }
        : {},
    ),
    recordReadback: assign(({ context }, params: { readback: LeaseReadback | null }) =>
      context.pendingIntent ? { pendingIntent: { ...context.pendingIntent, readback: params.readback } } : {},
    ),
    /** Refused after acceptance: nothing left the process (a journaled one is settled as rejected). */
    refuseMutation: enqueueActions(({ context, enqueue }, params: { code: string; journaled: boolean }) => {
      const intent = context.pendingIntent;
      if (!intent) return;
      const { campaignId } = context;
      enqueue.emit({ type: 'MUTATION_REFUSED', campaignId, requestId: intent.requestId, code: params.code, journaled: params.journaled });
      if (params.journaled) {
        const settled = { status: 'rejected' as const, code: params.code, settledBy: 'response' as const, taskId: null };
        enqueue.emit({ type: 'INTENT_SETTLED', campaignId, requestId: intent.requestId, kind: intent.kind, ...settled });
      }
      enqueue.assign({ pendingIntent: null, lastErrorCode: params.code });
    }),
    /** The journal records the outcome in the write that saves the snapshot after it. */
    settleIntent: enqueueActions(
      ({ context, enqueue }, params: { status: IntentStatus; code: string | null; settledBy: 'response' | 'readback'; taskId: string | null }) => {
        const intent = context.pendingIntent;
        if (!intent) return;
        const { campaignId } = context;
        enqueue.emit({ type: 'INTENT_SETTLED', campaignId, requestId: intent.requestId, kind: intent.kind, ...params });
        if (params.status === 'ambiguous') return; // still pending: ambiguous-intent keeps it
        const applied = params.status === 'applied';
        // An applied submit created the task the campaign follows from now on, in the leased context.
        const submitted = applied && intent.kind === 'submit' ? params.taskId : null;
        const binding = submitted ? { taskId: submitted, contextId: intent.binding?.contextId ?? context.binding.contextId } : context.binding;
        enqueue.assign({ pendingIntent: null, attemptsSubmitted: context.attemptsSubmitted + (applied && intent.kind === 'submit' ? 1 : 0), binding });
        // The remote's question is answered: the attention region lets it go.
        if (applied && intent.mutation?.kind === 'answer') enqueue.raise({ type: 'REMOTE_ANSWERED', questionKey: intent.mutation.questionKey });
      },
    ),
    adoptIntentInDoubt: assign(({ context, event }) =>
      event.type === 'INTENT_IN_DOUBT'
        ? { pendingIntent: context.pendingIntent ?? { requestId: event.requestId, kind: event.kind, epoch: null, mutation: null, binding: null, readback: null } }
        : {},
    ),
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
    /** Unchanged: the lease is still judged (every read carries it); nothing else happens. */
    settleUnchangedRead: enqueueActions(({ context, enqueue }, { output }: ReadArgs) => {
      if (!output.ok) return;
      // Only a lease we hold has anything to judge (an observer's read costs no second microstep).
      if (context.lease) enqueue.raise({ type: 'LEASE_READBACK', readback: output.readback, requestedAt: output.requestedAt });
      enqueue.emit(readSettled(context, 'unchanged', output));
    }),
    /** A material (or recovering) read: remember the view, tell the other regions, publish. */
    settleMaterialRead: enqueueActions(({ context, enqueue }, { output }: ReadArgs) => {
      if (!output.ok) return;
      const observation = output.observation;
      const view = observation?.view ?? (context.remote ? { ...context.remote, observedAt: output.requestedAt } : null);
      enqueue.assign({ remote: view, readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false }, binding: rule.bindingSeenBy(context.binding, view) });
      if (observation) {
        const { events, wakes, remoteBlocked, argusAvailable, foremanEnabled } = observation;
        enqueue.raise({ type: 'REMOTE_OBSERVED', observedAt: output.requestedAt, events, wakes, remoteBlocked, argusAvailable, foremanEnabled });
        if (observation.drafts.length) enqueue.emit({ type: 'PUBLIC_DRAFTS', campaignId: context.campaignId, drafts: observation.drafts });
      }
      if (context.lease) enqueue.raise({ type: 'LEASE_READBACK', readback: output.readback, requestedAt: output.requestedAt });
      enqueue.emit(readSettled(context, 'changed', output));
    }),
    /** A failed read is never a failed attempt: count it, back off, and let a lease that expired lapse. */
    settleFailedRead: enqueueActions(({ context, enqueue }, { output }: ReadArgs) => {
      if (output.ok) return;
      const { failure } = output;
      const readFailures = {
        consecutive: failure.consecutive,
        nextReadAt: addMs(output.requestedAt, failure.backoffMs),
        criticalRaised: context.readFailures.criticalRaised || failure.critical,
      };
      enqueue.assign({ readFailures, lastErrorCode: output.code });
      if (failure.drafts.length) enqueue.emit({ type: 'PUBLIC_DRAFTS', campaignId: context.campaignId, drafts: failure.drafts });
      if (context.lease) enqueue.raise({ type: 'LEASE_LAPSED', now: output.requestedAt });
      enqueue.emit(readSettled(context, 'failed', output));
    }),
    clearBackoff: assign(({ context }) => ({ readFailures: { ...context.readFailures, nextReadAt: null } })),
    recordWakes: enqueueActions(({ context, event, enqueue }) => {
      const wakes: WakeRequest[] = [];
      if (event.type === 'REMOTE_OBSERVED') wakes.push(...event.wakes);
      if (event.type === 'OPERATOR_ANSWER') {
        wakes.push({ target: 'argus', reason: 'operator_answered', eventClass: null, dedupeKey: `answer:${event.questionKey}` });
      }
      let lastArgusEventKey = context.wakes.lastArgusEventKey;
      for (const wake of wakes) {
        if (wake.target === 'argus') lastArgusEventKey = wake.dedupeKey;
        enqueue.emit({ type: 'WAKE_REQUESTED', campaignId: context.campaignId, wake });
      }
      if (lastArgusEventKey !== context.wakes.lastArgusEventKey) enqueue.assign({ wakes: { lastArgusEventKey } });
    }),
    holdQuestion: assign(({ event }) => {
      if (event.type !== 'REMOTE_OBSERVED') return {};
      const blocked = event.events.find((e) => e.class === 'BLOCKED');
      return blocked ? { pendingQuestion: { key: blocked.dedupeKey, text: blocked.question ?? '', source: 'remote' as const, askedAt: event.observedAt } } : {};
    }),
    clearQuestion: assign({ pendingQuestion: null }),
    // ---- the decision boundaries (campaign.decide.setup.ts) ----
    takeWake: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.takeWake>[2]) => run(enqueue, steps.takeWake(context, event, params))),
    queueWake: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.queueWake>[2]) => run(enqueue, steps.queueWake(context, event, params))),
    takeQueuedWake: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.takeQueuedWake>[2]) => run(enqueue, steps.takeQueuedWake(context, event, params))),
    takeAnswerWake: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.takeAnswerWake>[2]) => run(enqueue, steps.takeAnswerWake(context, event, params))),
    markTurnSent: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.markTurnSent>[2]) => run(enqueue, steps.markTurnSent(context, event, params))),
    markAssessed: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.markAssessed>[2]) => run(enqueue, steps.markAssessed(context, event, params))),
    adoptForemanHint: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.adoptForemanHint>[2]) => run(enqueue, steps.adoptForemanHint(context, event, params))),
    settleAssessment: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.settleAssessment>[2]) => run(enqueue, steps.settleAssessment(context, event, params))),
    holdEscalation: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdEscalation>[2]) => run(enqueue, steps.holdEscalation(context, event, params))),
    startMission: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.startMission>[2]) => run(enqueue, steps.startMission(context, event, params))),
    holdTurnQuestion: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdTurnQuestion>[2]) => run(enqueue, steps.holdTurnQuestion(context, event, params))),
    settleChat: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.settleChat>[2]) => run(enqueue, steps.settleChat(context, event, params))),
    holdTurnReceipt: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdTurnReceipt>[2]) => run(enqueue, steps.holdTurnReceipt(context, event, params))),
    holdUnsettled: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdUnsettled>[2]) => run(enqueue, steps.holdUnsettled(context, event, params))),
    holdVerdictQuestion: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdVerdictQuestion>[2]) => run(enqueue, steps.holdVerdictQuestion(context, event, params))),
    settleVerdict: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.settleVerdict>[2]) => run(enqueue, steps.settleVerdict(context, event, params))),
    relayDecision: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.relayDecision>[2]) => run(enqueue, steps.relayDecision(context, event, params))),
    holdDecision: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdDecision>[2]) => run(enqueue, steps.holdDecision(context, event, params))),
    holdRefusedDecision: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.holdRefusedDecision>[2]) => run(enqueue, steps.holdRefusedDecision(context, event, params))),
    abandonDecision: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.abandonDecision>[2]) => run(enqueue, steps.abandonDecision(context, event, params))),
    adoptBinding: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.adoptBinding>[2]) => run(enqueue, steps.adoptBinding(context, event, params))),
    bindingVerified: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.bindingVerified>[2]) => run(enqueue, steps.bindingVerified(context, event, params))),
    loseBinding: enqueueActions(({ context, event, enqueue }, params: Parameters<typeof steps.loseBinding>[2]) => run(enqueue, steps.loseBinding(context, event, params))),
  },
});
