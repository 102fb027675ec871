/**
 * The A2A adapter: the only way this service talks to an OpenTraining remote.
 * @module
 */
export { createA2AClient } from './client.js';
export type {
  A2AClient,
  A2AClientOptions,
  A2AControl,
  InterveneRequest,
  InterveneResult,
  LeaseClaimRequest,
  LeaseReleaseRequest,
  LeaseRenewRequest,
  ReplyRequest,
  SubmitRequest,
} from './types.js';
export type { RemoteDescription } from './discovery.js';
export { CAPABILITY_NAMES, detectCapabilities, type CapabilityMap, type CapabilityName, type CapabilityReport } from './capabilities.js';
export { agentCardSchema, selectEndpoint, type AgentCard, type ProtocolVersion } from './card.js';
export { normalizeTask, normalizeState } from './normalize.js';
export { LIST_PAGE_MAX, type ListTasksRequest, type TaskPage } from './list-tasks.js';
export { parseBaseUrl, urlCredentialProblem } from './base-url.js';
export { isRemoteIdentifier, redactSecrets, REMOTE_TEXT_CAPS, sanitizeRemoteText } from './sanitize.js';
export { LEASE_TTL_MAX_SECONDS, LEASE_TTL_MIN_SECONDS } from './guards.js';
export * from './errors.js';
export * from './snapshot.js';
export * from './control-contract.js';
