/**
 * Reading a campaign snapshot without starting anything: which state each region is in, and
 * whether the heartbeat should read it. The one place the services learn "where is it".
 * @module
 */
import type { AnyMachineSnapshot } from 'xstate';
import { leaseUnexpiredAt } from './campaign.guards.js';
import type { CampaignContext } from './campaign.types.js';

export interface CampaignStates {
  /** observing | claiming | controlling | control-lost | ambiguous-intent | paused | closed */
  authority: string;
  /** idle | awaiting-review | needs-you (the attention before a pause, when paused) */
  attention: string;
  /** Inside controlling or ambiguous-intent: ready | renewing | rotating | reclaiming | verifying | journaling | relaying | unresolved | resolving. */
  step: string | null;
  /** idle | reading (null when paused or closed). */
  heartbeat: string | null;
}

const top = (v: unknown): string => (typeof v === 'string' ? v : v && typeof v === 'object' ? (Object.keys(v)[0] ?? 'unknown') : 'unknown');
const inner = (v: unknown): string | null => (v && typeof v === 'object' ? top(Object.values(v)[0]) : null);

export function describeStates(snapshot: Pick<AnyMachineSnapshot, 'value'> & { historyValue?: unknown }): CampaignStates {
  const value = snapshot.value as unknown;
  if (typeof value === 'string') return { authority: value, attention: attentionBeforePause(snapshot.historyValue), step: null, heartbeat: null };
  const active = (value as { active?: { authority?: unknown; attention?: unknown; heartbeat?: unknown } }).active ?? {};
  return { authority: top(active.authority), attention: top(active.attention), step: inner(active.authority), heartbeat: top(active.heartbeat) };
}

/** While paused, the attention the campaign returns to (the history node's last value). */
function attentionBeforePause(historyValue: unknown): string {
  if (!historyValue || typeof historyValue !== 'object') return 'idle';
  for (const nodes of Object.values(historyValue as Record<string, unknown>)) {
    if (!Array.isArray(nodes)) continue;
    for (const node of nodes as { id?: string; key?: string }[]) {
      const id = node.id ?? '';
      if (id.startsWith('campaign.active.attention.')) return id.slice('campaign.active.attention.'.length);
    }
  }
  return 'idle';
}

/**
 * The heartbeat ticks this actor: active and not paused (a paused or closed campaign's value is
 * a bare string). Whether a tick reads, renews or does nothing is the chart's decision.
 */
export const tickable = (snapshot: AnyMachineSnapshot): boolean => snapshot.status === 'active' && typeof snapshot.value !== 'string';

/**
 * The authority a view shows at `now`: `controlling` only while the lease copy is unexpired. Past
 * `expires_at` the chart gives the lease up on its next tick; a view read before that tick
 * already says `control-lost`, never `controlling`.
 */
export function authorityAt(snapshot: AnyMachineSnapshot, now: string): string {
  const authority = describeStates(snapshot).authority;
  if (authority !== 'controlling') return authority;
  return leaseUnexpiredAt((snapshot.context as CampaignContext).lease, now) ? authority : 'control-lost';
}

/** Holds (believes it holds) the controller lease: every read re-checks it. */
export const holdsLease = (snapshot: AnyMachineSnapshot): boolean => describeStates(snapshot).authority === 'controlling';
