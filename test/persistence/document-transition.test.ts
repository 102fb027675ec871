import { describe, expect, it } from 'vitest';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { checkDocumentTransition } from '../../persistence/document-transition.js';
import { recordIntent, recordIntentOutcome } from '../../persistence/intent-journal.js';
import { at, intentDraft, makeDoc, T0, withContext } from './support/documents.js';

function withIntent(status: 'open' | 'ambiguous' | 'applied'): CampaignDocument {
  const r = recordIntent(makeDoc(), intentDraft('r1'));
  if (!r.ok) throw new Error(r.reason);
  if (status === 'open') return r.doc;
  const s = recordIntentOutcome(r.doc, 'r1', { status, at: T0, settledBy: 'response' });
  if (!s.ok) throw new Error(s.reason);
  return s.doc;
}

const setOutcome = (doc: CampaignDocument, outcome: CampaignDocument['intents'][number]['outcome']): CampaignDocument => ({
  ...doc,
  intents: doc.intents.map((i) => ({ ...i, outcome })),
});

describe('checkDocumentTransition', () => {
  const base = makeDoc();
  const cases: { label: string; prev: CampaignDocument; next: CampaignDocument; ok: boolean }[] = [
    { label: 'an ordinary change', prev: base, next: { ...base, sourceSha: 'abc123' }, ok: true },
    { label: 'a snapshot change', prev: base, next: withContext(base, { attemptsSubmitted: 1, lastErrorCode: 'x' }), ok: true },
    { label: 'a changed campaignId', prev: base, next: { ...base, campaignId: 'c2' }, ok: false },
    { label: 'a changed createdAt', prev: base, next: { ...base, createdAt: at(1) }, ok: false },
    { label: 'nextSeq going back', prev: { ...base, outbox: { ...base.outbox, nextSeq: 5 } }, next: { ...base, outbox: { ...base.outbox, nextSeq: 4 } }, ok: false },
    { label: 'wake totals going back', prev: { ...base, wake: { requests: [], totals: { argus: 2, foreman: 0 } } }, next: base, ok: false },
    { label: 'attemptsSubmitted (snapshot context) going back', prev: withContext(base, { attemptsSubmitted: 2 }), next: withContext(base, { attemptsSubmitted: 1 }), ok: false },
    { label: 'a forgotten decision', prev: { ...base, consumedDecisions: ['d1'] }, next: base, ok: false },
    { label: 'an open intent dropped', prev: withIntent('open'), next: base, ok: false },
    { label: 'an ambiguous intent dropped', prev: withIntent('ambiguous'), next: base, ok: false },
    { label: 'a settled intent trimmed', prev: withIntent('applied'), next: base, ok: true },
    { label: 'an intent payload rewritten', prev: withIntent('open'), next: { ...withIntent('open'), intents: [{ ...withIntent('open').intents[0]!, epoch: 9 }] }, ok: false },
    { label: 'open -> applied', prev: withIntent('open'), next: withIntent('applied'), ok: true },
    { label: 'applied -> rejected', prev: withIntent('applied'), next: setOutcome(withIntent('applied'), { status: 'rejected', at: T0 }), ok: false },
    { label: 'ambiguous -> applied by readback', prev: withIntent('ambiguous'), next: setOutcome(withIntent('ambiguous'), { status: 'applied', at: T0, settledBy: 'readback' }), ok: true },
    { label: 'ambiguous -> applied by response', prev: withIntent('ambiguous'), next: setOutcome(withIntent('ambiguous'), { status: 'applied', at: T0, settledBy: 'response' }), ok: false },
    { label: 'ambiguous -> open (reset to force a retry)', prev: withIntent('ambiguous'), next: setOutcome(withIntent('ambiguous'), null), ok: false },
  ];
  it.each(cases)('$label -> ok=$ok', ({ prev, next, ok }) => {
    const result = checkDocumentTransition(prev, next);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.code).toBe('document_regression');
  });
});
