/**
 * The effects the campaign invokes, as typed placeholders. The services replace every one with
 * `campaignMachine.provide({ actors })`; each placeholder answers "nothing happened" so that a
 * forgotten wiring fails closed (no lease, nothing applied, nothing sent) instead of pretending.
 * The poll is not here: the heartbeat lives outside the machine and sends what it observed.
 * @module
 */
import { fromPromise } from 'xstate';
import type {
  ClaimLeaseInput,
  ClaimLeaseOutput,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  RelayMutationInput,
  RelayMutationOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
} from './campaign.types.js';

/** Claims the lease, then reads it back. Implementation: services (A2A control extension). */
export const claimLease = fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async () => ({ claimed: null, readback: null }));

/** Renews our lease at our epoch. */
export const renewLease = fromPromise<RenewLeaseOutput, RenewLeaseInput>(async () => ({ lease: null }));

/**
 * Sends exactly one fenced mutation. The implementation must journal the intent durably
 * before any network I/O and classify every failure as `rejected` or `ambiguous`.
 */
export const relayMutation = fromPromise<RelayMutationOutput, RelayMutationInput>(async ({ input }) => ({
  outcome: 'rejected',
  requestId: input.requestId,
  code: 'actor_not_provided',
  leaseLost: false,
}));

/** Reads back one request id (`request.get`); never resends anything. */
export const readBackIntent = fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(async ({ input }) => ({
  requestId: input.requestId,
  status: 'unavailable',
}));

export const campaignActors = { claimLease, renewLease, relayMutation, readBackIntent };
