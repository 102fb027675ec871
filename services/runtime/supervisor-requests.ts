/**
 * The supervisor's two request doors, `campaigns` and `campaign_action`: parse the body, refuse
 * a request that carries one of our own secrets, refuse a campaign this process does not host
 * (503 `not_owner`) or relay it to the replica that hosts it (replicas on PostgreSQL), then run
 * it, with its Idempotency-Key through the gate. Every failure thrown
 * from deep inside (a store that fails closed) comes back as its answer, never as a 500.
 * @module
 */
import { campaignActionSchema, campaignsBodySchema, describeIssues } from '../api/api-schemas.js';
import type { CampaignActions } from '../api/campaign-actions.js';
import { campaignsRoute, type CampaignsRouteDeps } from '../api/campaigns-route.js';
import type { RequestGate } from '../api/request-gate.js';
import { secretInRequest } from '../api/request-secrets.js';
import type { ApiResult, RequestOptions } from '../api/supervisor-api.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';
import { ApiFailure, apiError, type ApiError } from '../contract/api-errors.js';
import type { HostingGate } from './hosting-mode.js';
import type { RelayedCommand } from './replica-hosting.js';

export interface SupervisorRequestsDeps {
  /** The API key and the A2A token: a request that carries either is refused, never logged. */
  secrets(): readonly (string | null)[];
  hosting: HostingGate;
  gate: RequestGate;
  actions: CampaignActions;
  system(): CampaignSystem | null;
  /** What the campaigns route needs; null before start(). */
  routeDeps(): CampaignsRouteDeps | null;
}

type Door = RelayedCommand['door'];

/** A lost create race asks the creator's replica until this deadline (each call gets what is left), this far apart. */
export const LOST_CREATE_DEADLINE_MS = 5_000;
const LOST_CREATE_PAUSE_MS = 200;

const fail = (error: ApiError): ApiResult<never> => ({ ok: false, error });

/** Turns a failure thrown from deep inside an operation back into its answer. */
export async function answering(work: () => Promise<ApiResult<unknown>>): Promise<ApiResult<unknown>> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiFailure) return fail(error.error);
    throw error;
  }
}

export class SupervisorRequests {
  constructor(private readonly deps: SupervisorRequestsDeps) {}

  /** The checks every request passes first: a body of the door's shape, none of our secrets, a campaign we host. */
  private async admitted<T extends object>(door: Door, schema: { safeParse(body: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof describeIssues>[0] } }, body: unknown, campaignId: (req: T) => string | undefined, options: RequestOptions & { relayed?: boolean }): Promise<{ req: T } | { refused: ApiResult<unknown> }> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) return { refused: fail(apiError('invalid_request', describeIssues(parsed.error))) };
    const req = parsed.data;
    const leaked = secretInRequest(req, this.deps.secrets());
    if (leaked) return { refused: fail(leaked) };
    const id = campaignId(req);
    // Another replica hosts it: its answer, relayed (a command relayed here is never relayed again).
    const forward = this.deps.hosting.forward;
    if (id !== undefined && forward && !options.relayed) {
      const { idempotencyKey } = options;
      const answer = await forward.call(this.deps.hosting, { door, campaignId: id, body: req, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
      if (answer) return { refused: answer };
    }
    const notOwner = await this.deps.hosting.refusal(id);
    return notOwner ? { refused: fail(notOwner) } : { req };
  }

  /** A command another replica relayed here (it hosts the campaign now, or answers why not). */
  runRelayed(command: RelayedCommand): Promise<ApiResult<unknown>> {
    const options = { relayed: true, ...(command.idempotencyKey !== undefined ? { idempotencyKey: command.idempotencyKey } : {}) };
    return command.door === 'campaigns' ? this.campaigns(command.body, options) : this.campaignAction(command.body, options);
  }

  async campaigns(body: unknown, options: RequestOptions & { relayed?: boolean } = {}): Promise<ApiResult<unknown>> {
    const admitted = await this.admitted('campaigns', campaignsBodySchema, body, (req) => (req.action === 'list' ? undefined : req.campaign_id), options);
    if ('refused' in admitted) return admitted.refused;
    const { req } = admitted;
    const deps = this.deps.routeDeps();
    if (!deps) return fail(apiError('invalid_request', 'The supervisor is not started.'));
    const key = options.idempotencyKey;
    if (req.action === 'create' && key !== undefined) {
      const answer = await answering(() => this.deps.gate.idempotent(req.campaign_id, key, { route: 'campaigns', body: req }, (keep) => answering(() => campaignsRoute(deps, req, keep))));
      return options.relayed ? answer : this.afterLostCreate(req.campaign_id, req, key, answer);
    }
    return answering(() => campaignsRoute(deps, req));
  }

  /**
   * Replicas: a create that found nobody hosting the campaign, then lost the claim to another
   * replica creating it at the same moment (same key through two replicas), answers as one
   * process would for that key: the creator's answer, from its gate (the replay, or
   * `mutation_in_progress` while the creator still runs it). Until the creator's actor is up its
   * replica answers `owner_unavailable`; asked again until one overall deadline (each relay waits
   * at most what is left of it). Hosted here meanwhile (the creator's campaign moved to this
   * replica): run here with the same key, so this replica's gate replays the kept answer.
   */
  private async afterLostCreate(campaignId: string, body: unknown, key: string, answer: ApiResult<unknown>): Promise<ApiResult<unknown>> {
    const forward = this.deps.hosting.forward;
    if (answer.ok || answer.error.code !== 'campaign_exists' || !forward) return answer;
    const deadline = Date.now() + LOST_CREATE_DEADLINE_MS;
    for (;;) {
      const left = Math.max(1, Math.ceil(deadline - Date.now()));
      const relayed = await forward.call(this.deps.hosting, { door: 'campaigns', campaignId, body, idempotencyKey: key }, left);
      // null: hosted here now (or by nobody): asked here with the key, the gate replays what was kept (or runs it).
      if (relayed === null) return this.campaigns(body, { idempotencyKey: key, relayed: true });
      // Still unavailable at the deadline: that answer (it says to retry with the same key).
      if (relayed.ok || relayed.error.code !== 'owner_unavailable' || Date.now() + LOST_CREATE_PAUSE_MS >= deadline) return relayed;
      await new Promise((resolve) => setTimeout(resolve, LOST_CREATE_PAUSE_MS));
    }
  }

  /** One mutation per campaign at a time is the chart's own rule (`noMutationInFlight`): no slot here. */
  async campaignAction(body: unknown, options: RequestOptions & { relayed?: boolean } = {}): Promise<ApiResult<unknown>> {
    const admitted = await this.admitted('campaign_action', campaignActionSchema, body, (req) => req.campaign_id, options);
    if ('refused' in admitted) return admitted.refused;
    const { req } = admitted;
    const corrupt = this.deps.system()?.corrupt(req.campaign_id);
    if (corrupt) return fail(apiError('campaign_corrupt', `The campaign document failed closed (${corrupt.code}); it is reported, never replaced.`));
    const host = this.deps.system()?.host(req.campaign_id);
    if (!host) return fail(apiError('campaign_not_found', `No campaign is named ${req.campaign_id}.`));
    const key = options.idempotencyKey;
    const { actions, gate } = this.deps;
    if (key === undefined || req.action === 'observe') return answering(() => actions.act(host, req));
    return answering(() => gate.idempotent(req.campaign_id, key, { route: 'campaign_action', body: req }, (keepAnswer) => answering(() => actions.act(host, req, { keepAnswer }))));
  }
}
