/**
 * Wake requests: a bounded log of what asked Argus or Foreman to run, plus a lifetime total
 * per target that trimming never lowers (it feeds `argus_supervisor_wake_requests_total` and
 * the "woken only on significant events" tests). Pure.
 * @module
 */
import type { SignificantEventClass, WakeTarget } from '../machines/vocabulary.js';
import { WAKE_REQUEST_RETENTION, toIso, type CampaignDocument, type WakeRequest } from './campaign-document.js';

export interface WakeRequestDraft {
  target: WakeTarget;
  reason: string;
  eventClass?: SignificantEventClass | null;
  eventId?: string | null;
  /** The same (target, dedupeKey) among retained requests is not recorded twice. */
  dedupeKey: string;
}

export interface WakeRecordResult {
  doc: CampaignDocument;
  recorded: WakeRequest[];
}

export function recordWakeRequests(doc: CampaignDocument, drafts: readonly WakeRequestDraft[], now: Date | string): WakeRecordResult {
  const seen = new Set(doc.wake.requests.map((r) => `${r.target}\u0000${r.dedupeKey}`));
  const totals = { ...doc.wake.totals };
  const at = toIso(now);
  const recorded: WakeRequest[] = [];
  for (const draft of drafts) {
    const key = `${draft.target}\u0000${draft.dedupeKey}`;
    if (seen.has(key)) continue;
    seen.add(key);
    totals[draft.target] += 1;
    recorded.push({
      seq: totals[draft.target],
      target: draft.target,
      reason: draft.reason,
      eventClass: draft.eventClass ?? null,
      eventId: draft.eventId ?? null,
      dedupeKey: draft.dedupeKey,
      at,
    });
  }
  if (recorded.length === 0) return { doc, recorded };
  return {
    doc: { ...doc, wake: { requests: [...doc.wake.requests, ...recorded].slice(-WAKE_REQUEST_RETENTION), totals } },
    recorded,
  };
}

export interface WakeSettlement {
  dedupeKey: string;
  outcome: string;
  code: string | null;
  decisionId: string | null;
}

/**
 * Records how the decision opened by the wake with this dedupe key settled, on its newest
 * retained entry (an entry trimmed meanwhile is history: nothing to record it on).
 */
export function recordWakeSettled(doc: CampaignDocument, settlement: WakeSettlement, now: Date | string): CampaignDocument {
  const index = doc.wake.requests.findLastIndex((r) => r.dedupeKey === settlement.dedupeKey);
  if (index < 0) return doc;
  const requests = doc.wake.requests.slice();
  const { dedupeKey: _key, ...settled } = settlement;
  requests[index] = { ...requests[index]!, settled: { ...settled, at: toIso(now) } };
  return { ...doc, wake: { ...doc.wake, requests } };
}
