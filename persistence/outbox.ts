/**
 * The durable outbox: public events get monotonic ids (`${campaignId}:${seq}`) that are never
 * reused, even after old events are trimmed, and a dedupe key that was published once is
 * never published again (within the bounded key memory). Pure: no I/O, no clock.
 *
 * Retention is bounded twice: at most OUTBOX_EVENT_RETENTION events, and at most
 * OUTBOX_EVENT_BYTES of them serialized (oldest trimmed first), so a remote that makes every
 * event as large as the caps allow still cannot grow the document (docs/remote-text.md).
 * @module
 */
import type { PublicEventKind } from '../machines/vocabulary.js';
import {
  OUTBOX_EVENT_RETENTION,
  PUBLISHED_KEY_RETENTION,
  toIso,
  type CampaignDocument,
  type PublicEvent,
} from './campaign-document.js';

/** Serialized bytes of retained events (UTF-8 JSON); the newest event is always kept. */
export const OUTBOX_EVENT_BYTES = 96 * 1024;

export interface PublicEventDraft {
  kind: PublicEventKind;
  dedupeKey: string;
  summary: string;
  data?: Record<string, unknown>;
}

export interface AppendResult {
  doc: CampaignDocument;
  /** The events actually appended, in order; drafts with a published key are skipped. */
  appended: PublicEvent[];
}

/**
 * @example
 *   const { doc: next, appended } = appendPublicEvents(doc, [{ kind: 'NEEDS_YOU', dedupeKey: 't1:q1', summary: 'Question' }], now);
 */
export function appendPublicEvents(doc: CampaignDocument, drafts: readonly PublicEventDraft[], now: Date | string): AppendResult {
  const published = new Set(doc.outbox.publishedKeys);
  const at = toIso(now);
  const appended: PublicEvent[] = [];
  let nextSeq = doc.outbox.nextSeq;
  for (const draft of drafts) {
    if (published.has(draft.dedupeKey)) continue;
    published.add(draft.dedupeKey);
    const seq = nextSeq++;
    appended.push({
      id: `${doc.campaignId}:${seq}`,
      seq,
      kind: draft.kind,
      campaignId: doc.campaignId,
      at,
      dedupeKey: draft.dedupeKey,
      summary: draft.summary,
      data: draft.data ?? {},
    });
  }
  if (appended.length === 0) return { doc, appended };
  return {
    doc: {
      ...doc,
      outbox: {
        nextSeq,
        events: trimToBudget([...doc.outbox.events, ...appended].slice(-OUTBOX_EVENT_RETENTION)),
        publishedKeys: [...doc.outbox.publishedKeys, ...appended.map((e) => e.dedupeKey)].slice(-PUBLISHED_KEY_RETENTION),
      },
    },
    appended,
  };
}

/** Drops the oldest events until the rest fit in OUTBOX_EVENT_BYTES (ids and seqs never change). */
function trimToBudget(events: PublicEvent[]): PublicEvent[] {
  let bytes = 0;
  let keepFrom = events.length;
  while (keepFrom > 0) {
    const size = Buffer.byteLength(JSON.stringify(events[keepFrom - 1])) + 1;
    if (bytes + size > OUTBOX_EVENT_BYTES && keepFrom < events.length) break;
    bytes += size;
    keepFrom--;
  }
  return keepFrom === 0 ? events : events.slice(keepFrom);
}

/** Events with seq greater than `afterSeq` still retained (for a consumer catching up by id). */
export const eventsAfter = (doc: CampaignDocument, afterSeq: number): PublicEvent[] =>
  doc.outbox.events.filter((event) => event.seq > afterSeq);
