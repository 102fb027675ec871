/**
 * The two ways a supervisor holds the right to host, behind one shape the runtime uses:
 *
 * - `state-root` (the embedded default): one right for every campaign under the state root
 *   (`Hosting` over the owner lock); the file store; losing the right stops every actor.
 * - `replica` (PostgreSQL, `ARGUS_SUPERVISOR_DATABASE_URL`): one right per campaign
 *   (`ReplicaHosting`); the shared database's documents, fenced per campaign; losing a right
 *   stops that campaign's actor only; every remote call of a campaign is fenced by its own right.
 * @module
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { Logger } from '../../adapters/logger.js';
import { isKnownMachineVersion } from '../../machines/campaign.restore.js';
import type { CampaignDocuments, StoreWrite } from '../../persistence/campaign-store.js';
import { WHOLE_STATE_ROOT, type Ownership } from '../../persistence/owner-lock.js';
import { postgresCampaignDocuments } from '../../persistence/postgres/campaign-documents.js';
import { fencedRemote } from '../authority/fenced-remote.js';
import type { ApiError } from '../contract/api-errors.js';
import type { CampaignStoreOptions } from '../../persistence/campaign-store.js';
import { Hosting } from './hosting.js';
import { ReplicaHosting, type RelayedCommand, type ReplicaHostingDeps } from './replica-hosting.js';
import type { ApiResult } from '../api/supervisor-api.js';
import { StartupFailure } from './startup-failure.js';
import { openSupervisorStore } from './supervisor-wiring.js';

/** What the runtime asks of either kind of hosting. */
export interface HostingGate {
  readonly owner: boolean;
  readonly lost: boolean;
  /** Fleet-wide remote calls (discovery, the beat's listing). */
  valid(): Promise<boolean>;
  /** What a campaign call answers while it may not be served here (null: serve it). */
  refusal(campaignId?: string): Promise<ApiError | null>;
  /** Replicas: a command for a campaign another replica hosts, answered by it (null: serve it here). */
  forward?(command: RelayedCommand): Promise<ApiResult<unknown> | null>;
  /** A write was refused `fence_stale` (campaignId: which campaign's). */
  lose(reason: string, campaignId?: string): void;
  release(): Promise<void>;
}

export interface HostingMode {
  readonly kind: 'state-root' | 'replica';
  readonly gate: HostingGate;
  /** Per-campaign remote (replica mode); absent: the one fenced remote serves every campaign. */
  readonly remoteFor?: (campaignId: string) => A2AClient | null;
  /** Takes the right(s) before anything loads; a refusal throws a StartupFailure. */
  claim(): Promise<void>;
  /** The store the actor system loads and writes through, fenced by the right(s) just claimed. */
  openStore(onWrite: (write: StoreWrite) => void, fs?: CampaignStoreOptions['fs']): Promise<CampaignDocuments>;
  /** Replica mode: whether this replica's right to host the campaign was taken from an earlier holder (fence > 1). */
  readonly tookOver?: (campaignId: string) => boolean;
  /** The boot load is done (replica mode: rebalancing starts). */
  loaded(): void;
  /** For /health. */
  describe(): { kind: 'state-root' } | { kind: 'replica'; replicaId: string; hosted: number };
}

/** One right for the whole state root (the owner lock, or a host's injected ownership). */
export function stateRootMode(p: { root: string; ownership: Ownership; injected: boolean; logger: Logger; onLost(reason: string): void }): HostingMode & { gate: Hosting } {
  const gate = new Hosting(p.logger, p.onLost);
  let right: Awaited<ReturnType<Ownership['claim']>> | null = null;
  return {
    kind: 'state-root',
    gate,
    async claim() {
      right = await p.ownership.claim(WHOLE_STATE_ROOT);
      if (!right.ok) throw new StartupFailure(right.code, right.message);
      gate.hold(right);
    },
    openStore(onWrite, fs) {
      if (!right?.ok) throw new Error('the state root was not claimed');
      // soleOwner: start() holds the owner lock of the whole root (not when a host injected its own ownership).
      return openSupervisorStore({ root: p.root, logger: p.logger, onWrite, ...(fs ? { fs } : {}), soleOwner: !p.injected, right });
    },
    loaded() {},
    describe: () => ({ kind: 'state-root' }),
  };
}

/** One right per campaign, shared PostgreSQL (issue 22). */
export function replicaMode(p: Omit<ReplicaHostingDeps, 'logger'> & { logger: Logger; client: () => A2AClient | null }): HostingMode & { gate: ReplicaHosting } {
  const remotes = new Map<string, A2AClient>();
  const gate = new ReplicaHosting({ ...p, left: (id) => (remotes.delete(id), p.left(id)) });
  return {
    kind: 'replica',
    gate,
    remoteFor(campaignId) {
      const client = p.client();
      if (!client) return null;
      let remote = remotes.get(campaignId);
      if (!remote) remotes.set(campaignId, (remote = fencedRemote(client, { valid: () => gate.validFor(campaignId) })));
      return remote;
    },
    claim: () => gate.begin(),
    // Fence 1 is the first claim ever (a campaign created here, or never hosted): nobody held an epoch for it.
    tookOver: (campaignId) => (p.backend.ownership.fenceFor(campaignId) ?? 0) > 1,
    async openStore(onWrite) {
      const { db, ownership } = p.backend;
      const documents = postgresCampaignDocuments({ db, fence: ownership, logger: p.logger, onWrite, machineVersionKnown: isKnownMachineVersion });
      return gate.documents(documents);
    },
    loaded: () => gate.startRebalancing(),
    describe: () => ({ kind: 'replica', replicaId: gate.replicaId, hosted: gate.hosted().length }),
  };
}
