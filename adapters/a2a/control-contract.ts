/**
 * The OpenTraining control extension: this project's published A2A contract for
 * leases, fenced mutations and request readback. docs/control-extension.md is the prose
 * version; the simulator and the client both import these constants so they cannot drift.
 * @module
 */

/** Declared in `capabilities.extensions[].uri`; activated with the `A2A-Extensions` header. */
export const CONTROL_EXTENSION_URI = 'urn:opentraining:a2a:control:v1';

/** Namespaced JSON-RPC methods (never colliding with core A2A names). */
export const CONTROL_METHODS = {
  leaseGet: 'opentraining.control/lease.get',
  leaseClaim: 'opentraining.control/lease.claim',
  leaseRenew: 'opentraining.control/lease.renew',
  leaseRelease: 'opentraining.control/lease.release',
  intervene: 'opentraining.control/intervene',
  requestGet: 'opentraining.control/request.get',
} as const;

export type ControlMethod = (typeof CONTROL_METHODS)[keyof typeof CONTROL_METHODS];

/** Short method names as advertised in the extension's `params.methods`. */
export const CONTROL_METHOD_NAMES = ['lease.get', 'lease.claim', 'lease.renew', 'lease.release', 'intervene', 'request.get'] as const;

/** Standard A2A mutations that the extension fences with authority metadata. */
export const FENCED_MUTATIONS = ['submit', 'cancel', 'intervene'] as const;

/** JSON-RPC error codes the extension adds (outside the A2A core range -32001..-32009). */
export const CONTROL_ERROR_CODES = {
  /** Another controller holds an unexpired lease. */
  leaseHeld: -32050,
  /** The epoch sent is not the current epoch of the lease. */
  leaseStaleEpoch: -32051,
  /** The caller does not hold the lease, or it expired. */
  leaseNotHeld: -32052,
  /** A fenced mutation arrived without authority in `metadata[uri]`. */
  authorityMissing: -32053,
  /** The request id was already used for another payload, or was tombstoned by a readback. */
  requestIdConflict: -32054,
  /** A fenced reply (SendMessage naming an existing task) to a task that asks no question now. */
  taskNotAwaitingInput: -32055,
} as const;

/** Parameters advertised in the agent card for this extension. */
export interface ControlExtensionParams {
  /** Short method names supported (see CONTROL_METHOD_NAMES). */
  methods: string[];
  /** Standard mutations fenced by epoch (see FENCED_MUTATIONS). */
  mutations: string[];
  /** True when the remote rejects every mutation whose epoch is not current. */
  epochEnforcement: boolean;
  /** True when `request.get` can settle an in-doubt request id. */
  requestReadback: boolean;
  /** What a lease covers; always 'context' in v1 (all attempts of one A2A context). */
  leaseScope: 'context';
}

/** Authority the adapter adds to every fenced mutation, in `metadata[CONTROL_EXTENSION_URI]`. */
export interface ControlAuthority {
  controllerId: string;
  epoch: number;
  requestId: string;
}

/** Lease readback as the remote reports it. `expiresAt` is an ISO-8601 instant. */
export interface LeaseView {
  contextId: string;
  holder: string;
  epoch: number;
  expiresAt: string;
  ttlSeconds: number;
}

/** Result of every lease.* method. `lease` is null when nobody holds it. */
export interface LeaseResult {
  lease: LeaseView | null;
  serverTime: string;
}

/** Result of request.get; an unseen id is tombstoned and reported `not_applied`. */
export interface RequestReadback {
  requestId: string;
  status: 'applied' | 'not_applied';
  /** `answer`: a fenced SendMessage to an existing task (a reply to its question). */
  action?: 'submit' | 'cancel' | 'intervene' | 'claim' | 'renew' | 'release' | 'answer';
  taskId?: string;
}

/**
 * Compact task metadata the remote keeps in `task.metadata[CONTROL_EXTENSION_URI]`, so one
 * GetTask answers state, stage, attempt, revision and lease in a single request.
 */
export interface ControlTaskMetadata {
  revision: number;
  stage: string | null;
  attempt: number;
  attemptId: string | null;
  lease: LeaseView | null;
  missionComplete?: boolean;
  /** Routine progress: never material, never public. */
  progress?: { step: number; totalSteps: number; loss?: number; stdoutCursor?: number };
}
