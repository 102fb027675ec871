/**
 * The effects the campaign invokes, as typed placeholders. The services replace every one, once,
 * with `campaignMachine.provide({ actors: createCampaignEffects(deps) })`; each placeholder
 * answers "nothing happened" so that a forgotten wiring fails closed (nothing read, no lease,
 * nothing journaled, nothing sent) instead of pretending.
 * @module
 */
import { fromCallback, fromPromise } from 'xstate';
import type {
  ClaimLeaseInput,
  ClaimLeaseOutput,
  JournalIntentInput,
  JournalIntentOutput,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  ReadLeaseInput,
  ReadLeaseOutput,
  ReadRequest,
  RelayMutationInput,
  RelayMutationOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
  RotateLeaseInput,
  RotateLeaseOutput,
} from './campaign.types.js';
import type {
  ArgusCheckInput,
  ArgusCheckOutput,
  ArgusTurnInput,
  ArgusTurnOutput,
  BindMissionInput,
  BindMissionOutput,
  ForemanAssessInput,
  ForemanAssessOutput,
  VerifyBindingInput,
  VerifyBindingOutput,
} from './campaign.argus.js';

const NOT_PROVIDED = 'actor_not_provided';

/** The status reader: one compact read per READ, reduced against the last view. */
export const statusReader = fromCallback<ReadRequest>(({ receive, sendBack }) => {
  receive(({ input }) =>
    sendBack({
      type: 'READ_DONE',
      output: { ok: false, requestedAt: input.now, code: NOT_PROVIDED, failure: { consecutive: input.readFailures.consecutive, critical: false, backoffMs: input.cadenceMs, drafts: [] } },
    }),
  );
});

/** Claims the lease (learning the context from the task if needed), then reads it back. */
export const claimLease = fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => ({
  claimed: null,
  readback: null,
  contextId: input.binding.contextId,
  ttlSeconds: input.ttlSeconds,
  code: NOT_PROVIDED,
}));

/** Renews our lease at our epoch. */
export const renewLease = fromPromise<RenewLeaseOutput, RenewLeaseInput>(async () => ({ lease: null, code: NOT_PROVIDED }));

/** Reads the lease back right before a mutation is journaled. */
export const readLease = fromPromise<ReadLeaseOutput, ReadLeaseInput>(async () => ({ readback: null, code: NOT_PROVIDED }));

/** Reads the lease back after a takeover and, while it is ours, claims again for a greater epoch. */
export const rotateLease = fromPromise<RotateLeaseOutput, RotateLeaseInput>(async () => ({ before: null, claimed: null, readback: null, code: NOT_PROVIDED }));

/** Journals the intent durably (fsync); resolves only when it is on disk. */
export const journalIntent = fromPromise<JournalIntentOutput, JournalIntentInput>(async () => {
  throw new Error(NOT_PROVIDED);
});

/** Sends exactly one fenced mutation and classifies the answer as applied / rejected / ambiguous. */
export const relayMutation = fromPromise<RelayMutationOutput, RelayMutationInput>(async ({ input }) => ({
  outcome: 'rejected',
  requestId: input.requestId,
  code: NOT_PROVIDED,
  leaseLost: false,
}));

/** Reads back one request id (`request.get`); never resends anything. */
export const readBackIntent = fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(async ({ input }) => ({
  requestId: input.requestId,
  status: 'unavailable',
  taskId: null,
}));

// ---- the decision boundaries: nothing is decided, no model is called -------------------------

/** One Argus turn (`argus_message`) for one decision-worthy event. */
export const argusTurn = fromPromise<ArgusTurnOutput, ArgusTurnInput>(async () => ({ ok: false, wokeAt: new Date(0).toISOString(), code: NOT_PROVIDED }));

/** Polls the dispatched mission (`argus_status` and the proposal file; no model call). */
export const argusCheck = fromPromise<ArgusCheckOutput, ArgusCheckInput>(async () => ({ ok: false, at: new Date(0).toISOString(), code: NOT_PROVIDED }));

/** One Foreman assessment of evidence or a completed attempt. */
export const foremanAssess = fromPromise<ForemanAssessOutput, ForemanAssessInput>(async () => ({ ok: false, at: new Date(0).toISOString(), code: NOT_PROVIDED }));

/** Creates (or re-attaches) the campaign's Argus project. */
export const bindMission = fromPromise<BindMissionOutput, BindMissionInput>(async () => ({ ok: false, code: NOT_PROVIDED }));

/** Asks `argus_status` whether the bound project still answers (after a restore). */
export const verifyBinding = fromPromise<VerifyBindingOutput, VerifyBindingInput>(async () => ({ ok: false, code: NOT_PROVIDED, definite: false }));

export const campaignActors = {
  statusReader,
  claimLease,
  renewLease,
  readLease,
  rotateLease,
  journalIntent,
  relayMutation,
  readBackIntent,
  argusTurn,
  argusCheck,
  foremanAssess,
  bindMission,
  verifyBinding,
};
