/**
 * The typed surface a plugin host embeds: the supervisor's options (including `inspect`, passed
 * through to every campaign actor) and what `createSupervisor` returns.
 * @module
 */
import type { FleetSweepReport } from '../campaign/fleet-read.js';
import type { InspectionEvent } from 'xstate';
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { Logger } from '../../adapters/logger.js';
import type { WakeTarget } from '../../machines/vocabulary.js';
import type { CampaignDocuments } from '../../persistence/campaign-store.js';
import type { ReplicaBackend } from './replica-hosting.js';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import type { Ownership } from '../../persistence/owner-lock.js';
import type { WakeHandler } from '../api/campaign-views.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { DecisionRuntime } from '../decisions/decision-runtime.js';
import type { ApiResult, SupervisorApi } from '../api/supervisor-api.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';
import type { SupervisorConfig } from '../config/config.js';
import type { SweepReport } from './heartbeat.js';

export interface SupervisorOptions {
  config: SupervisorConfig;
  logger?: Logger;
  /** Injected remote (tests, embedding hosts); default: an A2A client for `config.a2aUrl`. */
  remote?: A2AClient | null;
  wakeHandlers?: Partial<Record<WakeTarget, WakeHandler>>;
  /**
   * The Argus bridge and Foreman runner (e.g. wired to the SIMULATED ones for the demo);
   * default: built from `config` (services/decisions). The supervisor closes it on stop.
   */
  decisions?: DecisionRuntime;
  /**
   * Read the fleet with ListTasks each beat when the remote answers it (default true); false:
   * every read is a GetTask (the benchmark's per-task comparison).
   */
  fleetSweep?: boolean;
  /** Status reads in flight at once, all campaigns together (default 64); renewals never wait for them. */
  concurrency?: number;
  now?: () => Date;
  metrics?: SupervisorMetrics;
  /** Who may host the campaigns; default: one owner per state root (`persistence/owner-lock.ts`). */
  ownership?: Ownership;
  /**
   * A shared PostgreSQL (persistence/postgres/backend.ts, opened by `serve` when
   * ARGUS_SUPERVISOR_DATABASE_URL is set): this process is one replica, hosting its share of the
   * campaigns, one right per campaign. The supervisor closes it on stop. Replaces `ownership`.
   */
  database?: ReplicaBackend;
  /** The file-system calls of the campaign store (tests inject storage failures). */
  storeFs?: DurableFs;
  /** Passed to every campaign actor (`createActor(…, { inspect })`): attach an inspector here. */
  inspect?: (event: InspectionEvent) => void;
}

export interface Supervisor extends SupervisorApi {
  start(opts?: { heartbeat?: boolean; initialSweep?: boolean }): Promise<void>;
  stop(): Promise<void>;
  /** The beat's ListTasks listing (null when `fleetSweep` is false): its last report. */
  readonly fleet: { readonly last: (FleetSweepReport & { listMs: number }) | null; enabled: boolean } | null;
  /** One heartbeat sweep over every due campaign, now. */
  sweep(): Promise<SweepReport>;
  /**
   * The first read of every campaign after start(), pipelined with loading (each campaign is read
   * as soon as its actor is up); null when start() was called with `initialSweep: false`.
   */
  initialSweep(): Promise<SweepReport> | null;
  /** Reads one campaign now (the `observe` action). */
  observe(campaignId: string): Promise<ApiResult<unknown>>;
  readonly store: CampaignDocuments | null;
  /** The actor system (null before start): list campaigns, typed handles, public events. */
  readonly system: CampaignSystem | null;
}

