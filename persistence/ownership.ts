/**
 * The right to host campaigns. Exactly one process hosts a campaign's actor; whoever wants to
 * host claims the right here first, keeps it while it runs, and gives it back when it stops.
 * Every grant carries a fence: a number that only goes up for its scope, checked by the store
 * on every write, so a deposed holder that keeps running (paused, partitioned, overwritten)
 * cannot change a document after someone else took over (Kleppmann's fencing token; etcd's
 * revision check in `Txn`).
 *
 * Two granularities, one contract:
 * - `state-root` (the embedded default, `owner-lock.ts`): one claim covers every campaign
 *   under the root; `hosts(id)` is true for all of them.
 * - `campaign` (the scale-out step): one claim per campaign, so replicas split the campaigns
 *   and a dead replica's campaigns are re-homed one by one within a lease TTL.
 * Nothing in `machines/` depends on which one is used.
 *
 * How PostgreSQL implements it (`postgres/campaign-ownership.ts`; one row per campaign:
 * campaign_id, holder, fence, expires_at, and one row per replica with its heartbeat):
 * - claim:   `INSERT … ON CONFLICT (campaign_id) DO UPDATE SET holder=$me, fence=t.fence+1,
 *            expires_at=now()+$ttl WHERE t.expires_at <= now() OR t.holder IS NULL RETURNING fence`
 *            (no row back → refused: hosted elsewhere).
 * - renew:   one statement per replica per beat over `unnest($ids, $fences)`, matching
 *            `(campaign_id, fence, holder)`, never the id alone (Oban's two-leader bug); a right
 *            whose row does not come back is lost.
 * - release: `UPDATE … SET holder=NULL WHERE campaign_id=$1 AND fence=$n AND holder=$me` (the fence is kept).
 * - writes:  in the write's own transaction, `SELECT … FROM campaign_owner … FOR SHARE` and check
 *            (fence, holder, expiry) before the document changes; a mismatch → `fence_stale`.
 *            A plain join of the ownership row is NOT enough: under READ COMMITTED it lets a stale
 *            write through while a takeover is still uncommitted (research/scale_out.md §1.7).
 * The holder renews well inside the TTL (client-go: lease 15 s, renew deadline 10 s) and treats
 * a renew that has not answered by the deadline as lost: it stops writing, never re-claims
 * silently.
 * @module
 */

/** What one claim covers. */
export type HostingScope = { readonly kind: 'state-root' } | { readonly kind: 'campaign'; readonly campaignId: string };

export const WHOLE_STATE_ROOT: HostingScope = Object.freeze({ kind: 'state-root' });

export interface Ownership {
  /** Which scope `claim` accepts: the embedded default only grants the whole root. */
  readonly granularity: HostingScope['kind'];
  /**
   * Takes the right to host `scope`, or says who has it. Never waits for a live holder to go;
   * a dead holder's right is taken over (with a greater fence).
   */
  claim(scope: HostingScope): Promise<HostingRight | OwnershipRefusal>;
}

/**
 * What the store checks on every write. A `HostingRight` is one; a host holding many
 * per-campaign rights passes an object that answers from the right for each campaign.
 */
export interface WriteFence {
  /** The fence a write to this campaign carries, or null when this process does not host it. */
  fenceFor(campaignId: string): number | null;
  /**
   * Called by the store at write time (under the campaign's write lock, after the new bytes
   * are durable and before they replace the old). `ok: false` refuses the write; nothing changes.
   * Cheap: writes happen only on material changes.
   */
  verify(campaignId: string, fence: number): Promise<FenceVerdict>;
}

export type FenceVerdict = { readonly ok: true } | { readonly ok: false; readonly code: 'fence_stale'; readonly reason: string };

export interface HostingRight extends WriteFence {
  readonly ok: true;
  readonly scope: HostingScope;
  /**
   * Strictly greater than every fence granted before for this scope: a second claim after a
   * release, and a takeover after a dead holder, both get a greater one.
   */
  readonly fence: number;
  /** True once the right is gone (taken over, expired, released); the holder must stop writing. */
  readonly lost: boolean;
  /** Whether this right covers the campaign (always true for `state-root`). */
  hosts(campaignId: string): boolean;
  /** Confirms the right is still ours and extends it. A lost right is never renewed back. */
  renew(): Promise<RenewOutcome>;
  /** Called once, when the right is found lost (by renew, a periodic check or a write). Returns an unsubscribe. */
  onLost(listener: (reason: string) => void): () => void;
  /** Gives the right back (idempotent). The fence is kept, so the next claim gets a greater one. */
  release(): Promise<void>;
}

export type RenewOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'hosting_lost'; readonly reason: string }
  /** The store did not answer: not confirmed, not lost either; the right ends at its local deadline unless a later renewal answers. */
  | { readonly ok: false; readonly code: 'renew_unanswered'; readonly reason: string };

export interface OwnershipRefusal {
  readonly ok: false;
  /**
   * Stable codes. `state_root_locked`: a live process owns it; `state_root_unusable`: the folder
   * cannot hold an owner record; `scope_unsupported`: this implementation does not grant that
   * scope. Per campaign (PostgreSQL): `campaign_hosted_elsewhere`: another replica (or this
   * one) holds a live right; `invalid_campaign_id`; `ownership_unavailable`: the database did not answer.
   */
  readonly code: 'state_root_locked' | 'state_root_unusable' | 'scope_unsupported' | 'campaign_hosted_elsewhere' | 'invalid_campaign_id' | 'ownership_unavailable';
  /** One sentence, e.g. `/var/lib/argus is owned by pid 4242`. */
  readonly message: string;
  readonly pid?: number;
}
