import { describe, expect, it } from 'vitest';
import { OUTBOX_EVENT_RETENTION } from '../../persistence/campaign-document.js';
import { appendPublicEvents, eventsAfter, type PublicEventDraft } from '../../persistence/outbox.js';
import { recordWakeRequests } from '../../persistence/wake-requests.js';
import { makeDoc, T0 } from './support/documents.js';

const draft = (dedupeKey: string, kind: PublicEventDraft['kind'] = 'STAGE_TRANSITION'): PublicEventDraft => ({ kind, dedupeKey, summary: dedupeKey });

describe('appendPublicEvents', () => {
  it.each([
    { label: 'assigns consecutive ids', batches: [['a', 'b', 'c']], ids: ['c1:1', 'c1:2', 'c1:3'] },
    { label: 'skips a key already published', batches: [['a'], ['a', 'b']], ids: ['c1:1', 'c1:2'] },
    { label: 'skips a key repeated within one batch', batches: [['a', 'a', 'b']], ids: ['c1:1', 'c1:2'] },
    { label: 'appends nothing for an empty batch', batches: [[]], ids: [] },
  ])('$label', ({ batches, ids }) => {
    let doc = makeDoc();
    const appended: string[] = [];
    for (const batch of batches) {
      const result = appendPublicEvents(doc, batch.map((k) => draft(k)), T0);
      doc = result.doc;
      appended.push(...result.appended.map((e) => e.id));
    }
    expect(appended).toEqual(ids);
    expect(doc.outbox.nextSeq).toBe(ids.length + 1);
  });

  it('returns the same document object when nothing is appended (callers can skip the write)', () => {
    const { doc } = appendPublicEvents(makeDoc(), [draft('a')], T0);
    expect(appendPublicEvents(doc, [draft('a')], T0).doc).toBe(doc);
  });

  it('trims retention but never lowers nextSeq or reuses an id', () => {
    let doc = makeDoc();
    for (let i = 0; i < OUTBOX_EVENT_RETENTION + 50; i++) doc = appendPublicEvents(doc, [draft(`k${i}`)], T0).doc;
    expect(doc.outbox.events).toHaveLength(OUTBOX_EVENT_RETENTION);
    expect(doc.outbox.events[0]!.seq).toBe(51);
    expect(doc.outbox.nextSeq).toBe(OUTBOX_EVENT_RETENTION + 51);
    const { appended } = appendPublicEvents(doc, [draft('fresh')], T0);
    expect(appended[0]!.id).toBe(`c1:${OUTBOX_EVENT_RETENTION + 51}`);
    expect(eventsAfter(doc, OUTBOX_EVENT_RETENTION + 48).map((e) => e.seq)).toEqual([249, 250]);
  });

  it('does not mutate its input', () => {
    const doc = makeDoc();
    const before = structuredClone(doc);
    appendPublicEvents(doc, [draft('a')], T0);
    expect(doc).toEqual(before);
  });
});

describe('recordWakeRequests', () => {
  it('counts per target, dedupes by (target, key), and keeps totals past retention', () => {
    let doc = makeDoc();
    const first = recordWakeRequests(
      doc,
      [
        { target: 'argus', reason: 'attempt_completed', dedupeKey: 't:1' },
        { target: 'foreman', reason: 'evidence_ready', dedupeKey: 't:1' },
        { target: 'argus', reason: 'attempt_completed', dedupeKey: 't:1' },
      ],
      T0,
    );
    expect(first.recorded.map((r) => `${r.target}#${r.seq}`)).toEqual(['argus#1', 'foreman#1']);
    doc = first.doc;
    for (let i = 0; i < 150; i++) doc = recordWakeRequests(doc, [{ target: 'argus', reason: 'r', dedupeKey: `k${i}` }], T0).doc;
    expect(doc.wake.requests).toHaveLength(100);
    expect(doc.wake.totals).toEqual({ argus: 151, foreman: 1 });
  });
});
