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
import { ReplicaReads, type ReplicaReadsDeps } from './replica-reads.js';
import type { CampaignSummary } from '../api/read-model.js';
import { describeError } from '../../persistence/store-errors.js';
import type { ContextIndex } from '../authority/context-index.js';
import { DatabaseContextIndex } from './replica-contexts.js';
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
  forward?(command: RelayedCommand, timeoutMs?: number): Promise<ApiResult<unknown> | null>;
  /** Stop, first step (replicas: no rebalance, no relayed command taken in). */
  stopping?(): Promise<void>;
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
  /** Replicas: the views of the campaigns other replicas host, from the shared store (for `list`). */
  elsewhere?(): Promise<CampaignSummary[]>;
  /** Replicas: a durable save appended these public events; the other replicas hear of it (NOTIFY). */
  published?(campaignId: string, events: readonly { seq: number }[]): void;
  /** Replicas: one controller per remote context across replicas (absent: this process's memory). */
  readonly contexts?: ContextIndex;
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

/**
 * One right per campaign, shared PostgreSQL (issue 22). `reads`: what this replica shows of the
 * campaigns the others host (their public events in its feed, their views in `list`).
 */
export function replicaMode(p: Omit<ReplicaHostingDeps, 'logger'> & { logger: Logger; client: () => A2AClient | null; reads: Pick<ReplicaReadsDeps, 'readModel' | 'summaries'>; renewed?: (ms: number, answered: boolean) => void }): HostingMode & { gate: ReplicaHosting; reads: ReplicaReads } {
  const remotes = new Map<string, A2AClient>();
  const contexts = new DatabaseContextIndex(p.backend.db, p.backend.ownership, p.logger);
  // An answered beat: the database is reachable, so settles that ran out of attempts are written
  // again (no timer of its own: the beats stop when the ownership closes at release).
  p.backend.ownership.onBeat((ms, answered) => (p.renewed?.(ms, answered), answered && contexts.rewriteUnwritten()));
  // A campaign that leaves is settled afresh by whichever replica hosts it next (and here, if it comes back).
  const gate = new ReplicaHosting({ ...p, left: (id) => (remotes.delete(id), contexts.forget(id), p.left(id)) });
  // `open`: once the gate is released (relay and pool closed), nothing more is read.
  const reads = new ReplicaReads({ ...p.reads, db: p.backend.db, hosted: () => gate.hosted(), open: () => gate.events !== null, machineVersionKnown: isKnownMachineVersion, logger: p.logger });
  return {
    kind: 'replica',
    gate,
    reads,
    contexts,
    elsewhere: () => reads.elsewhere(),
    // Called once the save committed. A notice lost here is not retried: the others re-read at their next gap.
    published(id, events) {
      gate.events?.publish(id, events).catch((error: unknown) => p.logger.warn({ campaignId: id, code: 'events_notice_failed', reason: describeError(error) }, 'public events saved but not announced to the other replicas'));
    },
    remoteFor(campaignId) {
      const client = p.client();
      if (!client) return null;
      let remote = remotes.get(campaignId);
      if (remote) return remote;
      // Bound to the right held now: an effect of an earlier tenure of this campaign never passes.
      const fence = gate.fenceOf(campaignId);
      remote = fencedRemote(client, { valid: () => gate.validFor(campaignId, fence) });
      if (fence !== null) remotes.set(campaignId, remote);
      return remote;
    },
    claim: () => gate.begin(),
    // Fence 1 is the first claim ever (a campaign created here): nobody held an epoch for it. An
    // imported campaign was claimed by `import` first (fence 1), so its first host is a takeover:
    // the file-store process that controlled it may still send with its epoch.
    tookOver: (campaignId) => (p.backend.ownership.fenceFor(campaignId) ?? 0) > 1,
    async openStore(onWrite) {
      const { db, ownership } = p.backend;
      const documents = postgresCampaignDocuments({ db, fence: ownership, logger: p.logger, onWrite, machineVersionKnown: isKnownMachineVersion });
      return gate.documents(documents);
    },
    loaded: () => {
      gate.startRebalancing();
      if (gate.events) reads.attach(gate.events);
    },
    describe: () => ({ kind: 'replica', replicaId: gate.replicaId, hosted: gate.hosted().length }),
  };
}
