/**
 * The campaign's basic nouns, shared by its events (`campaign.types.ts`) and its effects'
 * input and output (`campaign.effect-io.ts`): mutations, lease readbacks, the remembered
 * remote view, read failures and the binding. Plain data only.
 * @module
 */

/**
 * The five fenced mutations. `answer` is the operator's reply to the remote's own question
 * (A2A `input-required`): one SendMessage to that task, fenced and journaled like intervene.
 * Claim and renew are lease operations with their own actors.
 */
export type MutationKind = 'submit' | 'intervene' | 'cancel' | 'release' | 'answer';

export type Mutation =
  | { kind: 'submit'; text: string }
  | { kind: 'intervene'; instruction: string }
  | { kind: 'cancel'; reason: string }
  | { kind: 'release' }
  /** `questionKey` names the remote question answered (the pending question's key). */
  | { kind: 'answer'; text: string; questionKey: string };

/** The remote lease as read back, with the instant it was read (services' clock, ISO). */
export interface LeaseReadback {
  holder: string;
  epoch: number;
  expiresAt: string;
  readAt: string;
}

/**
 * What the campaign remembers of its remote task between reads: only the material fields, and
 * the fingerprint they were reduced from (an unchanged read costs one string comparison).
 */
export interface RemoteView {
  taskId: string;
  contextId: string;
  state: 'submitted' | 'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'unknown';
  stage: string | null;
  /** Last revision seen; kept for dedupe and diagnostics, never material on its own. */
  revision: number | null;
  attempt: number | null;
  attemptId: string | null;
  artifactIds: string[];
  lease: { contextId: string; holder: string; epoch: number; expiresAt: string; ttlSeconds: number } | null;
  missionComplete: boolean;
  latestAgentMessageDigest: string | null;
  fingerprint: string;
  observedAt: string;
}

export interface ReadFailures {
  consecutive: number;
  /** Before this instant the heartbeat's TICK does not read (backoff); an operator's observe does. */
  nextReadAt: string | null;
  /** The one CRITICAL of this failure streak has been published. */
  criticalRaised: boolean;
}

/**
 * Where the campaign acts: the remote task and context. Part of the actor's context: set when the
 * campaign is created, then changed only by the chart (a claim learns the context, an applied
 * submit binds its new task, a read of the bound task names its context).
 */
export interface BindingFacts {
  taskId: string | null;
  contextId: string | null;
}

/** What discovery found the remote may do (null: not discovered, or no remote at all). */
export interface RemoteCapabilities {
  claim: boolean;
  renew: boolean;
  release: boolean;
  submit: boolean;
  intervene: boolean;
  cancel: boolean;
  /** The card declares `epochEnforcement: true` for the control extension. */
  epochEnforced: boolean;
  /** The remote can read a request id back (`request.get`): the only way to settle doubt. */
  requestReadback: boolean;
}

/**
 * What this process knows of the world around the campaign: what discovery found the remote may
 * do, whether Argus can run here, and the heartbeat's cadence. Every actor holds it in its context
 * (the `ENVIRONMENT` event broadcasts a change), so its guards judge facts it owns; it is a fact
 * of the process, not of the campaign, so a restore replaces it and a change alone writes nothing.
 */
export interface HostEnvironment {
  capabilities: RemoteCapabilities | null;
  argusAvailable: boolean;
  cadenceMs: number;
}
