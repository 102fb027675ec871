/**
 * The supervisor's actor system, and how its hooks reach the read side: the views and feed, the
 * Idempotency-Key index (every document write re-indexes its kept answers), the remote's
 * reachability (each read the remote answered) and the log.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import { heldContext, type ContextIndex } from '../authority/context-index.js';
import type { CampaignViews } from '../api/campaign-views.js';
import type { RequestGate } from '../api/request-gate.js';
import { createCampaignSystem, type CampaignSystem, type CampaignSystemHooks, type CampaignSystemOptions } from '../campaign/campaign-system.js';
import type { CampaignHost } from '../campaign/campaign-host.js';
import type { CampaignEmitted } from '../../machines/campaign.types.js';

type ReadSettled = Extract<CampaignEmitted, { type: 'READ_SETTLED' }>;

export interface SystemHookDeps {
  views: CampaignViews;
  gate: RequestGate;
  logger: Logger;
  contexts: ContextIndex;
  /** A status read the remote answered (reachability, `last_read_at`, the status text). */
  readAnswered(host: CampaignHost, read: ReadSettled & { answeredAt: string }): void;
  /** Replicas: a durable save appended public events; the other replicas are told (after the feed here). */
  published?(campaignId: string, events: readonly { seq: number }[]): void;
}

/** The link's side of a read the remote answered: reachability (/health), `last_read_at`, the log. */
export function readAnswered(p: { views: CampaignViews; logger: Logger; link: { readAnswered(ok: boolean, code: string | null): void } }) {
  return (host: CampaignHost, read: { code: string | null; answeredAt: string; message: string | null }): void => {
    const ok = read.code === null;
    p.link.readAnswered(ok, read.code);
    if (ok) p.views.read(host, read.answeredAt, read.message);
    else p.logger.warn({ campaignId: host.id, code: read.code }, 'remote read failed');
  };
}

/** The actor system over an opened store, with the read side's hooks; `onFenceStale`: the right to host is gone. */
export function supervisorSystem(options: Omit<CampaignSystemOptions, keyof CampaignSystemHooks>, hooks: SystemHookDeps & { onFenceStale(reason: string, campaignId: string): void }): CampaignSystem {
  return createCampaignSystem({ ...options, ...systemHooks(hooks), onFenceStale: (id, stale) => hooks.onFenceStale(stale.reason, id) });
}

export function systemHooks(p: SystemHookDeps): CampaignSystemHooks {
  const { views, gate, logger, contexts } = p;
  return {
    onLoaded: (doc) => {
      views.loaded(doc);
      gate.indexKeys(doc.campaignId, doc.idempotency);
    },
    onSaved: (host, saved) => {
      gate.indexKeys(host.id, saved.doc.idempotency);
      views.saved(host, saved);
      if (saved.appended.length > 0) p.published?.(host.id, saved.appended);
    },
    onEmitted: (host, event) => {
      if (event.type === 'READ_SETTLED' && event.answeredAt !== null) p.readAnswered(host, event as ReadSettled & { answeredAt: string });
      views.emitted(host, event);
    },
    onViewChanged: (host) => {
      // Where the chart stands on its context (a claim in flight keeps what its own `hold` took).
      const held = heldContext(host.corrupt ? null : host.getSnapshot());
      if (held !== undefined) contexts.settle(host.id, held);
      views.refresh(host);
    },
    onCorrupt: (c) => {
      logger.error({ campaignId: c.id, code: c.code }, 'campaign document fails closed');
      contexts.settle(c.id, null);
      views.corrupt(c.id);
    },
    onStorageFailed: (host, failure) => logger.error({ campaignId: host.id, code: failure.code }, 'campaign write refused'),
  };
}
