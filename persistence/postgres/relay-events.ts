/**
 * Public-event notices of the command relay (command-relay.ts): what one replica NOTIFYs on the
 * installation's events channel after it appended public events to a campaign's outbox, and
 * how a listener reads it back. A notice names the events (campaign id and seq range), never
 * carries them: they are in the shared store already (the campaign document's outbox, with
 * these seqs), so a reader fetches them from there and nothing is stored twice. A NOTIFY
 * payload must stay under 8000 bytes; this one is at most ~220.
 * @module
 */
import { createHash } from 'node:crypto';
import { isValidCampaignId } from '../campaign-id.js';

export type EventsNotice =
  /** Events `fromSeq..toSeq` of a campaign were appended; `fromSelf` when this replica published it. */
  | { kind: 'events'; campaignId: string; fromSeq: number; toSeq: number; fromSelf: boolean }
  /** The listener reconnected: notices may have been lost meanwhile, re-read from the store. */
  | { kind: 'gap' };

/** A short tag of the publishing replica (replica ids are free text of any length). */
export const originTag = (replicaId: string): string => createHash('sha256').update(replicaId, 'utf8').digest('hex').slice(0, 16);

/** The payload, or null when there is nothing to announce (no events, or an id that is not a campaign id). */
export function encodeEventsNotice(campaignId: string, events: readonly { seq: number }[], origin: string): string | null {
  if (!isValidCampaignId(campaignId) || events.length === 0) return null;
  const seqs = events.map((e) => e.seq);
  return JSON.stringify({ c: campaignId, f: Math.min(...seqs), t: Math.max(...seqs), o: origin });
}

/** Any session of the database may NOTIFY this channel: anything malformed reads as null. */
export function decodeEventsNotice(payload: string, myOrigin: string): EventsNotice | null {
  let notice: { c?: unknown; f?: unknown; t?: unknown; o?: unknown } | null;
  try {
    notice = JSON.parse(payload) as typeof notice;
  } catch {
    return null;
  }
  const { c, f, t, o } = notice ?? {};
  if (!isValidCampaignId(c) || !Number.isSafeInteger(f) || !Number.isSafeInteger(t)) return null;
  return { kind: 'events', campaignId: c, fromSeq: f as number, toSeq: t as number, fromSelf: o === myOrigin };
}
