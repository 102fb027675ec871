/**
 * The shared database's documents as one replica's actor system sees them: a boot load (and a
 * listing) covers only the campaigns this replica holds the right to, and a create claims the
 * new campaign's right before its document is written (the write is fenced by that right; a
 * create that fails gives the right back). Reads of one campaign pass through unchanged.
 * @module
 */
import type { CampaignDocuments, LoadResult } from '../../persistence/campaign-store.js';
import { failure } from '../../persistence/store-errors.js';

export interface HostedSet {
  hosted(): string[];
  /** True when this replica now holds the campaign's right; else why not (a refusal code). */
  claimForCreate(campaignId: string): Promise<true | 'campaign_hosted_elsewhere' | 'ownership_unavailable' | 'invalid_campaign_id'>;
  release(campaignId: string): Promise<void>;
}

export function onlyHosted(inner: CampaignDocuments, rights: HostedSet): CampaignDocuments {
  return {
    listIds: async () => rights.hosted().sort(),
    loadAll: async (options = {}) => {
      const ids = rights.hosted().sort();
      const results: LoadResult[] = new Array(ids.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < ids.length) {
          const at = next++;
          const loaded = await inner.load(ids[at]!);
          // Ids come from the rights held, so "not found" means the document went meanwhile.
          const result: LoadResult = loaded.ok || (loaded.code !== 'campaign_not_found' && loaded.code !== 'invalid_campaign_id') ? (loaded as LoadResult) : { id: loaded.id, ok: false, code: 'io_failed', reason: loaded.reason };
          results[at] = result;
          options.onResult?.(result);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 16, ids.length)) }, worker));
      return results;
    },
    load: (id) => inner.load(id),
    create: async (doc) => {
      const claimed = await rights.claimForCreate(doc.campaignId);
      if (claimed === 'invalid_campaign_id') return failure('invalid_campaign_id', 'campaign id must match [A-Za-z0-9._-]{1,128} without a leading dot');
      // The database did not answer: nothing was created, and nothing says the campaign exists.
      if (claimed === 'ownership_unavailable') return failure('io_failed', `campaign ${doc.campaignId} could not be claimed: the database did not answer`);
      if (claimed !== true) return failure('campaign_exists', `campaign ${doc.campaignId} is already hosted by a replica`);
      const created = await inner.create(doc);
      if (!created.ok) await rights.release(doc.campaignId);
      return created;
    },
    transact: (id, fn) => inner.transact(id, fn),
    writes: () => inner.writes(),
  };
}
