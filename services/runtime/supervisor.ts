/**
 * The internal supervisor the server and the CLI run: the actor system (one live actor per
 * campaign), the heartbeat that sends TICK, and the operator API over both. It never submits or
 * claims at start and never creates a remote task on its own. A plugin host embeds the typed
 * facade over it instead (services/library, docs/library.md), which exports none of the
 * internals below. The campaign's rules live in the chart, its effects in
 * services/campaign/effects*.ts, its saves in the host and the ledger. To embed one, see
 * docs/library.md (its example runs in the tests as written).
 * @module
 */
import { silentLogger, type Logger } from '../../adapters/logger.js';
import type { CampaignDocuments } from '../../persistence/campaign-store.js';
import { stateRootOwnership } from '../../persistence/owner-lock.js';
import { failure } from '../../persistence/store-errors.js';
import type { A2AClient } from '../../adapters/a2a/index.js';
import { fencedRemote } from '../authority/fenced-remote.js';
import { CampaignActions } from '../api/campaign-actions.js';
import type { CampaignsRouteDeps } from '../api/campaigns-route.js';
import { capabilitiesOf } from '../api/campaign-facts.js';
import { heldContext, MemoryContextIndex, type ContextIndex } from '../authority/context-index.js';
import { CampaignViews } from '../api/campaign-views.js';
import { buildHealth } from './health.js';
import { createMetrics, type SupervisorMetrics } from '../metrics/metrics.js';
import { createReadModel, type ReadModel } from '../api/read-model.js';
import { throwStoreFailure } from '../api/store-answers.js';
import { activeStateIds } from '../chart/active-states.js';
import type { ApiResult, HealthView, RequestOptions, StatusView } from '../api/supervisor-api.js';
import type { RequestGate } from '../api/request-gate.js';
import type { CampaignHost } from '../campaign/campaign-host.js';
import type { CampaignSnapshot } from '../campaign/facts.js';
import { supervisorDecisions, type DecisionRuntime } from '../decisions/supervisor-decisions.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';
import { readAnswered, supervisorSystem } from './system-hooks.js';
import { countingWrites, supervisorGate } from './supervisor-wiring.js';
import type { SupervisorConfig } from '../config/config.js';
import { FirstSweep } from './first-sweep.js';
import { createFleetSweep, type FleetSweep } from './fleet-sweep.js';
import { FleetTime } from './fleet-time.js';
import { replicaMode, stateRootMode, type HostingGate, type HostingMode } from './hosting-mode.js';
import { createHeartbeat, type Heartbeat, type SweepReport } from './heartbeat.js';
import { RemoteLink } from './remote-link.js';
import { SupervisorRequests } from './supervisor-requests.js';
import { Takeovers } from './takeover.js';
import type { Supervisor, SupervisorOptions } from './supervisor-types.js';

export type { WakeHandler } from '../api/campaign-views.js';
export type { Supervisor, SupervisorOptions } from './supervisor-types.js';

export async function createSupervisor(opts: SupervisorOptions): Promise<Supervisor> {
  return buildSupervisor(opts);
}

/** `createSupervisor`, synchronously (the library's facade builds on it: services/library). */
export function buildSupervisor(opts: SupervisorOptions): Supervisor {
  return new SupervisorRuntime(opts);
}

class SupervisorRuntime implements Supervisor {
  readonly readModel: ReadModel = createReadModel();
  readonly metrics: SupervisorMetrics;
  store: CampaignDocuments | null = null;
  system: CampaignSystem | null = null;
  private readonly config: SupervisorConfig;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly link: RemoteLink;
  private readonly gate: RequestGate;
  private readonly actions: CampaignActions;
  private readonly requests: SupervisorRequests;
  private readonly views: CampaignViews;
  private readonly decisions: DecisionRuntime;
  private readonly writesByCampaign = new Map<string, number>();
  /** Which campaign controls which remote context: the claim asks it, the views keep it current. */
  private readonly contexts: ContextIndex;
  /** Time (the beat's TICK) and the process's environment, for every actor. */
  private readonly time: FleetTime;
  private heartbeat: Heartbeat | null = null;
  /** The right(s) to host: the whole state root, or one per campaign on a shared database. */
  private readonly mode: HostingMode;
  /** Losing the root's right stops every actor (`stopForLostRight`); a campaign's right, that actor. */
  private readonly hosting: HostingGate;
  /** The remote every campaign call goes through: refused without a valid hosting fence. */
  private readonly remote: A2AClient | null;
  private readonly takeovers: Takeovers; // replica mode: a campaign taken over rotates its epoch first
  private firstSweep: Promise<SweepReport> | null = null;
  /** The beat's ListTasks read of the whole fleet (null: every read is a GetTask). */
  readonly fleet: FleetSweep | null;

  constructor(private readonly opts: SupervisorOptions) {
    this.config = opts.config;
    this.logger = (opts.logger ?? silentLogger()).child({ component: 'supervisor' });
    this.now = opts.now ?? (() => new Date());
    this.metrics = opts.metrics ?? createMetrics();
    const model = this.readModel;
    this.metrics.countCampaignsFrom(function* () {
      for (const c of model.getSnapshot().context.campaigns.values()) yield { authority: c.state, attention: c.attention };
    });
    this.decisions = supervisorDecisions({ config: this.config, metrics: this.metrics, logger: this.logger, injected: opts.decisions });
    this.link = new RemoteLink(this.config, this.logger, this.metrics, opts.remote);
    this.mode = opts.database
      ? replicaMode({ backend: opts.database, logger: this.logger, system: () => this.system, client: () => this.link.client, adopted: (host) => this.adopted(host), left: (id) => this.views.left(id), runHere: (command) => this.requests.runRelayed(command), changed: (kind) => this.metrics.ownershipChanges.inc({ kind }), reads: this.replicaReads(), renewed: (ms, answered) => this.metrics.ownershipRenewSeconds.observe({ outcome: answered ? 'answered' : 'failed' }, ms / 1000) })
      : stateRootMode({ root: this.config.stateRoot, ownership: opts.ownership ?? stateRootOwnership({ root: this.config.stateRoot }), injected: opts.ownership !== undefined, logger: this.logger, onLost: (reason) => this.stopForLostRight(reason) });
    this.hosting = this.mode.gate;
    this.contexts = this.mode.contexts ?? new MemoryContextIndex();
    this.takeovers = new Takeovers(this.mode.tookOver, this.logger, this.now);
    this.remote = this.link.client ? fencedRemote(this.link.client, this.hosting) : null;
    this.fleet = opts.fleetSweep === false ? null : createFleetSweep({ remote: () => this.remote, host: (id) => this.system?.host(id), metrics: this.metrics, logger: this.logger, now: this.now });
    this.time = new FleetTime({
      hosts: () => this.system?.hosts() ?? [],
      host: (id) => this.system?.host(id),
      hasRemote: () => this.link.client !== null,
      // The process's facts of now: what discovery found, whether Argus can run, the cadence.
      environment: () => ({
        capabilities: capabilitiesOf(this.link.description),
        argusAvailable: this.decisions.recentAvailability().argus.available,
        cadenceMs: this.config.heartbeatSeconds * 1000,
      }),
      now: this.now,
    });
    this.gate = supervisorGate({
      system: () => this.system,
      store: () => this.requireStore(),
      unusable: (id, failure) => this.unusable(id, failure),
      writesTo: (id) => this.writesByCampaign.get(id) ?? 0,
      liveView: (id) => this.views.plainSummary(this.system?.host(id)),
      now: this.now,
      logger: this.logger,
    });
    this.actions = new CampaignActions({
      noRemote: () => this.link.noRemote(),
      description: () => this.discovered(this.link.ensureDescription()),
      refreshEnvironment: () => this.time.tellEnvironment(),
      view: (facts, snapshot, host, allowed) => this.views.summary(host, facts, snapshot, allowed),
      eventsFrom: (id, from) => this.readModel.getSnapshot().context.events.filter((e) => e.campaign_id === id && e.seq >= from),
      unusable: (id, failure) => this.unusable(id, failure),
      leaseTtlSeconds: this.config.leaseTtlSeconds,
      now: this.now,
    });
    this.requests = new SupervisorRequests({
      secrets: () => [this.config.apiKey, this.config.a2aToken],
      hosting: this.hosting,
      gate: this.gate,
      actions: this.actions,
      system: () => this.system,
      routeDeps: () => this.routeDeps(),
    });
    this.views = new CampaignViews({
      readModel: this.readModel,
      metrics: this.metrics,
      logger: this.logger,
      wakeHandlers: opts.wakeHandlers,
      allowedActions: (host, snapshot) => this.actions.allowedActions(host, snapshot),
      now: this.now,
    });
  }

  /** What a replica needs to show the campaigns other replicas host (their events, their views). */
  private replicaReads = () => ({ readModel: this.readModel, summaries: { environment: () => this.time.environment(), allowedActions: (s: CampaignSnapshot) => this.actions.allowedFor(s), now: this.now } });

  private requireStore(): CampaignDocuments {
    if (!this.store) throw new Error('supervisor not started');
    return this.store;
  }
  private unusable = (campaignId: string, failure: Parameters<typeof throwStoreFailure>[2]): never => throwStoreFailure(this.logger, campaignId, failure);

  health(): HealthView {
    const corrupt = [...(this.system?.corruptCampaigns() ?? [])].length;
    const campaigns = this.system?.list().length ?? 0;
    const { config } = this;
    const remote = { remoteReachable: this.link.reachable, description: this.link.description, discovery: this.link.discovery };
    const hosting = { owner: this.hosting.owner, deposed: this.hosting.lost, ...this.mode.describe() };
    return buildHealth({ config, hosting, lastSweep: this.heartbeat?.lastSweep ?? null, campaigns, corrupt, ...remote, decisions: this.decisions.availability() });
  }

  status(): StatusView {
    const { campaigns, events } = this.readModel.getSnapshot().context;
    return { campaigns: [...campaigns.values()], events };
  }

  /** The chart's state node ids the live actor is in now; null for an unknown or corrupt campaign. */
  activeStates(campaignId: string): string[] | null {
    const host = this.system?.host(campaignId);
    return host ? activeStateIds(host.getSnapshot().value) : null;
  }

  /** Discovery answered (or had answered): every actor holds what it found before the action goes on. */
  private async discovered<T>(discovery: Promise<T>): Promise<T> {
    const result = await discovery;
    this.time.tellEnvironment();
    return result;
  }

  private routeDeps(): CampaignsRouteDeps | null {
    const system = this.system;
    if (!system) return null;
    return {
      system,
      views: this.views,
      readModel: this.readModel,
      remote: this.remote,
      controllerId: this.config.controllerId,
      now: this.now,
      activeStates: (id: string) => this.activeStates(id),
      readAnswered: (okRead: boolean, code: string | null) => this.link.readAnswered(okRead, code),
      unusable: (id: string, failure: Parameters<typeof throwStoreFailure>[2]) => this.unusable(id, failure),
      elsewhere: this.mode.elsewhere,
    };
  }

  campaigns(body: unknown, options: RequestOptions = {}): Promise<ApiResult<unknown>> {
    return this.requests.campaigns(body, options);
  }

  campaignAction(body: unknown, options: RequestOptions = {}): Promise<ApiResult<unknown>> {
    return this.requests.campaignAction(body, options);
  }

  observe = (campaignId: string): Promise<ApiResult<unknown>> => this.campaignAction({ campaign_id: campaignId, action: 'observe' });

  async start(startOpts: { heartbeat?: boolean; initialSweep?: boolean } = {}): Promise<void> {
    // The owner lock is taken here, not in `serve`: an embedding host is protected as the CLI is.
    await this.mode.claim();
    const concurrency = this.opts.concurrency ?? 64;
    // After a restart, re-read every campaign's remote status (read-only: no claim, no submit), each
    // as soon as its actor is up (a replica's takeover rotates its epoch first: takeover.ts).
    const onError = (campaignId: string, error: unknown) => this.logger.error({ campaignId, err: String(error) }, 'tick failed');
    const first = (startOpts.initialSweep ?? true) ? new FirstSweep(concurrency, (id) => this.takeovers.settled(id).then(() => this.time.tickIfDue(id)), onError) : null;
    // Discovery goes on in the background (bounded, retried): a dead remote never keeps start() from
    // returning. Until it answers, /health says so, reads wait, claims and mutations are refused
    // remote_unavailable; once it answers, every actor is told at once (the chart's rules read it).
    this.link.discoverInBackground(() => (this.time.tellEnvironment(), this.views.refreshAll(this.system?.hosts() ?? [])));
    try {
      await this.load((host) => (void this.takeovers.begin(host), first?.add(host.id)), concurrency);
      this.mode.loaded();
    } catch (error) {
      await this.link.close();
      await this.hosting.release();
      throw error;
    }
    this.heartbeat = createHeartbeat({
      cadenceMs: this.config.heartbeatSeconds * 1000,
      dueCampaigns: () => this.time.dueCampaigns(),
      tick: (id, settled) => this.time.tick(id, settled),
      onSweepError: onError,
      ...this.fleet?.heartbeat,
    });
    const heartbeat = this.heartbeat;
    this.firstSweep = first?.done().then((report) => (heartbeat.record(report), report)) ?? null;
    if (startOpts.heartbeat ?? true) heartbeat.start();
  }

  /** The restart's first read of every campaign (null when start() was told not to make it). */
  initialSweep = (): Promise<SweepReport> | null => this.firstSweep;

  private async load(onHosted: ((host: CampaignHost) => void) | undefined, readConcurrency: number): Promise<void> {
    this.store = await this.mode.openStore(countingWrites(this.metrics, this.writesByCampaign), this.opts.storeFs);
    const { views, logger, contexts, now } = this;
    const remoteFor = this.mode.remoteFor;
    const effects = { controllerId: this.config.controllerId, remote: this.remote, ...(remoteFor ? { remoteFor } : {}), now, readConcurrency, decisions: this.decisions, contexts, fleet: this.fleet?.read };
    this.system = supervisorSystem(
      { store: this.store, now, inspect: this.opts.inspect, effects, environment: () => this.time.environment() },
      { views, gate: this.gate, logger, contexts, readAnswered: readAnswered({ views, logger, link: this.link }), onFenceStale: (reason, id) => this.hosting.lose(reason, id), published: this.mode.published },
    );
    // Every restored actor starts with the environment of now (nothing discovered yet, usually).
    this.time.settle();
    views.beginLoad();
    try {
      await this.system.load(64, onHosted);
    } finally {
      for (const host of this.system.hosts()) this.contexts.settle(host.id, host.corrupt ? null : (heldContext(host.getSnapshot()) ?? null));
      views.endLoad(this.system.hosts(), this.system.corruptCampaigns());
    }
  }

  /** A replica took one more campaign after boot: its context, its view, its epoch rotated, its first read. */
  private adopted(host: CampaignHost): void {
    if (!host.corrupt) this.contexts.settle(host.id, heldContext(host.getSnapshot()) ?? null);
    this.views.refresh(host);
    void this.takeovers.begin(host, true).then(() => (this.views.refresh(host), this.time.tickIfDue(host.id)));
  }

  /** Every covered actor stops at once and for good; the heartbeat skips them (not running). */
  private stopForLostRight(reason: string): void {
    const stale = failure('fence_stale', `this process lost the right to host: ${reason}`);
    for (const host of this.system?.hosts() ?? []) host.stopForLostRight(stale);
  }

  async stop(): Promise<void> {
    await Promise.all([this.heartbeat?.stop(), this.hosting.stopping?.()]);
    await this.system?.stop();
    await this.link.close();
    await this.decisions.close();
    await this.hosting.release();
  }

  sweep(): Promise<SweepReport> {
    if (!this.heartbeat) throw new Error('supervisor not started');
    return this.heartbeat.sweep();
  }
}
