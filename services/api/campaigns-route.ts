/**
 * The `campaigns` route: list and get read the read model; create verifies the remote task
 * (one read: a task the remote does not have, or cannot show now, is not stored), writes the
 * document with the chart's initial snapshot, and hosts its actor.
 * @module
 */
import { createActor } from 'xstate';
import type { A2AClient } from '../../adapters/a2a/index.js';
import { CAMPAIGN_MACHINE_VERSION, campaignMachine, type BindingFacts } from '../../machines/campaign.machine.js';
import { newCampaignDocument } from '../../persistence/campaign-document.js';
import { rememberAnswer } from '../../persistence/idempotency.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import { createReadRefusal } from './task-verification.js';
import type { KeepAnswer } from './request-gate.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';
import { apiError, type ApiErrorCode } from '../contract/api-errors.js';
import type { CampaignsBody } from './api-schemas.js';
import type { CampaignViews } from './campaign-views.js';
import type { CampaignSummary, ReadModel } from './read-model.js';
import { historyView } from './campaign-history-view.js';
import { statesOf } from '../campaign/campaign-history.js';
import type { ApiResult } from './supervisor-api.js';

export interface CampaignsRouteDeps {
  system: CampaignSystem;
  views: CampaignViews;
  readModel: ReadModel;
  remote: A2AClient | null;
  controllerId: string;
  now(): Date;
  /** The chart states the campaign's live actor is in (null: not hosted). */
  activeStates(campaignId: string): string[] | null;
  /** Counts the verifying read for /health (reachability). */
  readAnswered(ok: boolean, code: string | null): void;
  unusable(campaignId: string, failure: StoreFailure<string>): never;
  /** Replicas: the views of the campaigns other replicas host, read from the shared store. */
  elsewhere?: (() => Promise<CampaignSummary[]>) | undefined;
}

const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
const fail = (code: ApiErrorCode, message: string): ApiResult<never> => ({ ok: false, error: apiError(code, message) });

/** The first persisted snapshot of a new campaign (bound to `binding`: by default, to nothing yet). */
export function initialMachine(input: { campaignId: string; controllerId: string; maxAttempts: number; createdAt: string; binding?: BindingFacts }) {
  const actor = createActor(campaignMachine, { input });
  actor.start();
  const persisted = { version: CAMPAIGN_MACHINE_VERSION, snapshot: actor.getPersistedSnapshot() };
  actor.stop();
  return persisted;
}

/**
 * @param keep The Idempotency-Key's record of the answer (request-gate `KeepAnswer`): a create
 *   keeps it in the document it creates, so no crash can fall between the campaign and its record.
 */
export async function campaignsRoute(deps: CampaignsRouteDeps, req: CampaignsBody, keep?: KeepAnswer): Promise<ApiResult<unknown>> {
  const model = deps.readModel.getSnapshot().context;
  if (req.action === 'list') return list(deps, model.campaigns);
  if (req.action === 'get') {
    const summary = model.campaigns.get(req.campaign_id);
    if (!summary) return fail('campaign_not_found', `No campaign is named ${req.campaign_id}.`);
    const events = model.events.filter((e) => e.campaign_id === req.campaign_id);
    // The live chart position, so a client can light the rendered statechart (docs/api.md).
    return ok({ campaign: summary, events, chart: { active: deps.activeStates(req.campaign_id) ?? [] } });
  }
  if (req.action === 'history') return history(deps, req.campaign_id, model.campaigns.get(req.campaign_id));
  return create(deps, req, keep);
}

/** Hosted here (the read model), then, on a replica, every other campaign of the installation. */
async function list(deps: CampaignsRouteDeps, hosted: ReadonlyMap<string, CampaignSummary>): Promise<ApiResult<unknown>> {
  const here = [...hosted.values()];
  if (!deps.elsewhere) return ok({ campaigns: here });
  let others: CampaignSummary[];
  try {
    others = await deps.elsewhere();
  } catch {
    // Never a partial list: a client would take the missing campaigns for gone.
    return fail('owner_unavailable', 'The campaigns other replicas host could not be read from the database; try again.');
  }
  // A campaign adopted while the read ran shows once, as hosted here.
  return ok({ campaigns: [...here, ...others.filter((c) => !hosted.has(c.campaign_id))] });
}

async function history(deps: CampaignsRouteDeps, campaignId: string, summary: CampaignSummary | undefined): Promise<ApiResult<unknown>> {
  const corrupt = deps.system.corrupt(campaignId);
  if (corrupt) return fail('campaign_corrupt', `The campaign document failed closed (${corrupt.code}); it is reported, never replaced.`);
  const host = deps.system.host(campaignId);
  if (!host || !summary) return fail('campaign_not_found', `No campaign is named ${campaignId}.`);
  // After every write queued so far: the view moves before its save is written, and the history
  // must not lag the state it shows.
  const loaded = await deps.system.ledger.load(host.id);
  if (!loaded.ok) return deps.unusable(campaignId, loaded);
  return ok(historyView(loaded.doc, summary));
}

async function create(deps: CampaignsRouteDeps, req: Extract<CampaignsBody, { action: 'create' }>, keep?: KeepAnswer): Promise<ApiResult<unknown>> {
  const exists = () => fail('campaign_exists', `A campaign named ${req.campaign_id} already exists.`);
  if (deps.system.has(req.campaign_id)) return exists();
  let readAt: string | null = null;
  if (req.remote_task_id && deps.remote) {
    const read = await deps.remote.getTask(req.remote_task_id, { contextId: null });
    deps.readAnswered(read.ok, read.ok ? null : read.error.code);
    if (!read.ok) return { ok: false, error: createReadRefusal(read.error) };
    // A success counts as the campaign's first read (`last_read_at`).
    readAt = deps.now().toISOString();
  }
  const createdAt = deps.now();
  const maxAttempts = req.max_attempts ?? 3;
  // The chart's binding (its context's): the task it was created on; the first read learns the context.
  const binding: BindingFacts = { taskId: req.remote_task_id ?? null, contextId: null };
  const doc = newCampaignDocument({
    campaignId: req.campaign_id,
    objective: req.objective,
    createdAt,
    machine: initialMachine({ campaignId: req.campaign_id, controllerId: deps.controllerId, maxAttempts, createdAt: createdAt.toISOString(), binding }),
    // An attached task was started elsewhere: it is observed, never sent again.
    remote: { ...binding, attached: req.remote_task_id !== undefined && req.remote_task_id !== null },
  });
  // The history starts with the creation: the first state's "since" is known from the first entry.
  const first = statesOf(doc.machine.snapshot);
  if (first) doc.history = [{ at: createdAt.toISOString(), from: null, to: first, cause: 'operator', detail: 'create' }];
  // With a key, the record of the outcome (created: the answer is the campaign's view, rendered at
  // every answer) is part of the document created: the campaign and its record are ONE write.
  if (keep) doc.idempotency = rememberAnswer(doc.idempotency, keep(ok({})));
  const created = await deps.system.create(doc);
  if (!created.ok) {
    if (created.code === 'campaign_exists') return exists();
    if (created.code === 'io_failed' || created.code === 'lock_timeout' || created.code === 'fence_stale') deps.unusable(req.campaign_id, created);
    return fail('invalid_request', `The campaign could not be created (${created.code}).`);
  }
  const host = deps.system.host(req.campaign_id);
  if (!host) return fail('campaign_corrupt', 'The new campaign could not be started.');
  if (readAt) host.lastReadAt = readAt;
  deps.views.refresh(host);
  return ok({ campaign: deps.views.summary(host) });
}
