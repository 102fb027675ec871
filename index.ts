/**
 * argus-supervisor as a library: what a plugin host embeds.
 * @module
 */
export * from './adapters/a2a/control-contract.js';
export type { TaskSnapshot, NormalizedState } from './adapters/a2a/snapshot.js';
export type { RemoteError, RemoteErrorCode, SendOutcome } from './adapters/a2a/errors.js';

// ---- the actor system a plugin host embeds --------------------------------------------------
export { createSupervisor } from './services/runtime/supervisor.js';
export type { Supervisor, SupervisorOptions } from './services/runtime/supervisor-types.js';
export type { WakeHandler } from './services/api/campaign-views.js';
export { loadConfig, type SupervisorConfig } from './services/runtime/config.js';
export type { CampaignSystem, CampaignHandle, CorruptCampaign } from './services/runtime/campaign-system.js';
export type { SendOutcome as CampaignSendOutcome, KeepInSave } from './services/campaign/campaign-host.js';
export type { CampaignSnapshot } from './services/campaign/projection.js';
export type { CampaignSummary, PublicEventView } from './services/api/read-model.js';
export type { ApiResult, HealthView, RequestOptions, StatusView, SupervisorApi } from './services/api/supervisor-api.js';
export type { CampaignContext, CampaignEmitted, CampaignEvent, OperatorEvent } from './machines/campaign.types.js';
