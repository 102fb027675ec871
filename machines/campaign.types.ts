/**
 * The campaign actor's words: context, input, the events it accepts, the events it emits and
 * the typed input/output of every effect it invokes. Plain data only, so a snapshot is JSON.
 * @module
 */
import type { SignificantEvent, WakeRequest } from './vocabulary.js';

export const DEFAULT_CONTROLLER_ID = 'argus-openoperator';
export const DEFAULT_MAX_ATTEMPTS = 3;
export const MAX_ATTEMPTS_BOUNDS = { min: 1, max: 20 } as const;
export const LEASE_TTL_BOUNDS = { min: 60, max: 3600 } as const;
/**
 * How old a lease readback may be when a mutation is decided. A readback from an earlier tick
 * (cadence ≥ 60 s) is never fresh, so the services must read the lease again right before.
 */
export const READBACK_FRESH_MS = 30_000;

/** The four fenced mutations. Claim and renew are lease operations with their own actors. */
export type MutationKind = 'submit' | 'intervene' | 'cancel' | 'release';

/**
 * A remote task in one of these states has finished: a new attempt may start. Anything else,
 * including a state not yet observed, counts as an attempt still running (fail closed).
 */
export const TERMINAL_TASK_STATES = ['completed', 'failed', 'canceled', 'rejected'] as const;

export type Mutation =
  | { kind: 'submit'; text: string }
  | { kind: 'intervene'; instruction: string }
  | { kind: 'cancel'; reason: string }
  | { kind: 'release' };

/** The remote lease as read back, with the instant it was read (services' clock, ISO). */
export interface LeaseReadback {
  holder: string;
  epoch: number;
  expiresAt: string;
  readAt: string;
}

/** What we believe we hold. Never proof: every mutation re-checks a fresh readback. */
export interface OurLease {
  epoch: number;
  expiresAt: string;
  /** When this hold began (the claim's readback instant): names one hold, across renewals. */
  heldSince: string;
}

export interface PendingIntent {
  requestId: string;
  kind: MutationKind;
}

export interface PendingQuestion {
  /** The dedupeKey of the event that asked (an answer must name it). */
  key: string;
  text: string;
  source: 'remote' | 'argus';
}

/**
 * Who approved a mutation. A person's authenticated API action is approval; a model's
 * proposal needs a Reviewer verdict tied to the event that woke Argus. Foreman has no variant.
 */
export type MutationApproval =
  | { kind: 'operator'; principal: string }
  | { kind: 'review'; decisionId: string; verdict: 'approved' | 'rejected'; eventKey: string };

export interface CampaignContext {
  campaignId: string;
  controllerId: string;
  maxAttempts: number;
  attemptsSubmitted: number;
  lease: OurLease | null;
  /** The epoch we held last (kept after the lease is dropped, to name what was lost). */
  lastEpoch: number | null;
  /** When the hold we lost last began: a re-claim at the same epoch is a different hold. */
  lastHeldSince: string | null;
  pendingIntent: PendingIntent | null;
  pendingQuestion: PendingQuestion | null;
  lastErrorCode: string | null;
  /** False after a failed read until the next successful observation. */
  remoteReachable: boolean;
  /** Counters only: the services persist the requests themselves (emitted WAKE_REQUESTED). */
  wakes: { argus: number; foreman: number; lastArgusEventKey: string | null };
}

export interface CampaignInput {
  campaignId: string;
  controllerId?: string;
  maxAttempts?: number;
}

// ---- events the services send ------------------------------------------------------------

/** Explicit, authenticated operator claim. Nothing else ever starts a claim. */
export interface OperatorClaimEvent {
  type: 'OPERATOR_CLAIM';
  ttlSeconds: number;
}

/**
 * One fenced mutation. The services journal the intent (fsync) under `requestId` before the
 * relay does any network I/O, and take `readback` from the remote just before sending this.
 */
export interface MutateEvent {
  type: 'MUTATE';
  mutation: Mutation;
  requestId: string;
  /** The epoch the operator (or the gate, never a model) supplied. */
  epoch: number;
  readback: LeaseReadback | null;
  /** The remote card declares `epochEnforcement: true` for the control extension. */
  epochEnforced: boolean;
  approval: MutationApproval;
  /** Services' clock when the event was built (ISO); readback freshness is measured from it. */
  now: string;
  /**
   * Another mutation of this campaign is being handled right now (the services' in-flight
   * slot, taken before any I/O). Only one mutation per campaign may be in flight.
   */
  mutationInFlight: boolean;
  /**
   * The bound remote task's state as last observed: null when no task is bound, 'unobserved'
   * when the bound task has not been read since it was bound (e.g. right after a submit).
   */
  boundTaskState: string | null;
}

/**
 * The heartbeat's reduced result for one tick. Sent when the reducer says material, and on
 * every tick while we hold a lease (authority is re-checked each tick). `readback: null`
 * means the remote reports no lease holder.
 */
export interface RemoteObservedEvent {
  type: 'REMOTE_OBSERVED';
  observedAt: string;
  events: SignificantEvent[];
  wakes: WakeRequest[];
  /** The remote task is input-required / auth-required right now. */
  remoteBlocked: boolean;
  readback: LeaseReadback | null;
}

/** A read failed; `critical` is true exactly on the third consecutive failure. */
export interface RemoteUnavailableEvent {
  type: 'REMOTE_UNAVAILABLE';
  consecutiveFailures: number;
  critical: boolean;
}

/** The scheduler decided our lease is due for renewal. */
export interface RenewDueEvent {
  type: 'RENEW_DUE';
  ttlSeconds: number;
}

/** On restore: the journal holds an intent with no outcome. Valid from every authority state. */
export interface IntentInDoubtEvent {
  type: 'INTENT_IN_DOUBT';
  requestId: string;
  kind: MutationKind;
}

export interface ResolveIntentEvent {
  type: 'RESOLVE_INTENT';
}

export interface OperatorAnswerEvent {
  type: 'OPERATOR_ANSWER';
  questionKey: string;
  answer: string;
}

// Placeholders for the Foreman assessment and the Argus turn (a later issue invokes them).
export interface ForemanAssessedEvent {
  type: 'FOREMAN_ASSESSED';
  eventKey: string;
  /** True for directives that want Argus (START_VERIFIER, STEER/START/STOP/RETRY, ESCALATE). */
  wakeArgus: boolean;
}
export interface ArgusAskedEvent {
  type: 'ARGUS_ASKED';
  questionKey: string;
  question: string;
}
export interface ArgusTurnSettledEvent {
  type: 'ARGUS_TURN_SETTLED';
}

export type CampaignEvent =
  | OperatorClaimEvent
  | MutateEvent
  | RemoteObservedEvent
  | RemoteUnavailableEvent
  | RenewDueEvent
  | IntentInDoubtEvent
  | ResolveIntentEvent
  | OperatorAnswerEvent
  | ForemanAssessedEvent
  | ArgusAskedEvent
  | ArgusTurnSettledEvent
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'CLOSE' };

// ---- events the actor emits (the services turn them into journal entries / public events) --

export type CampaignEmitted =
  /** Exactly one per loss: the services publish one CRITICAL. */
  | { type: 'CONTROL_LOST'; campaignId: string; reason: string; epoch: number | null; heldSince: string | null }
  /** A mutation's outcome is unknown: local control is dropped and replay is blocked. */
  | { type: 'INTENT_AMBIGUOUS'; campaignId: string; requestId: string; kind: MutationKind }
  | { type: 'WAKE_REQUESTED'; campaignId: string; wake: WakeRequest };

// ---- invoked effects: typed input/output ----------------------------------------------------

export interface ClaimLeaseInput {
  campaignId: string;
  controllerId: string;
  ttlSeconds: number;
}
/** The claim's answer and a lease readback taken after it; both must show us. */
export interface ClaimLeaseOutput {
  claimed: LeaseReadback | null;
  readback: LeaseReadback | null;
}

export interface RenewLeaseInput {
  campaignId: string;
  controllerId: string;
  epoch: number;
  ttlSeconds: number;
}
export interface RenewLeaseOutput {
  lease: LeaseReadback | null;
}

export interface RelayMutationInput {
  campaignId: string;
  controllerId: string;
  epoch: number;
  requestId: string;
  mutation: Mutation;
}
/**
 * `rejected` is a clear remote answer that nothing was applied (or nothing was sent);
 * `ambiguous` is anything that may have been applied (timeout after send, reset, 5xx).
 */
export type RelayMutationOutput =
  | { outcome: 'applied'; requestId: string }
  | { outcome: 'rejected'; requestId: string; code: string; leaseLost: boolean }
  | { outcome: 'ambiguous'; requestId: string; code: string };

export interface ReadBackIntentInput {
  campaignId: string;
  requestId: string;
}
/** `unavailable`: the remote cannot answer (no readback support, or it failed). */
export interface ReadBackIntentOutput {
  requestId: string;
  status: 'applied' | 'not_applied' | 'unavailable';
}
