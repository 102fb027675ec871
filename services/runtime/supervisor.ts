/**
 * The actor system a plugin host embeds: it loads every campaign, re-reads remote status,
 * runs the heartbeat, and answers the operator API. It never submits or claims at start and
 * never creates a remote task on its own.
 *
 * @example
 *   const supervisor = await createSupervisor({ config: loadConfig(process.env) });
 *   await supervisor.start();
 *   await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: '...', remote_task_id: 't1' });
 * @module
 */
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import { silentLogger, type Logger } from '../../adapters/logger.js';
import type { CampaignEvent } from '../../machines/campaign.types.js';
import { explainRefusal } from '../../machines/campaign.refusals.js';
import { isKnownMachineVersion } from '../../machines/campaign.version.js';
import type { WakeTarget } from '../../machines/vocabulary.js';
import { newCampaignDocument, type CampaignDocument, type WakeRequest as RecordedWake } from '../../persistence/campaign-document.js';
import { openCampaignStore, type CampaignStore } from '../../persistence/campaign-store.js';
import { stateRootOwnership, WHOLE_STATE_ROOT, type HostingRight, type Ownership } from '../../persistence/owner-lock.js';
import { ApiFailure, apiError, type ApiError } from '../api/api-errors.js';
import { campaignActionSchema, campaignsBodySchema, describeIssues, type CampaignActionBody, type CampaignsBody } from '../api/api-schemas.js';
import { initialMachine, peekSnapshot } from '../campaign/campaign-actor.js';
import { corruptEntry, entryFromDocument, isDue, type CampaignEntry } from './campaign-registry.js';
import { corruptSummary, eventViews, summarize, withLastReadAt } from '../campaign/campaign-summary.js';
import type { SupervisorConfig } from './config.js';
import { materialFingerprint } from '../reducer/fingerprint.js';
import { createHeartbeat, type Heartbeat, type SweepReport } from './heartbeat.js';
import { createMetrics, type SupervisorMetrics } from '../api/metrics.js';
import { applyIntentInDoubt, applyObservation, applyReadFailure, stepAndPublish, type DocumentChange } from '../campaign/observation.js';
import { createReadModel, type CampaignSummary, type ReadModel } from '../api/read-model.js';
import type { ApiResult, HealthView, RequestOptions, StatusView, SupervisorApi } from '../api/supervisor-api.js';
import { buildHealth } from '../api/health.js';
import { KeyedMutex } from '../../persistence/keyed-mutex.js';
import { createAuthority, type MutationFacts } from '../authority/authority.js';
import { refusalResult } from '../api/refusals.js';
import { createReadRefusal } from '../authority/task-verification.js';
import { StartupFailure } from './startup-failure.js';
import { createRequestGate, type KeepAnswer } from '../authority/request-gate.js';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { rememberAnswer } from '../../persistence/idempotency.js';
import type { StoreFailure } from '../../persistence/store-errors.js';

/**
 * Where wake requests go. The Argus and Foreman bridges are a later issue; until then the
 * requests are only recorded durably (and counted), and tests pass a counting bridge here.
 */
export type WakeHandler = (campaignId: string, wake: RecordedWake) => Promise<void>;

export interface SupervisorOptions {
  config: SupervisorConfig;
  logger?: Logger;
  /** Injected remote (tests, embedding hosts); default: an A2A client for `config.a2aUrl`. */
  remote?: A2AClient | null;
  wakeHandlers?: Partial<Record<WakeTarget, WakeHandler>>;
  /** Heartbeat concurrency (default 64). */
  concurrency?: number;
  now?: () => Date;
  metrics?: SupervisorMetrics;
  /** Who may host the campaigns; default: one owner per state root (`persistence/owner-lock.ts`). */
  ownership?: Ownership;
  /** The file-system calls of the campaign store (tests inject storage failures). */
  storeFs?: DurableFs;
}

export interface Supervisor extends SupervisorApi {
  start(opts?: { heartbeat?: boolean; initialSweep?: boolean }): Promise<void>;
  stop(): Promise<void>;
  /** One heartbeat sweep over every due campaign, now. */
  sweep(): Promise<SweepReport>;
  /** Reads one campaign now (the `observe` action). */
  observe(campaignId: string): Promise<ApiResult<unknown>>;
  readonly store: CampaignStore | null;
}

export async function createSupervisor(opts: SupervisorOptions): Promise<Supervisor> {
  const { config } = opts;
  const logger = (opts.logger ?? silentLogger()).child({ component: 'supervisor' });
  const now = opts.now ?? (() => new Date());
  const metrics = opts.metrics ?? createMetrics();
  const readModel: ReadModel = createReadModel();
  metrics.countCampaignsFrom(function* () {
    for (const c of readModel.getSnapshot().context.campaigns.values()) yield { authority: c.state, attention: c.attention };
  });
  const entries = new Map<string, CampaignEntry>();
  // When each campaign's remote was last read successfully: memory only, so an unchanged tick
  // still writes nothing (the document keeps `observedAt`, the last material change).
  const lastReadAt = new Map<string, string>();
  // Serializes a tick and an operator action on one campaign inside this process.
  const queue = new KeyedMutex();
  const cadenceMs = config.heartbeatSeconds * 1000;
  // Until ARGUS_SUPERVISOR_ENABLED=1 the supervisor contacts no remote at all: campaigns load and
  // the API answers, but nothing is read, claimed or sent (the original plugin's opt-in).
  const remote: A2AClient | null =
    opts.remote !== undefined
      ? opts.remote
      : config.a2aUrl && config.enabled
        ? createA2AClient({
            baseUrl: config.a2aUrl,
            ...(config.a2aToken ? { token: config.a2aToken } : {}),
            // Our own API key is a secret too: a remote that somehow echoes it never gets it shown.
            ...(config.apiKey ? { redact: [config.apiKey] } : {}),
            logger,
            onRequest: (method, outcome, seconds) => metrics.remoteRequestSeconds.observe({ method, outcome }, seconds),
          })
        : null;
  let store: CampaignStore | null = null;
  let description: RemoteDescription | null = null;
  let remoteReachable: boolean | null = null;
  let heartbeat: Heartbeat | null = null;
  let owner: HostingRight | null = null;
  const ownership =
    opts.ownership ??
    stateRootOwnership({ root: config.stateRoot, onLost: (reason) => logger.error({ code: 'state_root_taken_over', reason }, 'another process took over the state root') });
  const writesByCampaign = new Map<string, number>();
  const gate = createRequestGate({
    records: async (id) => {
      if (!entries.has(id)) return [];
      const doc = await loadDoc(id);
      if (!doc.ok) throw new ApiFailure(doc.error);
      return doc.value.idempotency;
    },
    remember: async (id, record) => {
      await commit(
        id,
        (doc) => (doc.idempotency.some((r) => r.keyDigest === record.keyDigest) ? null : { doc: { ...doc, idempotency: rememberAnswer(doc.idempotency, record) }, appended: [], wakes: [] }),
        null,
      );
    },
    writesTo: (id) => writesByCampaign.get(id) ?? 0,
    now,
    onRememberFailed: (campaignId, error) =>
      logger.error({ campaignId, err: error instanceof ApiFailure ? error.error.code : String(error) }, 'idempotency answer not kept'),
  });

  const authority = createAuthority({
    controllerId: config.controllerId,
    leaseTtlSeconds: config.leaseTtlSeconds,
    minTtlSeconds: 2 * config.heartbeatSeconds,
    remote,
    description: ensureDescription,
    controllerOfContext: (contextId, except) => {
      for (const e of entries.values()) if (e.id !== except && e.controlling && e.contextId === contextId) return e.id;
      return null;
    },
    noRemote,
    markInDoubt: async (id) => {
      await commit(id, markIntentInDoubt, null);
    },
    loadDoc: (id) => loadDoc(id),
    commit: (id, change) => commit(id, change, null),
    view: (doc) => withLastRead(summarize(doc)),
    now,
  });
  // Renew while at least two heartbeats remain before expiry (or half the TTL, if longer).
  const renewWithinMs = Math.max((config.leaseTtlSeconds * 1000) / 2, 2.2 * cadenceMs);

  function noRemote(): ApiError {
    return config.a2aUrl && !config.enabled
      ? apiError('supervisor_disabled', 'ARGUS_SUPERVISOR_ENABLED is not 1, so the supervisor contacts no remote.')
      : apiError('remote_not_configured', 'No OpenTraining A2A URL is configured.');
  }

  const requireStore = (): CampaignStore => {
    if (!store) throw new Error('supervisor not started');
    return store;
  };

  // ---- reading the remote ------------------------------------------------------------------

  /**
   * One compact status read, with reachability tracked for /health. The answer must be about
   * `taskId` and the context the campaign is bound to, else it is a failed read.
   */
  async function readTask(campaignId: string, client: A2AClient, taskId: string, contextId: string | null) {
    const read = await client.getTask(taskId, { contextId });
    if (read.ok) {
      remoteReachable = true;
      const at = now().toISOString();
      lastReadAt.set(campaignId, at);
      readModel.trigger.campaignRead({ campaignId, at });
    } else {
      // A clear answer (task not found, bad payload) still means the remote is up.
      if (['remote_timeout', 'remote_unreachable', 'remote_http_status'].includes(read.error.code)) remoteReachable = false;
      logger.warn({ campaignId, code: read.error.code }, 'remote read failed');
    }
    return read;
  }

  /**
   * A controlling campaign's tick is as cheap as an observer's when this tick's readback shows
   * our hold, unexpired, and not yet due for renewal: decided in memory, no document read.
   */
  function leaseStillSound(entry: CampaignEntry, observed: { holder: string; epoch: number; expiresAt: string } | null): boolean {
    if (!observed || !entry.lease) return false;
    const remaining = Date.parse(observed.expiresAt) - now().getTime();
    return observed.holder === config.controllerId && observed.epoch === entry.lease.epoch && remaining > renewWithinMs;
  }

  /** The heartbeat's unit of work. An unchanged reading returns after one request. */
  async function tick(campaignId: string): Promise<void> {
    const entry = entries.get(campaignId);
    if (!entry || !entry.taskId || !remote) return;
    const read = await readTask(campaignId, remote, entry.taskId, entry.contextId);
    // Every commit replaces the entry: if one landed while this read was in flight (a claim,
    // a mutation), the read predates it and must not judge authority. The next tick re-reads.
    const stale = () => entries.get(campaignId) !== entry;
    if (read.ok) {
      const unchanged = entry.consecutiveFailures === 0 && materialFingerprint(read.value) === entry.fingerprint;
      if (unchanged && (!entry.controlling || leaseStillSound(entry, read.value.control?.lease ?? null))) {
        metrics.ticks.inc({ result: 'unchanged' });
        return;
      }
      await queue.run(campaignId, async () => {
        if (stale()) return;
        const change = unchanged
          ? null
          : await commit(campaignId, (doc) => applyObservation(doc, read.value, { controllerId: config.controllerId, now: now() }), 'changed');
        // While we hold the lease, every tick re-checks authority and renews before expiry.
        const leaseWrote = entries.get(campaignId)?.controlling
          ? await authority.superviseLease(campaignId, read.value.control?.lease ?? null, renewWithinMs)
          : false;
        if (!change) metrics.ticks.inc({ result: leaseWrote ? 'changed' : 'unchanged' });
      });
      return;
    }
    metrics.ticks.inc({ result: 'failed' });
    await queue.run(campaignId, async () => {
      if (stale()) return;
      await commit(campaignId, (doc) => applyReadFailure(doc, read.error, { controllerId: config.controllerId, now: now(), cadenceMs }), null);
      // No readback means no renewal: a lease that lapses meanwhile is lost, and said so once.
      if (entries.get(campaignId)?.controlling) await authority.expireIfLapsed(campaignId);
    });
  }

  /**
   * Runs a pure document change under the store's lock, then mirrors the result into memory,
   * the read model, metrics and the wake handlers. Returns what was appended.
   */
  async function commit(
    campaignId: string,
    change: (doc: CampaignDocument) => DocumentChange | null,
    tickResult: 'changed' | null,
  ): Promise<DocumentChange | null> {
    let result: DocumentChange | null = null;
    const written = await requireStore().transact(campaignId, (doc) => {
      result = change(doc);
      return result ? result.doc : null;
    });
    if (!written.ok) {
      throwIfUnusable(campaignId, written);
      logger.error({ campaignId, code: written.code }, 'campaign write refused');
      return null;
    }
    if (tickResult) metrics.ticks.inc({ result: tickResult });
    const applied = result as DocumentChange | null;
    refresh(written.doc);
    if (applied) await announce(campaignId, applied);
    return applied;
  }

  async function announce(campaignId: string, change: DocumentChange): Promise<void> {
    for (const event of change.appended) metrics.publicEvents.inc({ kind: event.kind });
    if (change.appended.length) readModel.trigger.publicEventsAppended({ events: eventViews({ ...change.doc, outbox: { ...change.doc.outbox, events: change.appended } }) });
    for (const wake of change.wakes) {
      metrics.wakeRequests.inc({ target: wake.target });
      const handler = opts.wakeHandlers?.[wake.target];
      if (!handler) continue;
      metrics.modelCalls.inc({ runtime: wake.target });
      // A wake is durable before the handler runs; a failing handler never blocks observation.
      await handler(campaignId, wake).catch((error: unknown) =>
        logger.error({ campaignId, target: wake.target, err: String(error) }, 'wake handler failed'),
      );
    }
  }

  function refresh(doc: CampaignDocument): void {
    const entry = entryFromDocument(doc);
    entries.set(doc.campaignId, entry);
    gate.indexKeys(doc.campaignId, doc.idempotency);
    readModel.trigger.campaignUpdated({ summary: summarize(doc, lastReadAt.get(doc.campaignId) ?? null) });
  }

  /**
   * A store failure that is not about this request: a document that fails closed (reported,
   * and the campaign out of service from now on) or storage that cannot be used (503).
   */
  function throwIfUnusable(campaignId: string, failed: StoreFailure<string>): void {
    if (failed.code === 'document_corrupt' || failed.code === 'document_version_unknown' || failed.code === 'machine_version_unknown') {
      markCorrupt(campaignId, failed.code, failed.reason);
      throw new ApiFailure(apiError('campaign_corrupt', `The campaign document failed closed (${failed.code}); it is reported, never replaced.`));
    }
    if (failed.code === 'io_failed' || failed.code === 'lock_timeout') {
      // The errno names the failure; the reason (paths) stays out of the answer.
      logger.error({ campaignId, code: 'storage_unavailable', store: failed.code, errno: failed.errno ?? null }, 'campaign storage failed');
      throw new ApiFailure(apiError('storage_unavailable', 'The supervisor could not use its state storage, so nothing was changed; try again later.'));
    }
    if (failed.code === 'fence_stale') {
      logger.error({ campaignId, code: 'hosting_lost', reason: failed.reason }, 'write refused: this process no longer holds the right to host the campaign');
      throw new ApiFailure(apiError('hosting_lost', 'This supervisor no longer holds the right to host the campaign (another process took it over), so nothing was changed.'));
    }
  }

  /** Turns a failure thrown from deep inside an operation back into its answer. */
  async function answering(work: () => Promise<ApiResult<unknown>>): Promise<ApiResult<unknown>> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiFailure) return fail(error.error);
      throw error;
    }
  }

  function markCorrupt(campaignId: string, code: string, reason: string): void {
    entries.set(campaignId, corruptEntry(campaignId, code, reason));
    readModel.trigger.campaignUpdated({ summary: corruptSummary(campaignId) });
  }

  // ---- start / stop --------------------------------------------------------------------------

  async function load(): Promise<void> {
    store = await openCampaignStore({
      root: config.stateRoot,
      logger,
      onWrite: (write) => {
        metrics.storeWrites.inc();
        writesByCampaign.set(write.campaignId, (writesByCampaign.get(write.campaignId) ?? 0) + 1);
      },
      ...(opts.storeFs ? { fs: opts.storeFs } : {}),
      machineVersionKnown: isKnownMachineVersion,
      // start() holds the state root's owner lock before it opens the store (unless a host
      // injected its own ownership, which may not cover the whole root).
      soleOwner: opts.ownership === undefined,
      // Every document write carries the right's fence and is refused once it is stale.
      ...(owner ? { fence: owner } : {}),
    });
    const loaded = await store.loadAll({ concurrency: 32 });
    const summaries: CampaignSummary[] = [];
    const events = [];
    for (const result of loaded) {
      if (!result.ok) {
        logger.error({ campaignId: result.id, code: result.code }, 'campaign document fails closed');
        entries.set(result.id, corruptEntry(result.id, result.code, result.reason));
        summaries.push(corruptSummary(result.id));
        continue;
      }
      try {
        peekSnapshot(result.doc);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        logger.error({ campaignId: result.id, code: 'machine_version_unknown' }, 'campaign machine fails closed');
        entries.set(result.id, corruptEntry(result.id, 'machine_version_unknown', reason));
        summaries.push(corruptSummary(result.id));
        continue;
      }
      entries.set(result.id, entryFromDocument(result.doc));
      gate.indexKeys(result.id, result.doc.idempotency);
      summaries.push(summarize(result.doc));
      events.push(...eventViews(result.doc));
    }
    readModel.trigger.campaignsLoaded({ summaries, events });
    // A journaled intent without an outcome may have reached the remote before a crash: it is
    // in doubt, whatever the restored snapshot says. Never re-run, never resend.
    for (const entry of entries.values()) {
      if (entry.hasOpenIntent) await queue.run(entry.id, () => commit(entry.id, markIntentInDoubt, null));
    }
  }

  /** An intent with no recorded outcome may have reached the remote: it is in doubt. */
  const markIntentInDoubt = (doc: CampaignDocument) => applyIntentInDoubt(doc, now());

  /** The cached description, or a discovery now if start-up could not reach the remote. */
  async function ensureDescription(): Promise<RemoteDescription | null> {
    if (!description) await discoverRemote();
    return description;
  }

  async function discoverRemote(): Promise<void> {
    if (!remote) return;
    const found = await remote.discover();
    if (found.ok) {
      description = found.value;
      remoteReachable = true;
      logger.info({ protocolVersion: description.protocolVersion, mutationsEnabled: description.mutationsEnabled }, 'remote discovered');
    } else {
      remoteReachable = false;
      logger.warn({ code: found.error.code }, 'remote discovery failed; observation will retry on the heartbeat');
    }
  }

  function dueCampaigns(at: number): string[] {
    const due: string[] = [];
    for (const entry of entries.values()) if (isDue(entry, at)) due.push(entry.id);
    return due;
  }

  // ---- operator API --------------------------------------------------------------------------

  function health(): HealthView {
    let corrupt = 0;
    for (const e of entries.values()) if (e.corrupt) corrupt++;
    return buildHealth({ config, lastSweep: heartbeat?.lastSweep ?? null, campaigns: entries.size, corrupt, remoteReachable, description });
  }

  function status(): StatusView {
    const ctx = readModel.getSnapshot().context;
    return { campaigns: [...ctx.campaigns.values()], events: ctx.events };
  }

  async function campaigns(body: unknown, options: RequestOptions = {}): Promise<ApiResult<unknown>> {
    const parsed = campaignsBodySchema.safeParse(body);
    if (!parsed.success) return fail(apiError('invalid_request', describeIssues(parsed.error)));
    const req = parsed.data;
    if (req.action === 'create' && options.idempotencyKey !== undefined) {
      const key = options.idempotencyKey;
      return answering(() => gate.idempotent(req.campaign_id, key, { route: 'campaigns', body: req }, () => answering(() => create(req))));
    }
    if (req.action === 'create') return answering(() => create(req));
    if (req.action === 'list') return ok({ campaigns: status().campaigns });
    if (req.action === 'get') {
      const summary = readModel.getSnapshot().context.campaigns.get(req.campaign_id);
      if (!summary) return fail(apiError('campaign_not_found', `No campaign is named ${req.campaign_id}.`));
      const events = readModel.getSnapshot().context.events.filter((e) => e.campaign_id === req.campaign_id);
      return ok({ campaign: summary, events });
    }
    return fail(apiError('invalid_request', 'Unknown action.'));
  }

  async function create(req: Extract<CampaignsBody, { action: 'create' }>): Promise<ApiResult<unknown>> {
    if (entries.has(req.campaign_id)) return fail(apiError('campaign_exists', `A campaign named ${req.campaign_id} already exists.`));
    if (req.remote_task_id && remote) {
      const verified = await verifyTask(req.campaign_id, remote, req.remote_task_id);
      if (!verified.ok) return verified;
    }
    const maxAttempts = req.max_attempts ?? 3;
    const doc = newCampaignDocument({
      campaignId: req.campaign_id,
      objective: req.objective,
      createdAt: now(),
      maxAttempts,
      // An attached task was started elsewhere: it is observed, never sent again.
      remote: req.remote_task_id
        ? { taskId: req.remote_task_id, contextId: null, attached: true }
        : { taskId: null, contextId: null, attached: false },
    });
    const created = await requireStore().create({
      ...doc,
      machine: initialMachine({ campaignId: req.campaign_id, controllerId: config.controllerId, maxAttempts }),
    });
    if (!created.ok) {
      lastReadAt.delete(req.campaign_id);
      if (created.code === 'campaign_exists') return fail(apiError('campaign_exists', `A campaign named ${req.campaign_id} already exists.`));
      throwIfUnusable(req.campaign_id, created);
      return fail(apiError('invalid_request', `The campaign could not be created (${created.code}).`));
    }
    refresh(created.doc);
    return ok({ campaign: withLastRead(summarize(created.doc)) });
  }

  /** Create reads the task once: a task the remote does not have, or cannot show now, is not stored. */
  async function verifyTask(campaignId: string, client: A2AClient, taskId: string): Promise<ApiResult<true>> {
    // A success counts as the campaign's first read (`last_read_at`); no document exists yet.
    const read = await readTask(campaignId, client, taskId, null);
    return read.ok ? ok(true) : fail(createReadRefusal(read.error));
  }

  /** Views built outside the read model (e.g. by the authority path) get the in-memory read time too. */
  const withLastRead = (summary: CampaignSummary) => withLastReadAt(summary, lastReadAt.get(summary.campaign_id) ?? null);

  /** Every `campaign` view an action answers carries `last_read_at`, whoever built it. */
  function withLastReadIn(result: ApiResult<unknown>): ApiResult<unknown> {
    if (!result.ok) return result;
    const value = result.value as { campaign?: CampaignSummary } | null;
    if (!value || typeof value !== 'object' || !value.campaign?.remote) return result;
    return ok({ ...value, campaign: withLastRead(value.campaign) });
  }

  async function campaignAction(body: unknown, options: RequestOptions = {}): Promise<ApiResult<unknown>> {
    const parsed = campaignActionSchema.safeParse(body);
    if (!parsed.success) return fail(apiError('invalid_request', describeIssues(parsed.error)));
    const req = parsed.data;
    const entry = entries.get(req.campaign_id);
    if (!entry) return fail(apiError('campaign_not_found', `No campaign is named ${req.campaign_id}.`));
    if (entry.corrupt) {
      return fail(apiError('campaign_corrupt', `The campaign document failed closed (${entry.corrupt.code}); it is reported, never replaced.`));
    }
    const key = options.idempotencyKey;
    if (key === undefined || req.action === 'observe') return answering(() => admit(req));
    return answering(() => gate.idempotent(req.campaign_id, key, { route: 'campaign_action', body: req }, (keepAnswer) => answering(() => admit(req, keepAnswer))));
  }

  /** Fenced mutations take the campaign's one in-flight slot; everything else queues. */
  function admit(req: CampaignActionBody, keepAnswer?: KeepAnswer): Promise<ApiResult<unknown>> {
    if (req.action === 'submit' || req.action === 'intervene' || req.action === 'cancel' || req.action === 'release') {
      return gate.oneMutationAtATime(req.campaign_id, { keepAnswer }, (facts) => queue.run(req.campaign_id, async () => withLastReadIn(await authorityAction(req, facts))));
    }
    return queue.run(req.campaign_id, async () => withLastReadIn(await dispatch(req)));
  }

  async function dispatch(req: CampaignActionBody): Promise<ApiResult<unknown>> {
    switch (req.action) {
      case 'observe':
        return observeNow(req.campaign_id);
      case 'pause':
        return machineAction(req.campaign_id, { type: 'PAUSE' }, (doc) => ({ ...doc, paused: true }));
      case 'resume': {
        const resumed = await machineAction(req.campaign_id, { type: 'RESUME' }, (doc) => ({
          ...doc,
          paused: false,
          readFailures: { ...doc.readFailures, nextReadAt: null },
        }));
        if (!resumed.ok) return resumed;
        // Resume only observes and reads back; it never claims. A failed read does not undo it.
        const entry = entries.get(req.campaign_id);
        if (!remote || !entry?.taskId) return resumed;
        const observed = await observeNow(req.campaign_id);
        return observed.ok ? observed : ok({ ...(resumed.value as object), observe_error: observed.error });
      }
      case 'close': {
        // Closing must not strand authority: release the lease, settle any doubt, first.
        const entry = entries.get(req.campaign_id)!;
        if (entry.controlling) return fail(apiError('action_not_allowed', 'The campaign holds the controller lease; release it before closing.'));
        if (entry.hasOpenIntent) return fail(apiError('intent_unresolved', 'A mutation is in doubt; resolve_intent must settle it before closing.'));
        return machineAction(req.campaign_id, { type: 'CLOSE' }, (doc) => doc);
      }
      case 'answer': {
        const doc = await loadDoc(req.campaign_id);
        if (!doc.ok) return doc;
        const key = doc.value.pendingQuestion?.eventId;
        if (!key) return fail(apiError('action_not_allowed', 'The campaign has no pending question to answer.'));
        return machineAction(req.campaign_id, { type: 'OPERATOR_ANSWER', questionKey: key, answer: req.text }, (d) => d);
      }
      default:
        return authorityAction(req, { mutationInFlight: false });
    }
  }

  /** Lease and fenced mutations: every remote mutation except claim names the epoch it holds. */
  async function authorityAction(req: CampaignActionBody, facts: MutationFacts): Promise<ApiResult<unknown>> {
    switch (req.action) {
      case 'claim':
        return authority.claim(req.campaign_id, req.ttl_seconds ?? config.leaseTtlSeconds);
      case 'release':
        return authority.mutate(req.campaign_id, { kind: 'release' }, req.epoch, facts);
      case 'submit':
        return authority.mutate(req.campaign_id, { kind: 'submit', text: req.text }, req.epoch, facts);
      case 'intervene':
        return authority.mutate(req.campaign_id, { kind: 'intervene', instruction: req.instruction }, req.epoch, facts);
      case 'cancel':
        return authority.mutate(req.campaign_id, { kind: 'cancel', reason: req.reason }, req.epoch, facts);
      case 'resolve_intent':
        return authority.resolveIntent(req.campaign_id);
      default:
        return fail(apiError('invalid_request', 'Unknown action.'));
    }
  }

  async function observeNow(campaignId: string): Promise<ApiResult<unknown>> {
    const entry = entries.get(campaignId)!;
    if (!remote) return fail(noRemote());
    if (!entry.taskId) return fail(apiError('action_not_allowed', 'The campaign has no remote task to observe yet.'));
    if (entry.paused) return fail(apiError('action_not_allowed', 'The campaign is paused; resume it to observe.'));
    const before = outboxSeq(campaignId);
    const read = await readTask(campaignId, remote, entry.taskId, entry.contextId);
    let change: DocumentChange | null;
    if (read.ok) {
      change = await commit(campaignId, (doc) => applyObservation(doc, read.value, { controllerId: config.controllerId, now: now() }), null);
      if (entries.get(campaignId)?.controlling) await authority.superviseLease(campaignId, read.value.control?.lease ?? null, renewWithinMs);
    } else {
      change = await commit(campaignId, (doc) => applyReadFailure(doc, read.error, { controllerId: config.controllerId, now: now(), cadenceMs }), null);
    }
    const summary = readModel.getSnapshot().context.campaigns.get(campaignId);
    const events = readModel.getSnapshot().context.events.filter((e) => e.campaign_id === campaignId && e.seq >= before);
    return ok({
      campaign: summary,
      changed: change !== null,
      events,
      ...(read.ok ? {} : { read_error: { code: read.error.code, message: read.error.message } }),
    });
  }

  function outboxSeq(campaignId: string): number {
    const events = readModel.getSnapshot().context.events.filter((e) => e.campaign_id === campaignId);
    return events.length ? events[events.length - 1]!.seq + 1 : 0;
  }

  async function loadDoc(campaignId: string): Promise<ApiResult<CampaignDocument>> {
    const loaded = await requireStore().load(campaignId);
    if (!loaded.ok) {
      throwIfUnusable(campaignId, loaded);
      return fail(apiError(loaded.code === 'campaign_not_found' ? 'campaign_not_found' : 'campaign_corrupt', `The campaign document could not be read (${loaded.code}).`));
    }
    return ok(loaded.doc);
  }

  /** Sends one operator event the machine must accept (checked with `can()` first). */
  async function machineAction(
    campaignId: string,
    event: CampaignEvent,
    alsoChange: (doc: CampaignDocument) => CampaignDocument,
  ): Promise<ApiResult<unknown>> {
    const current = await loadDoc(campaignId);
    if (!current.ok) return current;
    const refusal = explainRefusal(peekSnapshot(current.value), event);
    if (refusal) return refusalResult(refusal);
    const change = await commit(campaignId, (doc) => stepAndPublish(alsoChange(doc), [event], [], now()), null);
    if (!change) return fail(apiError('action_not_allowed', 'The campaign could not be updated.'));
    return ok({ campaign: summarize(change.doc) });
  }

  return {
    readModel,
    metrics,
    get store() {
      return store;
    },
    health,
    status,
    campaigns,
    campaignAction,
    observe: (campaignId) => campaignAction({ campaign_id: campaignId, action: 'observe' }),
    async start(startOpts = {}) {
      // The owner lock is taken here, not in `serve`, so an embedding host that calls start()
      // is protected from a second process on the same root just as the CLI is.
      const lease = await ownership.claim(WHOLE_STATE_ROOT);
      if (!lease.ok) throw new StartupFailure(lease.code, lease.message);
      owner = lease;
      try {
        await load();
      } catch (error) {
        owner = null;
        await lease.release();
        throw error;
      }
      await discoverRemote();
      heartbeat = createHeartbeat({
        cadenceMs,
        concurrency: opts.concurrency ?? 64,
        dueCampaigns: (at) => dueCampaigns(at),
        tick,
        onSweepError: (campaignId, error) => logger.error({ campaignId, err: String(error) }, 'tick failed'),
      });
      // After a restart, re-read every campaign's remote status (read-only: no claim, no submit).
      if (startOpts.initialSweep ?? true) void heartbeat.sweep();
      if (startOpts.heartbeat ?? true) heartbeat.start();
    },
    async stop() {
      await heartbeat?.stop();
      await remote?.close();
      await owner?.release();
      owner = null;
    },
    sweep() {
      if (!heartbeat) throw new Error('supervisor not started');
      return heartbeat.sweep();
    },
  };
}

const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
const fail = (error: ApiError): ApiResult<never> => ({ ok: false, error });
