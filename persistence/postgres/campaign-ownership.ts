/**
 * Per-campaign `Ownership` on PostgreSQL (granularity `campaign`): one process, a *replica*,
 * holds the rights to host many campaigns, one `campaign_owner` row each, and beats a `replicas` row.
 *
 * - Claim takes a free, released or expired row and sets `fence = fence + 1` (Temporal's
 *   `range_id`); rows are never deleted, so no fence is granted twice. Two claims at once: the
 *   unique key serialises them; the second re-checks the row the first wrote, gets nothing.
 * - Renewal is ONE statement per replica per beat (heartbeat upsert + `UPDATE … FROM unnest`)
 *   matching `(campaign_id, fence, holder)`: a right whose row does not come back is lost at
 *   once. Never the id alone: Oban's renewal matched only the name and kept a deposed leader.
 * - Expiry is on the database clock (`now()`). The holder keeps a *local* monotonic deadline,
 *   `renewDeadlineMs` (< TTL) after it SENT the last statement that confirmed the right; the
 *   database set `now()+ttl` no earlier than that send, so the local deadline passes before the
 *   row can expire and be taken. Past it the right is lost (`onLost`, once) for good.
 * - `verify` answers from that local state without a round trip; the write itself re-checks in
 *   the database (`campaign-documents.ts`, `FOR SHARE` of this row).
 * @module
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { isValidCampaignId } from '../campaign-id.js';
import type { FenceVerdict, HostingRight, HostingScope, Ownership, OwnershipRefusal, RenewOutcome, WriteFence } from '../ownership.js';
import { describeError } from '../store-errors.js';
import type { Database } from './database.js';
import { BEAT_SQL, CLAIM_MANY_SQL, CLAIM_SQL, RELEASE_SQL } from './ownership-sql.js';

export interface CampaignOwnershipOptions {
  db: Database;
  replicaId?: string; // unique per process; default `<host>-<pid>-<random>`
  ttlMs?: number; // how long a claim or renewal keeps the row (database clock); default 30 s
  /** Beat period of the one renewal statement. Default TTL / 5: one failed beat still leaves two before the deadline. */
  renewEveryMs?: number;
  /** Local deadline after the last confirming send; must be < TTL. Default TTL × 2/3. */
  renewDeadlineMs?: number;
  /** False: no beat timer, the caller calls `beat()` (tests stopping renewals); the deadline watch runs either way. */
  autoBeat?: boolean;
  clock?: () => number; // monotonic milliseconds
  onError?: (message: string) => void;
}

/** Rights the statement confirmed and found lost; `answered` false: it failed (nothing changed; the deadlines decide). */
export interface BeatReport {
  renewed: number;
  lost: number;
  answered: boolean;
}

export interface CampaignOwnership extends Ownership, WriteFence {
  readonly granularity: 'campaign';
  readonly replicaId: string;
  readonly holder: string; // the name the store checks writes against (= replicaId)
  readonly ttlMs: number;
  hosted(): string[]; // campaign ids this replica hosts now
  /** `claim` for many campaigns in one statement: the rights won (the others are live elsewhere). Throws when the database fails. */
  claimMany(campaignIds: readonly string[]): Promise<HostingRight[]>;
  /** The beat: heartbeat + renewal of every live right, in one statement. */
  beat(): Promise<BeatReport>;
  /** Hears every beat statement's round trip (metrics: renew latency); returns an unsubscribe. */
  onBeat(listener: (ms: number, answered: boolean) => void): () => void;
  /** Stops the timers, releases every right, removes the replica row. */
  close(): Promise<void>;
}

interface Held {
  readonly campaignId: string;
  readonly fence: number;
  deadline: number;
  /** Beats that confirmed it (renew() asks whether its beat added one). */
  confirms: number;
  lostReason: string | null;
  released: boolean;
  readonly listeners: Set<(reason: string) => void>;
}

/** Registers the replica (its first beat) and starts the beat and the deadline watch. */
export async function openCampaignOwnership(options: CampaignOwnershipOptions): Promise<CampaignOwnership> {
  const ttlMs = options.ttlMs ?? 30_000;
  const renewEveryMs = options.renewEveryMs ?? Math.floor(ttlMs / 5);
  const renewDeadlineMs = options.renewDeadlineMs ?? Math.floor((ttlMs * 2) / 3);
  if (!(renewEveryMs > 0 && renewEveryMs < renewDeadlineMs && renewDeadlineMs < ttlMs)) {
    throw new Error(`ownership timing must satisfy 0 < renewEvery (${renewEveryMs}) < renewDeadline (${renewDeadlineMs}) < ttl (${ttlMs})`);
  }
  const ownership = new PgCampaignOwnership(options, ttlMs, renewEveryMs, renewDeadlineMs);
  const first = await ownership.beat();
  if (!first.answered) throw new Error(`replica ${ownership.replicaId} could not register in ${options.db.target}`);
  ownership.startTimers();
  return ownership;
}

class PgCampaignOwnership implements CampaignOwnership {
  readonly granularity = 'campaign' as const;
  readonly replicaId: string;
  private readonly held = new Map<string, Held>();
  private readonly clock: () => number;
  private beating: Promise<BeatReport> | null = null;
  private readonly beatListeners = new Set<(ms: number, answered: boolean) => void>();
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    private readonly options: CampaignOwnershipOptions,
    readonly ttlMs: number,
    private readonly renewEveryMs: number,
    private readonly renewDeadlineMs: number,
  ) {
    this.replicaId = options.replicaId ?? `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.clock = options.clock ?? (() => performance.now());
  }

  get holder(): string {
    return this.replicaId;
  }

  startTimers(): void {
    // The watch makes onLost fire on time even when nothing writes or asks.
    const watch = setInterval(() => this.held.forEach((h) => this.alive(h)), Math.max(20, Math.min(250, Math.floor(this.renewDeadlineMs / 4))));
    watch.unref();
    this.timers = [watch];
    if (this.options.autoBeat === false) return;
    // A beat still in flight (a slow database) is not queued behind: the next tick tries again.
    const beat = setInterval(() => void (this.beating === null && this.beat()), this.renewEveryMs);
    beat.unref();
    this.timers.push(beat);
  }

  hosted(): string[] {
    return [...this.held.values()].filter((h) => this.alive(h)).map((h) => h.campaignId);
  }

  fenceFor(campaignId: string): number | null {
    const h = this.held.get(campaignId);
    return h && this.alive(h) ? h.fence : null;
  }

  async verify(campaignId: string, fence: number): Promise<FenceVerdict> {
    const h = this.held.get(campaignId);
    if (!h || !this.alive(h)) return stale(campaignId, `replica ${this.replicaId} does not hold it (${h?.lostReason ?? 'never claimed here'})`);
    if (h.fence !== fence) return stale(campaignId, `it carries fence ${fence}, this replica holds fence ${h.fence}`);
    return { ok: true };
  }

  async claim(scope: HostingScope): Promise<HostingRight | OwnershipRefusal> {
    if (scope.kind !== 'campaign') return refusal('scope_unsupported', 'PostgreSQL ownership is per campaign; the whole state root cannot be claimed');
    const id = scope.campaignId;
    if (!isValidCampaignId(id)) return refusal('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot');
    if (this.closed) return refusal('ownership_unavailable', `replica ${this.replicaId} is closed`);
    const mine = this.held.get(id);
    if (mine && this.alive(mine)) return refusal('campaign_hosted_elsewhere', `campaign ${id} is already hosted by this replica (fence ${mine.fence})`);
    const sentAt = this.clock();
    try {
      const won = await this.options.db.pool.query<{ fence: string }>(CLAIM_SQL, [id, this.replicaId, this.ttlMs]);
      if (won.rows.length === 0) {
        const now = await this.options.db.pool.query<{ holder: string | null; fence: string }>('SELECT holder, fence::text AS fence FROM campaign_owner WHERE campaign_id = $1', [id]);
        const row = now.rows[0];
        return refusal('campaign_hosted_elsewhere', `campaign ${id} is hosted by replica ${row?.holder ?? '(released meanwhile)'} (fence ${row?.fence ?? '?'})`);
      }
      return this.hold(id, won.rows[0]!.fence, sentAt);
    } catch (error) {
      return refusal('ownership_unavailable', `campaign ${id} could not be claimed (${describeError(error)})`);
    }
  }

  async claimMany(campaignIds: readonly string[]): Promise<HostingRight[]> {
    const ids = [...new Set(campaignIds)].filter((id) => isValidCampaignId(id) && !(this.held.get(id) && this.alive(this.held.get(id)!))).sort();
    if (this.closed || ids.length === 0) return [];
    const sentAt = this.clock();
    const won = await this.options.db.pool.query<{ campaign_id: string; fence: string }>(CLAIM_MANY_SQL, [ids, this.replicaId, this.ttlMs]);
    return won.rows.map((row) => this.hold(row.campaign_id, row.fence, sentAt));
  }

  /** A right just won: its local deadline counts from the claim's send. */
  private hold(campaignId: string, fence: string, sentAt: number): HostingRight {
    const held: Held = { campaignId, fence: Number(fence), deadline: sentAt + this.renewDeadlineMs, confirms: 0, lostReason: null, released: false, listeners: new Set() };
    this.held.set(campaignId, held);
    return this.right(held);
  }

  beat(): Promise<BeatReport> {
    // One statement in flight at a time; a beat asked meanwhile runs after it (it may cover newer claims).
    const run = (this.beating ?? Promise.resolve()).then(() => this.beatOnce());
    const settled: Promise<BeatReport> = run.finally(() => {
      if (this.beating === settled) this.beating = null;
    });
    this.beating = settled;
    return settled;
  }

  private async beatOnce(): Promise<BeatReport> {
    if (this.closed) return { renewed: 0, lost: 0, answered: false };
    const batch = [...this.held.values()].filter((h) => this.alive(h));
    const sentAt = this.clock();
    let rows: { campaign_id: string; fence: string }[];
    try {
      const ids = batch.map((h) => h.campaignId);
      const fences = batch.map((h) => String(h.fence));
      rows = (await this.options.db.pool.query<{ campaign_id: string; fence: string }>(BEAT_SQL, [this.replicaId, this.ttlMs, ids, fences])).rows;
    } catch (error) {
      this.options.onError?.(`ownership renewal of replica ${this.replicaId} failed (${describeError(error)}); rights end at their deadlines unless a later beat answers`);
      for (const listener of this.beatListeners) listener(this.clock() - sentAt, false);
      return { renewed: 0, lost: 0, answered: false };
    }
    for (const listener of this.beatListeners) listener(this.clock() - sentAt, true);
    const confirmed = new Set(rows.map((r) => `${r.campaign_id}\u0000${r.fence}`));
    let renewed = 0;
    let lost = 0;
    for (const h of batch) {
      if (h.released || h.lostReason !== null) continue;
      if (!confirmed.has(`${h.campaignId}\u0000${h.fence}`)) {
        this.markLost(h, `renewal found campaign ${h.campaignId} no longer held by replica ${this.replicaId} at fence ${h.fence} (taken over, expired or changed)`);
        lost++;
      } else if (this.alive(h)) {
        h.deadline = Math.max(h.deadline, sentAt + this.renewDeadlineMs);
        h.confirms++;
        renewed++;
      }
    }
    return { renewed, lost, answered: true };
  }

  onBeat(listener: (ms: number, answered: boolean) => void): () => void {
    return this.beatListeners.add(listener), () => this.beatListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    for (const timer of this.timers) clearInterval(timer);
    await this.beating?.catch(() => undefined);
    this.closed = true;
    await Promise.all([...this.held.values()].map((h) => this.release(h)));
    await this.options.db.pool.query('DELETE FROM replicas WHERE replica_id = $1', [this.replicaId]).catch(() => undefined);
  }

  /** Alive: not released, not lost, local deadline not passed (passing it loses the right now). */
  private alive(h: Held): boolean {
    if (h.released || h.lostReason !== null) return false;
    if (this.clock() >= h.deadline) {
      this.markLost(h, `the right to host campaign ${h.campaignId} (fence ${h.fence}) was not renewed by its deadline`);
      return false;
    }
    return true;
  }

  private markLost(h: Held, reason: string): void {
    if (h.released || h.lostReason !== null) return;
    h.lostReason = reason;
    if (this.held.get(h.campaignId) === h) this.held.delete(h.campaignId);
    // A listener that throws must not break the beat or the deadline watch (a timer's rejection would end the process).
    for (const listener of h.listeners) {
      try {
        listener(reason);
      } catch (error) {
        this.options.onError?.(`a listener of the loss of campaign ${h.campaignId} failed (${describeError(error)})`);
      }
    }
  }

  private async release(h: Held): Promise<void> {
    if (h.released) return;
    const wasAlive = h.lostReason === null;
    h.released = true;
    if (this.held.get(h.campaignId) === h) this.held.delete(h.campaignId);
    // A lost right's row may be someone else's now; the (fence, holder) match leaves it alone anyway.
    if (wasAlive) await this.options.db.pool.query(RELEASE_SQL, [h.campaignId, String(h.fence), this.replicaId]).catch(() => undefined);
  }

  private right(h: Held): HostingRight {
    const scope: HostingScope = Object.freeze({ kind: 'campaign', campaignId: h.campaignId });
    return {
      ok: true,
      scope,
      fence: h.fence,
      get lost() {
        return h.released || h.lostReason !== null;
      },
      hosts: (id) => id === h.campaignId && this.alive(h),
      fenceFor: (id) => (id === h.campaignId && this.alive(h) ? h.fence : null),
      verify: async (id, fence) => (id === h.campaignId && this.held.get(id) === h ? this.verify(id, fence) : stale(id, `this right covers campaign ${h.campaignId} at fence ${h.fence} only`)),
      renew: async (): Promise<RenewOutcome> => {
        if (!this.alive(h)) return { ok: false, code: 'hosting_lost', reason: h.lostReason ?? `campaign ${h.campaignId} was released` };
        const before = h.confirms;
        const report = await this.beat();
        if (!this.alive(h)) return { ok: false, code: 'hosting_lost', reason: h.lostReason ?? `campaign ${h.campaignId} was released` };
        if (!report.answered || h.confirms === before) return { ok: false, code: 'renew_unanswered', reason: `renewal of campaign ${h.campaignId} did not answer; the right ends at its deadline` };
        return { ok: true };
      },
      onLost: (listener) => {
        h.listeners.add(listener);
        return () => h.listeners.delete(listener);
      },
      release: () => this.release(h),
    };
  }
}

const stale = (campaignId: string, why: string): FenceVerdict => ({ ok: false, code: 'fence_stale', reason: `write to ${campaignId} refused: ${why}` });

const refusal = (code: OwnershipRefusal['code'], message: string): OwnershipRefusal => ({ ok: false, code, message });
