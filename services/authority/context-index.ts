/**
 * One controller per remote context among the campaigns: a fact no single campaign owns, so one
 * owner answers it. The claim effect asks `hold` once it knows the context it is about to lease
 * (before anything is sent), and the views tell `settle` where each campaign stands as its chart
 * moves (controlling a context, or nothing). The embedded implementation is this process's memory,
 * rebuilt from the restored snapshots at load ("one process owns the state root"); replicas
 * implement the same two calls on PostgreSQL (one row per context, taken by a unique insert).
 * @module
 */
import type { SnapshotFrom } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import { describeStates } from '../../machines/campaign.projection.js';

type CampaignSnapshot = SnapshotFrom<CampaignMachine>;

export interface ContextIndex {
  /**
   * Takes `contextId` for `campaignId` unless another campaign holds it.
   * @returns the campaign that holds it, or null when `campaignId` holds it now (a promise when
   *   the index is shared: replicas, services/runtime/replica-contexts.ts; it rejects when it cannot tell).
   */
  hold(contextId: string, campaignId: string): string | null | Promise<string | null>;
  /** Where `campaignId` stands now: holding `contextId`, or nothing (null). */
  settle(campaignId: string, contextId: string | null): void;
}

/**
 * The context a campaign's chart holds now: the lease's while controlling; while claiming,
 * `undefined` (the claim's own `hold` decides, and its outcome settles it).
 */
export function heldContext(snapshot: CampaignSnapshot | null): string | null | undefined {
  if (!snapshot) return null;
  const authority = describeStates(snapshot).authority;
  if (authority === 'claiming') return undefined;
  return authority === 'controlling' ? (snapshot.context.lease?.contextId ?? null) : null;
}

export class MemoryContextIndex implements ContextIndex {
  private readonly holderOf = new Map<string, string>();
  private readonly heldBy = new Map<string, string>();

  hold(contextId: string, campaignId: string): string | null {
    const holder = this.holderOf.get(contextId);
    if (holder !== undefined && holder !== campaignId) return holder;
    this.settle(campaignId, contextId);
    return null;
  }

  settle(campaignId: string, contextId: string | null): void {
    const previous = this.heldBy.get(campaignId) ?? null;
    if (previous === contextId) return;
    if (previous !== null && this.holderOf.get(previous) === campaignId) this.holderOf.delete(previous);
    this.heldBy.delete(campaignId);
    if (contextId === null) return;
    // A context another campaign holds is not taken from it here: only `hold` takes, and refuses.
    const holder = this.holderOf.get(contextId);
    if (holder !== undefined && holder !== campaignId) return;
    this.holderOf.set(contextId, campaignId);
    this.heldBy.set(campaignId, contextId);
  }
}
