/**
 * Hosting per campaign, for a replica sharing PostgreSQL with others (issue 22): the counterpart
 * of `Hosting` (one right for the whole state root). This replica holds one right per campaign
 * it hosts (persistence/postgres/campaign-ownership.ts), and:
 *
 * - takes its fair share at start and on every rebalance: campaigns with no live owner (new,
 *   released, or whose replica stopped renewing) up to ⌈campaigns / live replicas⌉, or all of
 *   them when every live replica is already at its share (an orphan is never left waiting);
 * - hands over what it holds above its share plus one, only actors that are quiescent (no effect
 *   in flight): the actor stops (its saves finish) BEFORE the row is released, so no campaign
 *   is ever hosted twice;
 * - loses one campaign at a time: a right not renewed by its deadline, taken over, or a write
 *   refused `fence_stale` stops THAT actor for good (no rewind, no write, no remote call) and
 *   removes it; the other campaigns go on;
 * - fences every remote call of a campaign by that campaign's right (`validFor`), so an effect
 *   still running after its campaign moved is refused locally (`not_owner`, nothing sent).
 *
 * A command for a campaign another replica hosts is relayed to that replica through PostgreSQL
 * (persistence/postgres/command-relay.ts: a command row + NOTIFY, at most once) and answered
 * with the owner's answer, or 503 `owner_unavailable` when no owner answers in time.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { CampaignDocuments } from '../../persistence/campaign-store.js';
import type { HostingRight } from '../../persistence/ownership.js';
import type { CampaignOwnership } from '../../persistence/postgres/campaign-ownership.js';
import type { Database } from '../../persistence/postgres/database.js';
import { openCommandRelay, type CommandRelay } from '../../persistence/postgres/command-relay.js';
import { ownerOf, readPlacement } from '../../persistence/postgres/placement.js';
import { describeError, failure } from '../../persistence/store-errors.js';
import { apiError, type ApiError } from '../contract/api-errors.js';
import type { ApiResult } from '../api/supervisor-api.js';
import type { CampaignHost } from '../campaign/campaign-host.js';
import type { CampaignSystem } from '../campaign/campaign-system.js';
import { isQuiescent } from '../../machines/campaign.machine.js';
import { onlyHosted } from './replica-documents.js';

export interface ReplicaBackend {
  readonly db: Database;
  readonly ownership: CampaignOwnership;
  close(): Promise<void>;
}

export interface ReplicaHostingDeps {
  backend: ReplicaBackend;
  logger: Logger;
  system(): CampaignSystem | null;
  /** A campaign this replica took after boot is up: its first read, its view. */
  adopted(host: CampaignHost): void;
  /** A campaign is no longer hosted here (lost or handed over): its view goes. */
  left(campaignId: string): void;
  /** Ownership changes, for the metrics: `took`, `lost`, `handed_over`. */
  changed?(kind: 'took' | 'lost' | 'handed_over'): void;
  /** Default: a sixth of the ownership TTL (so an orphan waits little past its expiry). */
  rebalanceEveryMs?: number;
  /** Runs a command relayed from another replica here, as if it had arrived here (never relayed again). */
  runHere(command: RelayedCommand): Promise<ApiResult<unknown>>;
  /** How long a relayed command waits for its owner's answer (default 30 s). */
  relayTimeoutMs?: number;
}

/** A request for a campaign hosted elsewhere, as it travels to the owner (already parsed, no secret in it). */
export interface RelayedCommand {
  door: 'campaigns' | 'campaign_action';
  campaignId: string;
  body: unknown;
  idempotencyKey?: string;
}

export class ReplicaHosting {
  private readonly rights = new Map<string, { right: HostingRight; unsubscribe: () => void }>();
  private readonly ownership: CampaignOwnership;
  private timer: NodeJS.Timeout | null = null;
  private rebalancing: Promise<void> | null = null;
  private relay: CommandRelay<RelayedCommand, ApiResult<unknown>> | null = null;
  private closed = false;

  constructor(private readonly deps: ReplicaHostingDeps) {
    this.ownership = deps.backend.ownership;
  }

  get replicaId(): string {
    return this.ownership.replicaId;
  }

  /** The replica is registered and beating (per-campaign losses do not depose it). */
  get owner(): boolean {
    return !this.closed;
  }

  readonly lost = false;

  /** Campaign ids hosted here now. */
  hosted(): string[] {
    return this.ownership.hosted();
  }

  /** The relay (public-event notices ride on it); null before begin() and after release(). */
  get events(): CommandRelay<RelayedCommand, ApiResult<unknown>> | null {
    return this.closed ? null : this.relay;
  }

  /** Fleet-wide calls (discovery, the beat's listing) need only a live replica. */
  valid = (): Promise<boolean> => Promise.resolve(!this.closed);

  /** One campaign's remote call: its right is still ours (a right past its deadline is lost now). */
  validFor(campaignId: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.ownership.fenceFor(campaignId) !== null) return Promise.resolve(true);
    if (this.rights.has(campaignId)) this.loseCampaign(campaignId, `the right to host campaign ${campaignId} is no longer held`);
    return Promise.resolve(false);
  }

  /** The store the system loads and writes through: only hosted campaigns load; a create claims first. */
  documents(inner: CampaignDocuments): CampaignDocuments {
    return onlyHosted(inner, { hosted: () => this.hosted(), claim: (id) => this.claim(id), release: (id) => this.handBack(id) });
  }

  /** Calls for campaigns hosted elsewhere are relayed (`forward`) before this is asked: what is left is ours, or nobody's. */
  refusal = (): Promise<ApiError | null> => Promise.resolve(null);

  /**
   * A command for a campaign another replica hosts: its owner's answer, through the relay; null
   * when the campaign is ours or has never been claimed by anyone (answered here: not found, or a create).
   */
  async forward(command: RelayedCommand): Promise<ApiResult<unknown> | null> {
    const id = command.campaignId;
    if (await this.validFor(id)) return null;
    let owner: Awaited<ReturnType<typeof ownerOf>>;
    try {
      owner = await ownerOf(this.deps.backend.db, id);
    } catch (error) {
      return unavailable(`Who hosts campaign ${id} could not be read from the database (${describeError(error)}); try again with the same Idempotency-Key.`);
    }
    if (owner === null) return null;
    if (!owner.live) return unavailable(`Campaign ${id} has no live owner right now (it is being re-homed); try again with the same Idempotency-Key.`);
    if (!this.relay) return unavailable(`Campaign ${id} is hosted by replica ${owner.holder}, and this replica cannot relay to it now.`);
    const sent = await this.relay.send(id, command, { timeoutMs: this.deps.relayTimeoutMs ?? 30_000 });
    return sent.ok ? sent.answer : unavailable(`Campaign ${id}: ${sent.message}`);
  }

  /** A write refused `fence_stale` (or a failed fence check): that campaign is lost here. */
  lose(reason: string, campaignId?: string): void {
    if (campaignId !== undefined) this.loseCampaign(campaignId, reason);
  }

  /** Claims one campaign; on success its loss is watched from now on. */
  async claim(campaignId: string): Promise<boolean> {
    if (this.closed) return false;
    const right = await this.ownership.claim({ kind: 'campaign', campaignId });
    if (!right.ok) {
      if (right.code === 'ownership_unavailable') this.deps.logger.warn({ campaignId, code: right.code, reason: right.message }, 'campaign not claimed');
      return false;
    }
    const unsubscribe = right.onLost((reason) => this.loseCampaign(campaignId, reason));
    this.rights.set(campaignId, { right, unsubscribe });
    this.deps.changed?.('took');
    return true;
  }

  /** Start: the relay listens, then this replica's share is claimed before the system loads it. */
  async begin(): Promise<void> {
    const { db } = this.deps.backend;
    this.relay = await openCommandRelay<RelayedCommand, ApiResult<unknown>>({
      db,
      replicaId: this.replicaId,
      fenceFor: (id) => this.ownership.fenceFor(id),
      // Addressed to us, and no longer ours by the time it runs: the sender hears so, nothing runs.
      onCommand: async (id, command) => ((await this.validFor(id)) && command.campaignId === id ? this.deps.runHere(command) : unavailable(`Campaign ${id} moved off replica ${this.replicaId}; try again with the same Idempotency-Key.`)),
      onError: (message) => this.deps.logger.warn({ code: 'relay_listener', reason: message }, 'command relay listener trouble'),
    });
    await this.claimShare();
    // Renewed now, not a beat period later: the boot load that follows may be long.
    await this.ownership.beat();
  }

  /** After the boot load: actors without a right leave, then rebalance on a timer (never two at once). */
  startRebalancing(): void {
    const system = this.deps.system();
    if (system) this.reconcile(system);
    const every = this.deps.rebalanceEveryMs ?? Math.max(100, Math.floor(this.ownership.ttlMs / 6));
    this.timer = setInterval(() => void this.rebalance(), every);
    this.timer.unref();
  }

  /** Takes orphans up to the share (adopting each), hands over what is above it. Logs, never throws. */
  rebalance(): Promise<void> {
    this.rebalancing ??= this.rebalanceOnce()
      .catch((error: unknown) => this.deps.logger.warn({ code: 'rebalance_failed', reason: describeError(error) }, 'replica rebalance failed; the next one tries again'))
      .finally(() => {
        this.rebalancing = null;
      });
    return this.rebalancing;
  }

  private async rebalanceOnce(): Promise<void> {
    const taken = await this.claimShare();
    const system = this.deps.system();
    if (!system) return;
    for (const id of taken) {
      if (this.closed) return;
      const host = await system.adopt(id);
      if (host) this.deps.adopted(host);
    }
    this.reconcile(system);
    if (taken.length === 0) await this.handOverExcess(system);
  }

  /** Claims orphans up to this replica's share; returns the campaigns won. */
  private async claimShare(): Promise<string[]> {
    if (this.closed) return [];
    const placement = await readPlacement(this.deps.backend.db);
    const live = Math.max(1, placement.liveReplicas);
    const share = Math.ceil(placement.campaigns / live);
    const mine = this.hosted().length;
    // Everyone at its share and orphans left (a dead replica still counted as live): take them anyway.
    const want = Math.max(share - mine, Math.ceil(placement.orphans.length / live));
    const won: string[] = [];
    // Shuffled, so replicas re-homing the same orphans at once mostly ask for different ones.
    for (const id of shuffle(placement.orphans)) {
      if (won.length >= want || this.closed) break;
      if (this.rights.has(id)) continue;
      if (await this.claim(id)) won.push(id);
    }
    return won;
  }

  /** Above share + 1: quiescent actors stop, then their rows are released for the others to take. */
  private async handOverExcess(system: CampaignSystem): Promise<void> {
    const placement = await readPlacement(this.deps.backend.db);
    const share = Math.ceil(placement.campaigns / Math.max(1, placement.liveReplicas));
    let excess = this.hosted().length - (share + 1);
    for (const id of this.hosted()) {
      if (excess <= 0 || this.closed) return;
      const host = system.host(id);
      if (!host || !isQuiescent(host.getSnapshot())) continue;
      await system.drop(id);
      this.deps.left(id);
      await this.handBack(id);
      this.deps.changed?.('handed_over');
      excess--;
    }
  }

  /** Gives one right back (its actor already stopped). */
  private async handBack(campaignId: string): Promise<void> {
    const held = this.rights.get(campaignId);
    if (!held) return;
    this.rights.delete(campaignId);
    held.unsubscribe();
    await held.right.release();
  }

  /**
   * The right is gone: the actor stops where it is, for good, and leaves this replica. Also for
   * an actor found without a right (lost while the boot load or an adopt was still reading it).
   */
  private loseCampaign(campaignId: string, reason: string): void {
    const held = this.rights.get(campaignId);
    if (held) {
      this.rights.delete(campaignId);
      held.unsubscribe();
      this.deps.logger.error({ campaignId, code: 'hosting_lost', reason }, 'this replica lost the right to host a campaign: its actor is stopped and nothing more is sent or written for it');
      this.deps.changed?.('lost');
    } else if (this.ownership.fenceFor(campaignId) !== null) return;
    const system = this.deps.system();
    if (!system?.has(campaignId)) return;
    system.host(campaignId)?.stopForLostRight(failure('fence_stale', `this replica lost the right to host ${campaignId}: ${reason}`));
    void system.drop(campaignId).then(() => this.deps.left(campaignId));
  }

  /** Every actor here must hold its right: one that lost it while being loaded leaves now. */
  private reconcile(system: CampaignSystem): void {
    for (const id of system.list()) if (this.ownership.fenceFor(id) === null) this.loseCampaign(id, `the right to host campaign ${id} was lost while it loaded`);
  }

  /** Stop: no more rebalancing; every right released, the replica row removed, the pool closed. */
  async release(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.rebalancing;
    for (const held of this.rights.values()) held.unsubscribe();
    this.rights.clear();
    await this.relay?.close();
    await this.deps.backend.close();
  }
}

const unavailable = (message: string): ApiResult<never> => ({ ok: false, error: apiError('owner_unavailable', message) });

function shuffle<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
