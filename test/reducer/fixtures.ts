/** Snapshot builders for the reducer tables: a controlled remote task, overridable per row. */
import type { ControlMetadata, TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { RemoteView } from '../../persistence/remote-view.js';
import { reduce } from '../../services/reducer/reducer.js';

export const US = 'argus-openoperator';
export const T0 = '2030-01-01T00:00:00.000Z';
export const T1 = '2030-01-01T00:02:00.000Z';
export const LATER = '2030-01-01T00:10:00.000Z';
export const ctx = { campaignId: 'camp-1', controllerId: US, now: T1 };

export const lease = (over: Partial<NonNullable<ControlMetadata['lease']>> = {}) => ({
  contextId: 'ctx-1',
  holder: US,
  epoch: 3,
  expiresAt: LATER,
  ttlSeconds: 600,
  ...over,
});

export function snap(over: Partial<Omit<TaskSnapshot, 'control'>> = {}, control: Partial<ControlMetadata> | null = {}): TaskSnapshot {
  return {
    id: 'task-1',
    contextId: 'ctx-1',
    state: 'working',
    timestamp: T0,
    artifacts: [],
    latestAgentMessageDigest: 'digest-0',
    latestAgentMessageExcerpt: 'step 10/1000 loss 2.1',
    ...over,
    control:
      control === null
        ? null
        : { revision: 1, stage: 'train', attempt: 1, attemptId: 'att-1', lease: lease(), missionComplete: false, ...control },
  };
}

/** The view a campaign would hold after observing `s` once. */
export const viewOf = (s: TaskSnapshot): RemoteView => reduce(null, s, { ...ctx, now: T0 }).view;
