/**
 * The surface a plugin host or the HTTP server uses. Inputs are `unknown` on purpose: the
 * supervisor validates every body itself, so the library is as strict as the HTTP API.
 * @module
 */
import type { ApiError } from '../contract/api-errors.js';
import type { CampaignSummary, PublicEventView, ReadModel } from './read-model.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { DecisionAvailability } from '../decisions/availability.js';

/** `replayed`: the kept answer to an earlier request with the same Idempotency-Key. */
export type ApiResult<T> = ({ ok: true; value: T } | { ok: false; error: ApiError }) & { replayed?: true };

/** Per-request options of the mutating calls. */
export interface RequestOptions {
  /** Stripe-style: the same key and request get the first answer again; see services/request-gate.ts. */
  idempotencyKey?: string;
}

export interface HealthView {
  enabled: boolean;
  runtime: { argus: 'not_configured' | 'present' | 'missing'; foreman: 'disabled' | 'present' | 'missing' };
  /** What model decisions lack, by name only (services/decisions/availability.ts). */
  decisions: DecisionAvailability;
  configured: { remote: boolean; remote_token: boolean; api_key: boolean; backend: boolean };
  api_key_source: 'deployment_secret' | 'generated_local' | 'missing';
  controller_id: string;
  /** `deposed: true` once another process took the right to host: every campaign call answers `not_owner`. */
  hosting: { owner: boolean; deposed: boolean };
  heartbeat_seconds: number;
  last_tick: { at: string; ticked: number; errors: number } | null;
  campaigns: { total: number; corrupt: number };
  remote: {
    reachable: boolean | null;
    /** `discovering` / `retrying` until the agent card answers: reads wait, claims and mutations answer remote_unavailable. */
    discovery: 'not_configured' | 'discovering' | 'retrying' | 'discovered';
    protocol_version: string | null;
    capabilities: Record<string, boolean> | null;
    control_extension: boolean | null;
    mutations_enabled: boolean | null;
    unsupported: string[];
  };
}

export interface StatusView {
  campaigns: CampaignSummary[];
  events: PublicEventView[];
}

export interface SupervisorApi {
  readonly readModel: ReadModel;
  readonly metrics: SupervisorMetrics;
  health(): HealthView;
  status(): StatusView;
  /** `{action: "list" | "get" | "history" | "create", ...}` */
  campaigns(body: unknown, options?: RequestOptions): Promise<ApiResult<unknown>>;
  /** `{campaign_id, action, ...arguments}` */
  campaignAction(body: unknown, options?: RequestOptions): Promise<ApiResult<unknown>>;
  /**
   * The chart's state node ids (services/chart/active-states.ts) the campaign's live actor is in,
   * ancestors included; null when no actor hosts that campaign (unknown, corrupt).
   */
  activeStates(campaignId: string): string[] | null;
}
