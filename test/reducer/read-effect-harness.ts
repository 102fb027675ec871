/**
 * The real status-read effect over a stub remote that answers one TaskSnapshot: what the chart
 * hears from a read is exactly what the `statusReader` makes of the reducer's answer.
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { ReadStatusInput, ReadStatusOutput, RemoteView } from '../../machines/campaign.types.js';
import { createCampaignEffects } from '../../services/campaign/effects.js';
import { askReader } from '../fixtures/ask-reader.js';
import { T0, T1, US } from './fixtures.js';

export function stubRemote(answer: () => TaskSnapshot): A2AClient {
  return { getTask: async () => ({ ok: true, value: answer() }) } as unknown as A2AClient;
}

export function effectsAnswering(answer: () => TaskSnapshot, now = T1) {
  return createCampaignEffects({
    controllerId: US,
    remote: stubRemote(answer),
    now: () => new Date(now),
    journal: async () => undefined,
    publishedKeys: async () => new Set<string>(),
  });
}

export async function readOnce(previous: RemoteView | null, next: TaskSnapshot): Promise<ReadStatusOutput> {
  const input: ReadStatusInput = {
    campaignId: 'camp-1',
    controllerId: US,
    taskId: next.id,
    contextId: next.contextId,
    previous,
    readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false },
    createdAt: T0,
    cadenceMs: 120_000,
    now: T1,
  };
  return askReader(effectsAnswering(() => next).statusReader, input);
}
