/**
 * The actor system: one long-lived campaign actor per document, started at boot (an unknown
 * machine version or a corrupt document is reported, that actor is not started, the others
 * run), with the seven effects provided once. A plugin host lists campaigns, gets a typed
 * handle, subscribes to public events, and may pass `inspect` through to every actor.
 * @module
 */
import { createActor, fromCallback, type InspectionEvent } from 'xstate';
import { campaignMachine, type CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEmitted, HostEnvironment, OperatorEvent } from '../../machines/campaign.types.js';
import type { CampaignDocument, PublicEvent } from '../../persistence/campaign-document.js';
import type { CampaignStore, LoadResult, WriteResult } from '../../persistence/campaign-store.js';
import type { StoreFailure } from '../../persistence/store-errors.js';
import { CampaignHost, MachineRestoreError, type RecordOutcome, type SendOutcome } from './campaign-host.js';
import { CampaignLedger } from './campaign-ledger.js';
import type { SaveResult } from './campaign-save.js';
import { createCampaignEffects, type EffectDeps } from './effects.js';
import { crashPoint } from '../faults/fault-points.js';
import type { CampaignSnapshot } from './facts.js';

/** What a plugin host holds for one campaign. */
export interface CampaignHandle {
  readonly id: string;
  getSnapshot(): CampaignSnapshot;
  /** Called with every new snapshot; returns the unsubscribe. */
  subscribe(listener: (snapshot: CampaignSnapshot) => void): () => void;
  /** Sends one operator event; resolves with what it caused once quiescent and saved. */
  send(event: OperatorEvent, record?: RecordOutcome): Promise<SendOutcome>;
}

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
  store: CampaignStore;
  /** The effects' dependencies but those the system routes to each campaign's host. */
  effects: Omit<EffectDeps, 'journal' | 'publishedKeys' | 'objectiveOf' | 'decisionConsumed'>;
  now(): Date;
  /** The process's facts of now, which every actor holds (see HostEnvironment). */
  environment(): HostEnvironment;
  inspect?: ((event: InspectionEvent) => void) | undefined;
}

export type CampaignSystem = ReturnType<typeof createCampaignSystem>;

const FAIL_CLOSED = new Set(['document_corrupt', 'document_version_unknown', 'machine_version_unknown']);

export function createCampaignSystem(opts: CampaignSystemOptions) {
  const hosts = new Map<string, CampaignHost>();
  const corrupt = new Map<string, CorruptCampaign>();
  const publicListeners = new Set<(campaignId: string, events: PublicEvent[]) => void>();
  // The durable port of every campaign: the effects write and read the document through it,
  // never through the host that invoked them.
  const ledger = new CampaignLedger(opts.store, opts.now, {
    onWriteFailed(id, failure) {
      const host = hosts.get(id);
      if (host) hostDeps.onWriteFailed(host, failure);
    },
    onJournaled(id) {
      const host = hosts.get(id);
      if (host) hostDeps.onViewChanged(host);
    },
  });
  const hosted = (id: string): string => {
    if (!hosts.has(id) || corrupt.has(id)) throw new Error(`campaign ${id} is not hosted`);
    return id;
  };
  const logic: CampaignMachine = campaignMachine.provide({
    actors: createCampaignEffects({
      ...opts.effects,
      journal: (id, intent) => ledger.journal(hosted(id), intent),
      publishedKeys: (id) => ledger.publishedKeys(hosted(id)),
      // What the decision effects read of the document: the facts the ledger keeps of it.
      objectiveOf: (id) => ledger.facts(id)?.objective ?? '',
      decisionConsumed: (id, decisionId) => ledger.facts(id)?.consumedDecisions.includes(decisionId) ?? false,
    }),
  });
  const reportCorrupt = (id: string, code: string, reason: string): void => {
    const entry = { id, code, reason };
    corrupt.set(id, entry);
    opts.onCorrupt?.(entry);
  };
  // The root of the one actor system every campaign actor shares (see CampaignHostDeps.fleet).
  const fleet = createActor(fromCallback(() => {}), opts.inspect ? { inspect: opts.inspect } : {}).start();
  const hostDeps = {
    logic,
    ledger,
    now: opts.now,
    environment: opts.environment,
    fleet,
    onSaved(host: CampaignHost, saved: SaveResult) {
      opts.onSaved?.(host, saved);
      if (saved.appended.length) for (const listener of publicListeners) listener(host.id, saved.appended);
    },
    onEmitted: (host: CampaignHost, event: CampaignEmitted) => opts.onEmitted?.(host, event),
    onViewChanged: (host: CampaignHost) => opts.onViewChanged?.(host),
    onWriteFailed(host: CampaignHost, failure: StoreFailure<string>) {
      if (FAIL_CLOSED.has(failure.code)) {
        host.corrupt = { code: failure.code, reason: failure.reason };
        reportCorrupt(host.id, failure.code, failure.reason);
      } else opts.onStorageFailed?.(host, failure);
      if (failure.code === 'fence_stale') opts.onFenceStale?.(host.id, failure);
    },
  };

  /** Starts the actor of one document; a snapshot this build cannot restore is reported instead. */
  function host(doc: CampaignDocument): CampaignHost | null {
    try {
      const h = new CampaignHost(doc, hostDeps);
      hosts.set(doc.campaignId, h);
      h.start();
      return h;
    } catch (error) {
      if (!(error instanceof MachineRestoreError)) throw error;
      hosts.delete(doc.campaignId);
      ledger.forget(doc.campaignId);
      reportCorrupt(doc.campaignId, error.code, error.message);
      return null;
    }
  }

  return {
    logic,
    /** The campaigns' durable port (the effects' journal goes through it). */
    ledger,
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
        if (!result.ok) return reportCorrupt(result.id, result.code, result.reason);
        opts.onLoaded?.(result.doc);
        const hosted = host(result.doc);
        if (hosted) onHosted?.(hosted);
      };
      const loaded = await opts.store.loadAll({ concurrency, onResult: arrive });
      // A store that does not stream its results (`onResult` is optional) is hosted here.
      for (const result of loaded) arrive(result);
      const arrived = new Map(hosts);
      hosts.clear();
      for (const result of loaded) {
        const hosted = arrived.get(result.id);
        if (hosted) hosts.set(result.id, hosted);
      }
      await Promise.all([...hosts.values()].map((h) => h.whenWritten()));
    },
    /** Creates the document (with its Idempotency-Key record, if any: ONE durable write), then hosts it. */
    async create(doc: CampaignDocument): Promise<WriteResult> {
      const created = await opts.store.create(doc);
      // The chaos/regression kill: the create is durable, its answer not yet sent.
      if (created.ok) crashPoint('after_create_write');
      if (created.ok) {
        host(created.doc);
        return created;
      }
      if (FAIL_CLOSED.has(created.code)) reportCorrupt(doc.campaignId, created.code, created.reason);
      else if (created.code === 'fence_stale') opts.onFenceStale?.(doc.campaignId, created);
      return created;
    },
    has: (id: string): boolean => hosts.has(id) || corrupt.has(id),
    /** The hosted campaigns (corrupt ones are not hosted). */
    hosts: (): IterableIterator<CampaignHost> => hosts.values(),
    host: (id: string): CampaignHost | undefined => (corrupt.has(id) ? undefined : hosts.get(id)),
    corrupt: (id: string): CorruptCampaign | undefined => corrupt.get(id),
    corruptCampaigns: (): IterableIterator<CorruptCampaign> => corrupt.values(),
    list(): string[] {
      return [...new Set([...hosts.keys(), ...corrupt.keys()])];
    },
    get(id: string): CampaignHandle | null {
      const h = hosts.get(id);
      if (!h || corrupt.has(id)) return null;
      return {
        id,
        getSnapshot: () => h.getSnapshot(),
        subscribe: (listener) => h.subscribe(listener),
        send: (event, record) => h.send(event, record),
      };
    },
    /** Every public event once it is durable in its campaign's outbox. */
    onPublicEvent(listener: (campaignId: string, events: PublicEvent[]) => void): () => void {
      publicListeners.add(listener);
      return () => publicListeners.delete(listener);
    },
    async stop(): Promise<void> {
      await Promise.all([...hosts.values()].map((h) => h.stop()));
      fleet.stop();
    },
  };
}
