/**
 * The types of the embeddable library (docs/library.md): what a plugin host may say to a
 * campaign (one command per operator action, carrying only what an operator says) and what it
 * gets back. Types only; `supervisor-library.ts` implements them over the same path as the
 * HTTP API.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { ApiErrorCode } from '../contract/api-errors.js';
import type { CampaignSummary, PublicEventView } from '../api/read-model.js';
import type { HealthView } from '../api/supervisor-api.js';
import type { SupervisorConfig } from '../config/config.js';

/** A campaign as the API shows it (`docs/api.md#the-campaign-view`); a copy, never the live one. */
export type CampaignView = CampaignSummary;
/** One public event (`docs/api.md#public-events`); a copy. */
export type PublicEvent = PublicEventView;
export type { HealthView };

/** Why a call changed nothing: the API's stable code and one sentence. */
export interface Refusal {
  code: ApiErrorCode;
  message: string;
}

/**
 * Every answer: `ok: true` with the action's value, or `ok: false` with the refusal (the same
 * code the HTTP API answers). `replayed`: the kept answer of an earlier call with the same
 * idempotency key (nothing ran again).
 */
export type Answer<T> = ({ ok: true; value: T } | { ok: false; error: Refusal }) & { replayed?: true };

/** Stripe-style idempotency for the mutating calls (docs/api.md#idempotency-key). */
export interface RequestOptions {
  /** 1–255 printable ASCII characters; one value per intended operation. */
  idempotencyKey?: string;
}

/** What an operator may ask of one campaign: one member per action of docs/api.md#actions. */
export type CampaignCommand =
  | { action: 'observe' }
  | { action: 'pause' }
  | { action: 'resume' }
  | { action: 'close' }
  /** `question_key`: the view's `pending_question.key`; a stale one is refused (`question_stale`). */
  | { action: 'answer'; text: string; question_key?: string }
  | { action: 'mission' }
  /** `ttl_seconds`: 60–3600, at least twice the heartbeat; default the configured lease TTL. */
  | { action: 'claim'; ttl_seconds?: number }
  | { action: 'release'; epoch: number }
  | { action: 'submit'; epoch: number; text: string }
  | { action: 'intervene'; epoch: number; instruction: string }
  | { action: 'cancel'; epoch: number; reason: string }
  | { action: 'resolve_intent' };

export type CampaignAction = CampaignCommand['action'];

export interface ReadError {
  code: string;
  message: string;
}

export interface ObserveOutcome {
  campaign: CampaignView;
  /** Whether this read changed the campaign (an unchanged read writes nothing). */
  changed: boolean;
  /** The public events this read published. */
  events: PublicEvent[];
  /** The read failed (counted toward the back-off); the answer is still `ok`. */
  read_error?: ReadError;
}

/** The relay of a fenced mutation took effect at the remote. */
export interface AppliedOutcome {
  campaign: CampaignView;
  request_id: string;
  outcome: 'applied';
}

/** What each action answers when it is not refused (docs/api.md#actions). */
export interface OutcomeByAction {
  observe: ObserveOutcome;
  pause: { campaign: CampaignView };
  /**
   * Resume reads once like observe when the campaign has a task (observe's answer); a refused
   * read does not undo it (`observe_error`).
   */
  resume: ObserveOutcome | { campaign: CampaignView; observe_error?: Refusal };
  close: { campaign: CampaignView };
  /** Argus's question: `{campaign}`; the remote's own question: a fenced relay. */
  answer: { campaign: CampaignView } | AppliedOutcome;
  mission: { campaign: CampaignView; mission: { project_id: string } };
  claim: { campaign: CampaignView; lease: { epoch: number; expires_at: string | null } };
  release: AppliedOutcome;
  submit: AppliedOutcome & { task_id?: string };
  intervene: AppliedOutcome;
  cancel: AppliedOutcome;
  resolve_intent: { campaign: CampaignView; request_id: string; action: string; status: 'applied' | 'not_applied' };
}

export type CommandAnswer<C extends CampaignCommand> = Answer<OutcomeByAction[C['action']]>;

/** `campaigns.get` and `campaign(id).view()`: the view, its events in the feed, its chart position. */
export interface CampaignDetail {
  campaign: CampaignView;
  events: PublicEvent[];
  /** The statechart's state node ids the campaign's actor is in now (docs/statechart.md). */
  chart: { active: string[] };
}

export interface NewCampaign {
  campaign_id: string;
  objective: string;
  /** Attach a task started elsewhere: it is read once first, then observed, never sent again. */
  remote_task_id?: string;
  max_attempts?: number;
}

export type Unsubscribe = () => void;

/** One campaign, by id. It holds no actor: every call goes through the supervisor's API. */
export interface CampaignHandle {
  readonly id: string;
  view(): Promise<Answer<CampaignDetail>>;
  request<C extends CampaignCommand>(command: C, options?: RequestOptions): Promise<CommandAnswer<C>>;
  /** Called (asynchronously) with a copy of the view each time it changes. */
  subscribe(listener: (view: CampaignView) => void): Unsubscribe;
}

export interface LibrarySupervisor {
  /** Takes the state root's owner lock, loads every campaign, discovers the remote, starts the heartbeat. */
  start(): Promise<void>;
  /** Stops the heartbeat and every actor, closes the remote, releases the owner lock. */
  stop(): Promise<void>;
  health(): HealthView;
  campaigns: {
    list(): Promise<Answer<{ campaigns: CampaignView[] }>>;
    get(campaignId: string): Promise<Answer<CampaignDetail>>;
    create(campaign: NewCampaign, options?: RequestOptions): Promise<Answer<{ campaign: CampaignView }>>;
  };
  campaign(campaignId: string): CampaignHandle;
  events: {
    /** Called (asynchronously) with each public event as it reaches the feed, durable already. */
    subscribe(listener: (event: PublicEvent) => void): Unsubscribe;
  };
}

export interface LibraryOptions {
  /** From `loadConfig(process.env)` (docs/configuration.md). */
  config: SupervisorConfig;
  /** A pino logger; default silent. */
  logger?: Logger;
  /** Heartbeat concurrency (default 64). */
  concurrency?: number;
}
