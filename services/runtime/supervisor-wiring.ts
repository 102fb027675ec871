/**
 * Two pieces of the supervisor's wiring that need only a few of its parts: the request gate
 * (one mutation in flight per campaign, Idempotency-Key answers kept in each campaign's own
 * document) and the campaign store it opens under the hosting right.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import { isKnownMachineVersion } from '../../machines/campaign.restore.js';
import { openCampaignStore, type CampaignDocuments, type CampaignStore, type CampaignStoreOptions, type StoreWrite } from '../../persistence/campaign-store.js';
import { rememberAnswer } from '../../persistence/idempotency.js';
import type { HostingRight } from '../../persistence/owner-lock.js';
import { ApiFailure } from '../contract/api-errors.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import { throwStoreFailure } from '../api/store-answers.js';
import { createRequestGate, type RequestGate } from '../api/request-gate.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';

type StoreFailure = Parameters<typeof throwStoreFailure>[2];

export interface GateWiring {
  system(): CampaignSystem | null;
  store(): CampaignDocuments;
  unusable(campaignId: string, failure: StoreFailure): never;
  writesTo(campaignId: string): number;
  /** The campaign's view now (every kept answer is rendered with it). */
  liveView(campaignId: string): unknown;
  now(): Date;
  logger: Logger;
}

/** The gate reads and keeps its records in the campaign document, through the campaign's ledger (its write queue). */
export function supervisorGate(w: GateWiring): RequestGate {
  const gate: RequestGate = createRequestGate({
    records: async (id) => {
      if (!w.system()?.has(id)) return [];
      const loaded = await w.store().load(id);
      if (!loaded.ok) w.unusable(id, loaded);
      return loaded.doc.idempotency;
    },
    remember: async (id, record) => {
      const kept = await w.system()?.host(id)?.write((doc) =>
        doc.idempotency.some((r) => r.keyDigest === record.keyDigest) ? null : { ...doc, idempotency: rememberAnswer(doc.idempotency, record) },
      );
      if (kept && !kept.ok) w.unusable(id, kept);
      if (kept?.ok) gate.indexKeys(id, kept.doc.idempotency);
    },
    writesTo: (id) => w.writesTo(id),
    liveView: (id) => w.liveView(id),
    now: w.now,
    onRememberFailed: (campaignId, error) => w.logger.error({ campaignId, err: error instanceof ApiFailure ? error.error.code : String(error) }, 'idempotency answer not kept'),
  });
  return gate;
}

export interface StoreWiring {
  root: string;
  logger: Logger;
  /** Each durable document write (the metrics, and the gate's "was anything written meanwhile"). */
  onWrite(write: StoreWrite): void;
  fs?: CampaignStoreOptions['fs'];
  /** start() holds the owner lock of the whole root (false when a host injected its own ownership). */
  soleOwner: boolean;
  right: HostingRight;
}

export function openSupervisorStore(w: StoreWiring): Promise<CampaignStore> {
  return openCampaignStore({
    root: w.root,
    logger: w.logger,
    onWrite: w.onWrite,
    ...(w.fs ? { fs: w.fs } : {}),
    // The chart's own check: a snapshot this build cannot restore fails closed (reported).
    machineVersionKnown: isKnownMachineVersion,
    // start() holds the state root's owner lock before it opens the store (unless a host
    // injected its own ownership, which may not cover the whole root).
    soleOwner: w.soleOwner,
    // Every document write carries the right's fence and is refused once it is stale.
    fence: w.right,
  });
}

/** Counts a durable write: the metric, and per campaign for the gate. */
export function countingWrites(metrics: SupervisorMetrics, writesByCampaign: Map<string, number>): (write: StoreWrite) => void {
  return (write) => {
    metrics.storeWrites.inc();
    writesByCampaign.set(write.campaignId, (writesByCampaign.get(write.campaignId) ?? 0) + 1);
  };
}
