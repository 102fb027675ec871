/**
 * Hosting per campaign, for a replica sharing PostgreSQL with others (issue 22): the counterpart
 * of `Hosting` (one right for the whole state root). This replica holds one right per campaign
 * it hosts (persistence/postgres/campaign-ownership.ts), and:
 * - takes its fair share at start and on every rebalance: campaigns with no live owner up to
 *   ⌈campaigns / live replicas⌉, or all of them when every live replica is at its share;
 * - hands over quiescent actors above its share plus one: the actor stops (its saves finish)
 *   BEFORE the row is released, so no campaign is ever hosted twice;
 * - loses one campaign at a time (a right not renewed by its deadline, taken over, a write
 *   refused `fence_stale`): THAT actor stops for good and leaves; it is not claimed again here
 *   until it is gone; the other campaigns go on;
 * - fences every remote call of a campaign by the very right its actor runs under (`validFor`).
 * Commands for campaigns hosted elsewhere are relayed to their owner (replica-commands.ts).
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { CampaignDocuments } from '../../persistence/campaign-store.js';
import type { HostingRight } from '../../persistence/ownership.js';
import type { CampaignOwnership } from '../../persistence/postgres/campaign-ownership.js';
import type { Database } from '../../persistence/postgres/database.js';
import type { CommandRelay } from '../../persistence/postgres/command-relay.js';
import { readPlacement } from '../../persistence/postgres/placement.js';
import { describeError, failure } from '../../persistence/store-errors.js';
import type { ApiError } from '../contract/api-errors.js';
import type { ApiResult } from '../api/supervisor-api.js';
import { ReplicaCommands, unavailable, type RelayedCommand } from './replica-commands.js';
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

export type { RelayedCommand } from './replica-commands.js';

export class ReplicaHosting {
  private readonly rights = new Map<string, { right: HostingRight; unsubscribe: () => void }>();
  private readonly ownership: CampaignOwnership;
  private timer: NodeJS.Timeout | null = null;
  private rebalancing: Promise<void> | null = null;
  private commands: ReplicaCommands | null = null;
  /** Campaigns whose actor is still stopping after a loss: not claimed again until it is gone. */
  private readonly dropping = new Map<string, Promise<void>>();
  private rebalances = 0;
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
    return this.closed ? null : (this.commands?.relay ?? null);
  }

  /** Fleet-wide calls (discovery, the beat's listing) need only a live replica. */
  valid = (): Promise<boolean> => Promise.resolve(!this.closed);

  /** The fence of the right held for the campaign now (null: not held). */
  fenceOf(campaignId: string): number | null {
    return this.closed ? null : this.ownership.fenceFor(campaignId);
  }

  /**
   * One campaign's remote call: its right is still ours — the very right (`fence`) the caller's
   * actor was started under, when given, so an effect of an earlier tenure never passes.
   */
  validFor(campaignId: string, fence?: number | null): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const now = this.ownership.fenceFor(campaignId);
    if (now !== null && (fence === undefined || fence === now)) return Promise.resolve(true);
    if (now !== null) return Promise.resolve(false);
    if (this.rights.has(campaignId)) this.loseCampaign(campaignId, `the right to host campaign ${campaignId} is no longer held`);
    return Promise.resolve(false);
  }

  /** The store the system loads and writes through: only hosted campaigns load; a create claims first. */
  documents(inner: CampaignDocuments): CampaignDocuments {
    return onlyHosted(inner, { hosted: () => this.hosted(), claimForCreate: (id) => this.claimFor(id), release: (id) => this.handBack(id) });
  }

  /** Calls for campaigns hosted elsewhere are relayed (`forward`) before this is asked: what is left is ours, or nobody's. */
  refusal = (): Promise<ApiError | null> => Promise.resolve(null);

  /**
   * A command for a campaign another replica hosts: its owner's answer, relayed; null when it is
   * ours and up here, or nobody ever claimed it (answered here: not found, or a create).
   */
  async forward(command: RelayedCommand, timeoutMs?: number): Promise<ApiResult<unknown> | null> {
    const id = command.campaignId;
    // Ours, but its actor is not up (loading, adopting, handing over, stopping): say so, not "not found".
    if (await this.validFor(id)) return this.deps.system()?.has(id) ? null : unavailable(`Campaign ${id} is being loaded or handed over on replica ${this.replicaId}; try again with the same Idempotency-Key.`);
    if (!this.commands) return unavailable(`Campaign ${id}: this replica cannot relay commands now.`);
    return this.commands.forward(command, timeoutMs);
  }

  /** A write refused `fence_stale` (or a failed fence check): that campaign is lost here. */
  lose(reason: string, campaignId?: string): void {
    if (campaignId !== undefined) this.loseCampaign(campaignId, reason);
  }

  /** Claims one campaign (true), or says why not; on success its loss is watched from now on. */
  private async claimFor(campaignId: string): Promise<true | 'campaign_hosted_elsewhere' | 'ownership_unavailable' | 'invalid_campaign_id'> {
    if (this.closed) return 'ownership_unavailable';
    const right = await this.ownership.claim({ kind: 'campaign', campaignId });
    if (!right.ok) {
      if (right.code === 'ownership_unavailable') this.deps.logger.warn({ campaignId, code: right.code, reason: right.message }, 'campaign not claimed');
      return right.code === 'invalid_campaign_id' || right.code === 'ownership_unavailable' ? right.code : 'campaign_hosted_elsewhere';
    }
    this.watch(right);
    return true;
  }

  /** A right won: kept, and its loss watched from now on. */
  private watch(right: HostingRight): void {
    const id = right.scope.kind === 'campaign' ? right.scope.campaignId : '';
    this.rights.set(id, { right, unsubscribe: right.onLost((reason) => this.loseCampaign(id, reason)) });
    this.deps.changed?.('took');
  }

  /** Start: the relay listens, then this replica's share is claimed before the system loads it. */
  async begin(): Promise<void> {
    const { db } = this.deps.backend;
    const hostedHere = async (id: string) => (await this.validFor(id)) && this.deps.system()?.host(id) !== undefined;
    this.commands = await ReplicaCommands.open({ db, replicaId: this.replicaId, logger: this.deps.logger, fenceFor: (id) => this.fenceOf(id), hostedHere, runHere: this.deps.runHere, ...(this.deps.relayTimeoutMs ? { timeoutMs: this.deps.relayTimeoutMs } : {}) });
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
    if (++this.rebalances % 60 === 0) await this.commands?.prune();
    const taken = await this.claimShare();
    const system = this.deps.system();
    if (!system) return;
    for (const id of taken) {
      if (this.closed) return;
      const host = await system.adopt(id).catch(() => null);
      if (host) this.deps.adopted(host);
      // Not readable now (and not failed closed): given back for a later rebalance, never held idle.
      else if (!system.corrupt(id)) await this.handBack(id);
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
    // (Not above the share: a replica that just handed campaigns over does not take them back.)
    const want = mine <= share ? Math.max(share - mine, Math.ceil(placement.orphans.length / live)) : 0;
    const free = placement.orphans.filter((id) => !this.rights.has(id) && !this.dropping.has(id));
    if (want <= 0 || free.length === 0) return [];
    // From a random place in the list: replicas re-homing the same orphans at once mostly ask for
    // different ones; one statement claims the whole batch (sorted inside, so never a deadlock).
    const from = Math.floor(Math.random() * free.length);
    const batch = [...free.slice(from), ...free.slice(0, from)].slice(0, want);
    const won = (await this.ownership.claimMany(batch)).map((right) => (this.watch(right), right.scope.kind === 'campaign' ? right.scope.campaignId : ''));
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
      // Given back if the row is still ours after all (a no-op when someone else holds it: fence and holder must match).
      void held.right.release().catch(() => undefined);
      this.deps.logger.error({ campaignId, code: 'hosting_lost', reason }, 'this replica lost the right to host a campaign: its actor is stopped and nothing more is sent or written for it');
      this.deps.changed?.('lost');
    } else if (this.ownership.fenceFor(campaignId) !== null) return;
    const system = this.deps.system();
    if (!system?.has(campaignId) || this.dropping.has(campaignId)) return;
    system.host(campaignId)?.stopForLostRight(failure('fence_stale', `this replica lost the right to host ${campaignId}: ${reason}`));
    const gone = system
      .drop(campaignId)
      .then(() => this.deps.left(campaignId))
      .catch((error: unknown) => this.deps.logger.error({ campaignId, code: 'drop_failed', reason: describeError(error) }, 'a lost campaign could not be dropped cleanly'))
      .finally(() => this.dropping.delete(campaignId));
    this.dropping.set(campaignId, gone);
  }

  /** Every actor here must hold its right: one that lost it while being loaded leaves now. */
  private reconcile(system: CampaignSystem): void {
    for (const id of system.list()) if (this.ownership.fenceFor(id) === null) this.loseCampaign(id, `the right to host campaign ${id} was lost while it loaded`);
  }

  /** Stop, first step: no more rebalancing, no relayed command taken in (the actors stop next). */
  async stopping(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.rebalancing;
    await this.commands?.close();
    this.commands = null;
  }

  /** Stop, last step: every right released, the replica row removed, the pool closed. */
  async release(): Promise<void> {
    if (this.closed) return;
    await this.stopping();
    this.closed = true;
    await Promise.all(this.dropping.values());
    for (const held of this.rights.values()) held.unsubscribe();
    this.rights.clear();
    await this.deps.backend.close();
  }
}

