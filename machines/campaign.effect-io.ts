/**
 * The typed input and output of every effect the campaign invokes. An effect's output carries
 * everything the chart needs to decide (ids, outcome, error code): no effect writes context.
 * @module
 */
import type { BindingFacts, LeaseReadback, Mutation, MutationKind, ReadFailures, RemoteView } from './campaign.nouns.js';
import type { PublicEventDraft, SignificantEvent, WakeRequest } from './vocabulary.js';


export interface ReadStatusInput {
  campaignId: string;
  controllerId: string;
  taskId: string;
  contextId: string | null;
  /** The last material view (the reducer diffs against it) and the failure streak. */
  previous: RemoteView | null;
  readFailures: ReadFailures;
  /** Names the first outage when the remote was never read. */
  createdAt: string;
  cadenceMs: number;
  now: string;
  /**
   * True when the heartbeat's TICK asked: the beat's fleet listing may answer it. An operator's
   * OBSERVE asks for a fresh read, so it always reads the task itself.
   */
  beat?: boolean;
}

/** The reduced answer to one status read. Guards decide unchanged versus material from it. */
export type ReadStatusOutput =
  | {
      ok: true;
      requestedAt: string;
      /** When the remote answered; null when nothing reached the wire (no remote configured). */
      answeredAt: string | null;
      /** The remote's latest status text (memory only: shown, never saved). */
      message: string | null;
      fingerprint: string;
      readback: LeaseReadback | null;
      /**
       * The reduction, present when the fingerprint differs from `previous` or a failure streak
       * ends; null when the effect saw nothing to reduce. `view` is what to remember next.
       */
      observation: {
        view: RemoteView;
        events: SignificantEvent[];
        wakes: WakeRequest[];
        drafts: PublicEventDraft[];
        remoteBlocked: boolean;
        /** Whether Argus can run and Foreman is on, as of this read (facts for the attention region). */
        argusAvailable: boolean;
        foremanEnabled: boolean;
      } | null;
    }
  | {
      ok: false;
      requestedAt: string;
      answeredAt: string | null;
      code: string;
      /** This failure's place in the streak, as the noise reducer judged it. */
      failure: { consecutive: number; critical: boolean; backoffMs: number; drafts: PublicEventDraft[] };
    };

/**
 * The status reader is one long-lived child per campaign (id `statusReader`), asked by the
 * chart with READ on each due TICK and answering with exactly one READ_DONE (or READ_CRASHED
 * when the read itself threw). A child actor per read cost ~2.5 KB of promoted garbage per tick.
 */
export interface ReadRequest {
  type: 'READ';
  input: ReadStatusInput;
}
export interface ReadDoneEvent {
  type: 'READ_DONE';
  output: ReadStatusOutput;
}
export interface ReadCrashedEvent {
  type: 'READ_CRASHED';
}

export interface ClaimLeaseInput {
  campaignId: string;
  controllerId: string;
  ttlSeconds: number;
  binding: BindingFacts;
}
/**
 * The claim's answer and a lease readback taken after it; both must show us. `contextId` is
 * the context that was leased (learned from the task when the binding had none).
 */
export interface ClaimLeaseOutput {
  claimed: LeaseReadback | null;
  readback: LeaseReadback | null;
  contextId: string | null;
  ttlSeconds: number;
  /** The remote's stable code when it refused or failed (`lease_held`, `remote_timeout`, …). */
  code: string | null;
}

export interface RenewLeaseInput {
  campaignId: string;
  controllerId: string;
  epoch: number;
  contextId: string;
  ttlSeconds: number;
  /** The renewal deadline: an answer not in by then counts as a failed renewal (`lease_renewal_deadline`). */
  renewBy: string;
}
export interface RenewLeaseOutput {
  lease: LeaseReadback | null;
  code: string | null;
}

/** The lease read back right before a mutation is journaled. */
export interface ReadLeaseInput {
  campaignId: string;
  contextId: string;
}
export interface ReadLeaseOutput {
  readback: LeaseReadback | null;
  /** Null when the remote answered; else why the lease could not be read (nothing is sent). */
  code: string | null;
}

/**
 * The claim step of a takeover's rotation (issue 22 part 4), sent only after the chart judged the
 * readback before it (`rotationMayClaim`): claim again, so the remote grants a greater epoch and
 * refuses the one the previous host may still send with, then read the lease back.
 */
export interface RotateLeaseInput {
  campaignId: string;
  contextId: string;
  epoch: number;
  ttlSeconds: number;
  /** The readback the chart judged before the claim, handed back in the output as it was. */
  before: LeaseReadback | null;
}
export interface RotateLeaseOutput {
  /** The lease before the claim, as the chart judged it (null: none, or unreadable). */
  before: LeaseReadback | null;
  /** The claim's grant, and the readback taken after it (both null unless the claim was sent and answered). */
  claimed: LeaseReadback | null;
  readback: LeaseReadback | null;
  /** Null when both answered; else the remote's code, or `epoch_rotation_failed` (a call that did not answer). */
  code: string | null;
}

export interface JournalIntentInput {
  campaignId: string;
  requestId: string;
  kind: MutationKind;
  epoch: number;
  mutation: Mutation;
  binding: BindingFacts;
  /** The Reviewer-approved Argus decision this mutation applies: consumed in the same journal write. */
  decisionId: string | null;
}
/**
 * The intent is durable (fsynced) when this resolves; `journaledAt` is the clock after the write.
 * `refusedCode`: the journal refused the intent and nothing was written (`decision_consumed`:
 * that decision id was applied, or is in doubt, already).
 */
export interface JournalIntentOutput {
  journaledAt: string;
  refusedCode: string | null;
}

export interface RelayMutationInput {
  campaignId: string;
  controllerId: string;
  epoch: number;
  requestId: string;
  mutation: Mutation;
  binding: BindingFacts;
}
/**
 * `rejected` is a clear remote answer that nothing was applied;
 * `ambiguous` is anything that may have been applied (timeout after send, reset, 5xx).
 */
export type RelayMutationOutput =
  | { outcome: 'applied'; requestId: string; taskId: string | null }
  | { outcome: 'rejected'; requestId: string; code: string; leaseLost: boolean }
  | { outcome: 'ambiguous'; requestId: string; code: string };

export interface ReadBackIntentInput {
  campaignId: string;
  requestId: string;
  kind: MutationKind;
  readbackSupported: boolean;
}
/** `unavailable`: the remote cannot answer (no readback support, or it failed). */
export interface ReadBackIntentOutput {
  requestId: string;
  status: 'applied' | 'not_applied' | 'unavailable';
  taskId: string | null;
}
