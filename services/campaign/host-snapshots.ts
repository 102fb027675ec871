/**
 * What the host asks of a snapshot to decide whether a save is due: the durable part of its
 * state, whether only the process's environment changed, and whether a journal action is a
 * fenced mutation. Pure.
 * @module
 */
import { describeStates } from '../../machines/campaign.projection.js';
import type { CampaignContext, MutationKind } from '../../machines/campaign.types.js';
import type { CampaignSnapshot } from './facts.js';

const MUTATIONS: readonly string[] = ['submit', 'intervene', 'cancel', 'release', 'answer'];
export const isMutation = (action: string): action is MutationKind => MUTATIONS.includes(action);

/** Every field but `environment` is the same object: nothing durable changed. */
export function onlyEnvironmentChanged(saved: CampaignContext, next: CampaignContext): boolean {
  if (saved.environment === next.environment) return false;
  for (const key of Object.keys(next) as (keyof CampaignContext)[]) if (key !== 'environment' && saved[key] !== next[key]) return false;
  return true;
}

/**
 * The state outside the heartbeat region (reading ↔ idle is never durable), as a short key:
 * computed on every snapshot, so it reads the region names instead of serializing the value.
 */
export function durableStateKey(snapshot: CampaignSnapshot): string {
  const states = describeStates(snapshot);
  return `${snapshot.status}:${states.authority}.${states.step ?? ''}:${states.attention}`;
}
