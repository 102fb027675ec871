/**
 * The actor system: one long-lived campaign actor per document, started at boot (an unknown
 * machine version or a corrupt document is reported, that actor is not started, the others
 * run), with the effects provided once and the ledger every campaign writes through. The
 * supervisor lists campaigns, finds their hosts, hears public events once durable, and may pass
 * `inspect` through to every actor.
 * @module
 */
import { createActor, fromCallback, type AnyActorRef, type InspectionEvent } from 'xstate';
import { campaignMachine, type CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEmitted, HostEnvironment } from '../../machines/campaign.types.js';
import type { CampaignDocument, PublicEvent } from '../../persistence/campaign-document.js';
import type { CampaignDocuments, LoadResult, WriteResult } from '../../persistence/campaign-store.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import { CampaignHost, MachineRestoreError, type CampaignHostDeps } from './campaign-host.js';
import { CampaignLedger } from './campaign-ledger.js';
import type { SaveResult } from './campaign-save.js';
import { createCampaignEffects, type EffectDeps } from './effects.js';
import { crashPoint } from '../faults/fault-points.js';

export interface CorruptCampaign {
  id: string;
  code: string;
  reason: string;
}

export interface CampaignSystemHooks {
  /** Each document loaded at boot, before its actor starts (the read side takes its outbox). */
  onLoaded?(doc: CampaignDocument): void;
  onSaved?(host: CampaignHost, saved: SaveResult): void;
  onEmitted?(host: CampaignHost, event: CampaignEmitted): void;
  onViewChanged?(host: CampaignHost): void;
  onCorrupt?(campaign: CorruptCampaign): void;
  onStorageFailed?(host: CampaignHost, failure: StoreFailure<string>): void;
  /** A write was refused as `fence_stale`: the right to host is gone (the supervisor stops every actor). */
  onFenceStale?(campaignId: string, failure: StoreFailure<string>): void;
}

export interface CampaignSystemOptions extends CampaignSystemHooks {
  store: CampaignDocuments;
  /** The effects' dependencies but those the system routes to each campaign's host. */
  effects: Omit<EffectDeps, 'journal' | 'publishedKeys' | 'objectiveOf' | 'decisionConsumed'>;
  now(): Date;
  /** The process's facts of now, which every actor holds (see HostEnvironment). */
  environment(): HostEnvironment;
  inspect?: ((event: InspectionEvent) => void) | undefined;
}

const FAIL_CLOSED = new Set(['document_corrupt', 'document_version_unknown', 'machine_version_unknown']);

export function createCampaignSystem(opts: CampaignSystemOptions): CampaignSystem {
  return new CampaignSystem(opts);
}

export class CampaignSystem {
  readonly logic: CampaignMachine;
  /** The campaigns' durable port: the effects write and read the document through it, never through the host that invoked them. */
  readonly ledger: CampaignLedger;
  private readonly hosted = new Map<string, CampaignHost>();
  private readonly corrupted = new Map<string, CorruptCampaign>();
  private readonly publicListeners = new Set<(campaignId: string, events: PublicEvent[]) => void>();
  /** The root of the one actor system every campaign actor shares (see CampaignHostDeps). */
  private readonly fleet: AnyActorRef;
  private readonly hostDeps: CampaignHostDeps;

  constructor(private readonly opts: CampaignSystemOptions) {
    const hosts = this.hosted;
    this.ledger = new CampaignLedger(opts.store, opts.now, {
      onWriteFailed: (id, failure) => {
        const host = hosts.get(id);
        if (host) this.writeFailed(host, failure);
      },
      onJournaled: (id) => {
        const host = hosts.get(id);
        if (host) opts.onViewChanged?.(host);
      },
    });
    const { ledger } = this;
    const live = (id: string): string => {
      if (!hosts.has(id) || this.corrupted.has(id)) throw new Error(`campaign ${id} is not hosted`);
      return id;
    };
    this.logic = campaignMachine.provide({
      actors: createCampaignEffects({
        ...opts.effects,
        journal: (id, intent) => ledger.journal(live(id), intent),
        publishedKeys: (id) => ledger.publishedKeys(live(id)),
        // What the decision effects read of the document: the facts the ledger keeps of it.
        objectiveOf: (id) => ledger.facts(id)?.objective ?? '',
        decisionConsumed: (id, decisionId) => ledger.facts(id)?.consumedDecisions.includes(decisionId) ?? false,
      }),
    });
    this.fleet = createActor(fromCallback(() => {}), opts.inspect ? { inspect: opts.inspect } : {}).start();
    this.hostDeps = {
      logic: this.logic,
      ledger,
      now: opts.now,
      environment: opts.environment,
      fleet: this.fleet,
      onSaved: (host, saved) => {
        opts.onSaved?.(host, saved);
        if (saved.appended.length) for (const listener of this.publicListeners) listener(host.id, saved.appended);
      },
      onEmitted: (host, event) => opts.onEmitted?.(host, event),
      onViewChanged: (host) => opts.onViewChanged?.(host),
      onWriteFailed: (host, failure) => this.writeFailed(host, failure),
    };
  }

  /** A corrupt document stops its campaign (reported, never replaced); `fence_stale`: the right to host is gone. */
  private writeFailed(host: CampaignHost, failure: StoreFailure<string>): void {
    if (FAIL_CLOSED.has(failure.code)) {
      host.corrupt = { code: failure.code, reason: failure.reason };
      this.reportCorrupt(host.id, failure.code, failure.reason);
    } else this.opts.onStorageFailed?.(host, failure);
    if (failure.code === 'fence_stale') this.opts.onFenceStale?.(host.id, failure);
  }

  private reportCorrupt(id: string, code: string, reason: string): void {
    const entry = { id, code, reason };
    this.corrupted.set(id, entry);
    this.opts.onCorrupt?.(entry);
  }

  /** Starts the actor of one document; a snapshot this build cannot restore is reported instead. */
  private hostDocument(doc: CampaignDocument): CampaignHost | null {
    try {
      const h = new CampaignHost(doc, this.hostDeps);
      this.hosted.set(doc.campaignId, h);
      h.start();
      return h;
    } catch (error) {
      if (!(error instanceof MachineRestoreError)) throw error;
      this.hosted.delete(doc.campaignId);
      this.ledger.forget(doc.campaignId);
      this.reportCorrupt(doc.campaignId, error.code, error.message);
      return null;
    }
  }

  /**
   * Loads every document and starts its actor as it arrives (`onHosted` hears each one, so a
   * restart's first read runs while the rest still load); waits for the writes restore made
   * (intents in doubt). The registry keeps the store's (sorted) order whatever the arrival order.
   */
  async load(concurrency = 32, onHosted?: (host: CampaignHost) => void): Promise<void> {
    const seen = new Set<string>();
    const arrive = (result: LoadResult): void => {
      if (seen.has(result.id)) return;
      seen.add(result.id);
      if (!result.ok) return this.reportCorrupt(result.id, result.code, result.reason);
      this.opts.onLoaded?.(result.doc);
      const hosted = this.hostDocument(result.doc);
      if (hosted) onHosted?.(hosted);
    };
    const loaded = await this.opts.store.loadAll({ concurrency, onResult: arrive });
    // A store that does not stream its results (`onResult` is optional) is hosted here.
    for (const result of loaded) arrive(result);
    const arrived = new Map(this.hosted);
    this.hosted.clear();
    for (const result of loaded) {
      const hosted = arrived.get(result.id);
      if (hosted) this.hosted.set(result.id, hosted);
    }
    await Promise.all([...this.hosted.values()].map((h) => h.whenWritten()));
  }

  /**
   * Hosts one more campaign after boot (a replica took its right: a new, orphaned or handed-over
   * campaign). Waits for the writes restore made, like `load`. A document that fails closed is
   * reported as at boot; one that could not be read (null, not reported) is the caller's to give back.
   */
  async adopt(id: string): Promise<CampaignHost | null> {
    if (this.hosted.has(id)) return this.hosted.get(id) ?? null;
    const result = await this.opts.store.load(id);
    if (!result.ok) {
      if (FAIL_CLOSED.has(result.code)) this.reportCorrupt(id, result.code, result.reason);
      return null;
    }
    this.corrupted.delete(id);
    this.opts.onLoaded?.(result.doc);
    const host = this.hostDocument(result.doc);
    await host?.whenWritten();
    return host;
  }

  /**
   * Stops hosting one campaign here (its right went to another replica, or it is handed over):
   * the actor stops, the ledger forgets it, nothing more is saved by this process.
   */
  async drop(id: string): Promise<void> {
    const host = this.hosted.get(id);
    this.hosted.delete(id);
    this.corrupted.delete(id);
    if (host) await host.stop();
    // Every write its actor queued has settled (refused, once the right is gone) before it is forgotten.
    await this.ledger.whenWritten(id);
    if (!this.hosted.has(id)) this.ledger.forget(id);
  }

  /** Creates the document (with its Idempotency-Key record, if any: ONE durable write), then hosts it. */
  async create(doc: CampaignDocument): Promise<WriteResult> {
    const created = await this.opts.store.create(doc);
    // The chaos/regression kill: the create is durable, its answer not yet sent.
    if (created.ok) crashPoint('after_create_write');
    if (created.ok) {
      this.hostDocument(created.doc);
      return created;
    }
    if (FAIL_CLOSED.has(created.code)) this.reportCorrupt(doc.campaignId, created.code, created.reason);
    else if (created.code === 'fence_stale') this.opts.onFenceStale?.(doc.campaignId, created);
    return created;
  }

  has(id: string): boolean {
    return this.hosted.has(id) || this.corrupted.has(id);
  }

  /** The hosted campaigns (corrupt ones are not hosted). */
  hosts(): IterableIterator<CampaignHost> {
    return this.hosted.values();
  }

  host(id: string): CampaignHost | undefined {
    return this.corrupted.has(id) ? undefined : this.hosted.get(id);
  }

  corrupt(id: string): CorruptCampaign | undefined {
    return this.corrupted.get(id);
  }

  corruptCampaigns(): IterableIterator<CorruptCampaign> {
    return this.corrupted.values();
  }

  list(): string[] {
    return [...new Set([...this.hosted.keys(), ...this.corrupted.keys()])];
  }

  /** Every public event once it is durable in its campaign's outbox. */
  onPublicEvent(listener: (campaignId: string, events: PublicEvent[]) => void): () => void {
    this.publicListeners.add(listener);
    return () => this.publicListeners.delete(listener);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.hosted.values()].map((h) => h.stop()));
    this.fleet.stop();
  }
}
