/**
 * The campaign actor's words: context, input, the events it accepts, the events it emits and
 * the typed input/output of every effect it invokes. Plain data only, so a snapshot is JSON.
 *
 * The context is the one truth for everything the chart decides on (binding, lease, attempts,
 * question, remote view, read failures, the process's environment); the document keeps only
 * what the chart never reads (outbox, journal, idempotency answers) beside the persisted
 * snapshot. Operator events carry only what the operator said, and the clock's `now`.
 * @module
 */
import type { BindingFacts, HostEnvironment, LeaseReadback, Mutation, MutationKind, ReadFailures, RemoteView } from './campaign.nouns.js';
import type { ReadCrashedEvent, ReadDoneEvent } from './campaign.effect-io.js';
import type { ArgusMemory } from './campaign.argus.js';
import type { SignificantEvent, WakeRequest } from './vocabulary.js';

export type * from './campaign.nouns.js';
export type * from './campaign.argus.js';
export type * from './campaign.emitted.js';

export const DEFAULT_CONTROLLER_ID = 'argus-openoperator';
export const DEFAULT_MAX_ATTEMPTS = 3;
/**
 * Before the host says otherwise: nothing discovered (claims and mutations refused
 * `remote_unavailable`), Argus unavailable, the default heartbeat. The host replaces it before
 * the actor takes any event.
 */
export const NO_ENVIRONMENT: HostEnvironment = { capabilities: null, argusAvailable: false, cadenceMs: 60_000 };
export const MAX_ATTEMPTS_BOUNDS = { min: 1, max: 20 } as const;
export const LEASE_TTL_BOUNDS = { min: 60, max: 3600 } as const;
/**
 * How old a lease readback may be when a mutation is decided. A readback from an earlier tick
 * (cadence ≥ 60 s) is never fresh, so the chart reads the lease again right before relaying.
 */
export const READBACK_FRESH_MS = 30_000;
/** A mutation is not sent when the lease has less than this left: it could lapse in flight. */
export const LEASE_SEND_MARGIN_MS = 5_000;
/**
 * The renewal deadline (client-go's `renewDeadline`): a lease not renewed by this long before
 * its expiry is given up, so CONTROL_LOST is said while the lease is still valid, never after.
 */
export const LEASE_RENEW_MARGIN_MS = 10_000;

/**
 * A remote task in one of these states has finished: a new attempt may start. Anything else,
 * including a state not yet observed, counts as an attempt still running (fail closed).
 */
export const TERMINAL_TASK_STATES = ['completed', 'failed', 'canceled', 'rejected'] as const;

/** What we believe we hold. Never proof: every mutation re-checks a fresh readback. */
export interface OurLease {
  epoch: number;
  expiresAt: string;
  /** When this hold began (the claim's readback instant): names one hold, across renewals. */
  heldSince: string;
  /** When the remote last confirmed it (claim or renewal readback): older readbacks cannot judge it. */
  confirmedAt: string;
  contextId: string;
  ttlSeconds: number;
}

/**
 * The mutation being handled, from the accepted MUTATE until its outcome (or, restored, the
 * journaled intent in doubt: then only `requestId` and `kind` are known).
 */
export interface PendingIntent {
  requestId: string;
  kind: MutationKind;
  epoch: number | null;
  mutation: Mutation | null;
  binding: BindingFacts | null;
  /** The lease as read back right before journaling (the send-margin rule measures from it). */
  readback: LeaseReadback | null;
  /** The Argus decision this mutation applies (review approval), consumed by the journal write. */
  decisionId?: string | null;
}

export interface PendingQuestion {
  /** The dedupeKey of the event that asked (an answer must name it). */
  key: string;
  text: string;
  source: 'remote' | 'argus';
  askedAt: string;
  /** Argus's backlog item that asked (an answer continues it); null for the chart's own receipts. */
  itemId?: string | null;
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
  createdAt: string;
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
  /** The last material view of the remote task (null before the first successful read). */
  remote: RemoteView | null;
  readFailures: ReadFailures;
  /** The Reviewer gate ties a verdict to the event that last woke Argus. */
  wakes: { lastArgusEventKey: string | null };
  /** Where the campaign acts (see BindingFacts): only the chart changes it. */
  binding: BindingFacts;
  /** The process's facts (see HostEnvironment): replaced on restore and by `ENVIRONMENT`. */
  environment: HostEnvironment;
  /** The decision boundaries: the mission binding, the event being decided, the last decision. */
  argus: ArgusMemory;
}

export interface CampaignInput {
  campaignId: string;
  controllerId?: string;
  maxAttempts?: number;
  /** ISO; names the first outage when the remote was never read. Default: the epoch. */
  createdAt?: string;
  /** The task (and context) the campaign was created on. Default: none. */
  binding?: BindingFacts;
  /** Default: nothing discovered, Argus unavailable (the host replaces it before anything runs). */
  environment?: HostEnvironment;
}

// ---- events the services send ------------------------------------------------------------

/**
 * The heartbeat's beat, sent to every active actor: the chart alone decides what it means (read,
 * renew, give a lease up, poll the mission, verify a binding, or nothing).
 */
export interface TickEvent {
  type: 'TICK';
  now: string;
}

/**
 * An operator's `observe`: read now, even while backing off after failed reads. Its own rule
 * table says why not (closed, paused, nothing bound, a read already running).
 */
export interface ObserveEvent {
  type: 'OBSERVE';
  now: string;
}

/** Explicit, authenticated operator claim. Nothing else ever starts a claim. */
export interface OperatorClaimEvent {
  type: 'OPERATOR_CLAIM';
  ttlSeconds: number;
  now: string;
}

/**
 * One fenced mutation. The chart reads the lease back, journals the intent (fsync) under
 * `requestId`, checks the lease still outlives the send, and only then relays.
 */
export interface MutateEvent {
  type: 'MUTATE';
  mutation: Mutation;
  requestId: string;
  /** The epoch the operator (or the gate, never a model) supplied. */
  epoch: number;
  approval: MutationApproval;
  /** Services' clock when the event was built (ISO). */
  now: string;
}

/** A change of the process's environment (discovery answered, Argus became (un)available). */
export interface EnvironmentEvent {
  type: 'ENVIRONMENT';
  environment: HostEnvironment;
}

/** On restore (or a lost outcome write): the journal holds an intent with no outcome. */
export interface IntentInDoubtEvent {
  type: 'INTENT_IN_DOUBT';
  requestId: string;
  kind: MutationKind;
}

export interface ResolveIntentEvent {
  type: 'RESOLVE_INTENT';
}

/**
 * The operator answers the pending question. An Argus question goes to Argus (one turn); the
 * remote's own question is a fenced mutation (`answer`), judged by the same rows as intervene.
 */
export interface OperatorAnswerEvent {
  type: 'OPERATOR_ANSWER';
  /** The question the operator answers (the view shows it); a stale key is refused. */
  questionKey: string;
  answer: string;
  now: string;
  /** Names the fenced mutation, should the answer go to the remote. */
  requestId: string;
}

/** The operator's `mission`: bind (or re-attach) the campaign's Argus project. */
export interface BindMissionEvent {
  type: 'BIND_MISSION';
}

// ---- events the chart raises to itself (never sent from outside) -----------------------------

/** A material read, reduced: the attention region reacts to its significant events. */
export interface RemoteObservedEvent {
  type: 'REMOTE_OBSERVED';
  observedAt: string;
  events: SignificantEvent[];
  wakes: WakeRequest[];
  /** The remote task is input-required / auth-required right now. */
  remoteBlocked: boolean;
  /** Whether the decision runtimes can run here, as of this read (facts, not rules). */
  argusAvailable: boolean;
  foremanEnabled: boolean;
}

/** The fenced answer to the remote's question was applied: the question is answered. */
export interface RemoteAnsweredEvent {
  type: 'REMOTE_ANSWERED';
  questionKey: string;
}

/** Every successful read carries the remote's lease: the authority region judges it. */
export interface LeaseReadbackEvent {
  type: 'LEASE_READBACK';
  readback: LeaseReadback | null;
  /** When the read was sent: a read sent before our last confirmation cannot judge it. */
  requestedAt: string;
}

/** A read failed and our lease's expiry has passed meanwhile: with no readback, it is gone. */
export interface LeaseLapsedEvent {
  type: 'LEASE_LAPSED';
  now: string;
}

/**
 * The runtime's word that this process took over the right to host the campaign from another
 * (a replica adopting it, or claiming at boot a row someone held before). Never sent with the
 * file store: a restart there re-reads the lease and never claims.
 */
export interface HostingTakenOverEvent {
  type: 'HOSTING_TAKEN_OVER';
  /** The runtime's clock: a lease past its renewal deadline is given up, not rotated. */
  now: string;
}

export type OperatorEvent =
  | ObserveEvent
  | OperatorClaimEvent
  | MutateEvent
  | ResolveIntentEvent
  | OperatorAnswerEvent
  | BindMissionEvent
  | { type: 'PAUSE' }
  | { type: 'RESUME'; now: string }
  | { type: 'CLOSE' };

export type CampaignEvent =
  | OperatorEvent
  | TickEvent
  | EnvironmentEvent
  | ReadDoneEvent
  | ReadCrashedEvent
  | IntentInDoubtEvent
  | RemoteObservedEvent
  | RemoteAnsweredEvent
  | LeaseReadbackEvent
  | LeaseLapsedEvent
  | HostingTakenOverEvent;

export type * from './campaign.effect-io.js';
