/**
 * What the demo says about authority, measured at the moment it says it: request counts by
 * method and the request log from the simulator, intent entries from the store. Each claim
 * becomes a `DemoFact` with its numbers; the sentence prints them, and a fact that does not
 * hold makes the demo say so and fail, never narrate what did not happen.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { CampaignDocuments, CampaignStore } from '../../persistence/campaign-store.js';
import type { MutationIntent } from '../../persistence/campaign-document.js';
import type { LedgerEntry, RunningSimulator } from '../../simulator/index.js';

export interface DemoFact {
  /** Stable name of the claim, e.g. `stale_epoch_refused_before_io`. */
  claim: string;
  holds: boolean;
  measured: Record<string, number | string | boolean | null>;
}

/** What the remote has received so far: every request, by method, and its mutation log. */
export interface RemoteCounters {
  requests: number;
  byMethod: Record<string, number>;
  /** The next seq of the simulator's mutation-request log. */
  nextSeq: number;
}

export function remoteCounters(sim: RunningSimulator): RemoteCounters {
  const byMethod = sim.stats().requests;
  const requests = Object.values(byMethod).reduce((sum, n) => sum + n, 0);
  return { requests, byMethod, nextSeq: sim.ledger().nextSeq };
}

/** Mutation requests (claims included) the remote received since `before`. */
export const mutationRequestsSince = (sim: RunningSimulator, before: RemoteCounters): LedgerEntry[] => sim.ledger(before.nextSeq).entries;

export const methodDelta = (before: RemoteCounters, after: RemoteCounters, method: string): number =>
  (after.byMethod[method] ?? 0) - (before.byMethod[method] ?? 0);

export async function journalOf(store: CampaignDocuments | null, campaignId: string): Promise<MutationIntent[]> {
  const loaded = await store?.load(campaignId);
  if (!loaded?.ok) throw new Error(`the journal of ${campaignId} could not be read${loaded ? ` (${loaded.code})` : ''}`);
  return loaded.doc.intents;
}

/**
 * Watches the remote for mutation requests and, at each arrival (before the remote acts on
 * it), reads the campaign's document from disk: was the request id already journaled?
 */
export function watchJournalAtArrival(sim: RunningSimulator, store: CampaignDocuments | null, campaignId: string) {
  const seen = new Map<string, boolean>();
  // The demo runs the embedded file store: its document is a file to read at the arrival.
  const path = store && 'layout' in store ? (store as CampaignStore).layout.documentPath(campaignId) : undefined;
  const stop = sim.onMutationRequest((entry) => {
    if (!entry.requestId || !path) return;
    let journaled = false;
    try {
      const doc = JSON.parse(readFileSync(path, 'utf8')) as { intents?: { requestId?: unknown }[] };
      journaled = (doc.intents ?? []).some((i) => i.requestId === entry.requestId);
    } catch {
      journaled = false;
    }
    seen.set(entry.requestId, journaled);
  });
  return { journaledAtArrival: (requestId: string): boolean | null => seen.get(requestId) ?? null, stop };
}
