/**
 * argus-supervisor as a library: what a plugin host embeds (docs/library.md). The facade is
 * all a host gets: typed commands through the same path as the HTTP API, copies of views and
 * events, no actor, no store, no raw event send. test/library/exports.test.ts holds this list
 * to the one docs/library.md documents, so a new export is a reviewed decision.
 * @module
 */
export { createSupervisor } from './services/library/supervisor-library.js';
export type {
  Answer,
  AppliedOutcome,
  CampaignAction,
  CampaignCommand,
  CampaignDetail,
  CampaignHandle,
  CampaignView,
  CommandAnswer,
  HealthView,
  LibraryOptions as SupervisorOptions,
  LibrarySupervisor as Supervisor,
  NewCampaign,
  ObserveOutcome,
  OutcomeByAction,
  PublicEvent,
  ReadError,
  Refusal,
  RequestOptions,
  Unsubscribe,
} from './services/library/library-types.js';
export type { ApiErrorCode } from './services/contract/api-errors.js';
export { loadConfig, ConfigError, type ConfigProblem, type ConfigProblemCode, type SupervisorConfig } from './services/config/config.js';
export type { StartupFailure } from './services/runtime/startup-failure.js';

// ---- the published control-extension contract (types only: its constants stay the supervisor's) ----
export type * from './adapters/a2a/control-contract.js';
export type { TaskSnapshot, NormalizedState } from './adapters/a2a/snapshot.js';
export type { RemoteError, RemoteErrorCode } from './adapters/a2a/errors.js';
