import { describe, expect, it } from 'vitest';
import { SETTLED_INTENT_RETENTION, type CampaignDocument, type IntentOutcome } from '../../persistence/campaign-document.js';
import { consumeDecision } from '../../persistence/decisions.js';
import { openIntent, recordIntent, recordIntentOutcome } from '../../persistence/intent-journal.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { intentDraft, makeDoc, T0 } from './support/documents.js';

function journaled(requestId = 'r1'): CampaignDocument {
  const result = recordIntent(makeDoc(), intentDraft(requestId));
  if (!result.ok) throw new Error(result.reason);
  return result.doc;
}

function settle(doc: CampaignDocument, requestId: string, outcome: Omit<IntentOutcome, 'at'>): CampaignDocument {
  const result = recordIntentOutcome(doc, requestId, { ...outcome, at: T0 });
  if (!result.ok) throw new Error(result.reason);
  return result.doc;
}

describe('recordIntent', () => {
  it('journals an open intent that openIntent then returns', () => {
    const doc = journaled();
    expect(openIntent(doc)).toMatchObject({ requestId: 'r1', outcome: null });
    expect(openIntent(makeDoc())).toBeNull();
  });

  it.each([
    ['while another intent is open', (d: CampaignDocument) => d, 'intent_unresolved'],
    ['while another intent is ambiguous', (d: CampaignDocument) => settle(d, 'r1', { status: 'ambiguous', code: 'remote_timeout' }), 'intent_unresolved'],
    ['with a request id already journaled', (d: CampaignDocument) => settle(d, 'r1', { status: 'applied', settledBy: 'response' }), 'intent_duplicate'],
  ])('refuses a new intent %s', (_label, prepare, code) => {
    const doc = prepare(journaled('r1'));
    const again = recordIntent(doc, intentDraft(code === 'intent_duplicate' ? 'r1' : 'r2'));
    expect(again).toMatchObject({ ok: false, code });
  });

  it('accepts the next intent once the previous one is settled', () => {
    const doc = settle(journaled('r1'), 'r1', { status: 'rejected', code: 'lease_stale_epoch', settledBy: 'response' });
    expect(recordIntent(doc, intentDraft('r2'))).toMatchObject({ ok: true });
  });
});

describe('recordIntentOutcome', () => {
  type Step = Omit<IntentOutcome, 'at'>;
  const cases: { label: string; first: Step; second?: Step; expected: true | string }[] = [
    { label: 'open -> applied by response', first: { status: 'applied', settledBy: 'response' }, expected: true },
    { label: 'open -> ambiguous', first: { status: 'ambiguous', code: 'remote_timeout' }, expected: true },
    { label: 'ambiguous -> applied by readback', first: { status: 'ambiguous' }, second: { status: 'applied', settledBy: 'readback' }, expected: true },
    { label: 'ambiguous -> not_applied by readback', first: { status: 'ambiguous' }, second: { status: 'not_applied', settledBy: 'readback' }, expected: true },
    { label: 'ambiguous -> applied by response', first: { status: 'ambiguous' }, second: { status: 'applied', settledBy: 'response' }, expected: 'readback_required' },
    { label: 'ambiguous -> rejected by readback', first: { status: 'ambiguous' }, second: { status: 'rejected', settledBy: 'readback' }, expected: 'readback_required' },
    { label: 'applied -> not_applied', first: { status: 'applied' }, second: { status: 'not_applied', settledBy: 'readback' }, expected: 'intent_already_settled' },
    { label: 'rejected -> applied', first: { status: 'rejected' }, second: { status: 'applied', settledBy: 'readback' }, expected: 'intent_already_settled' },
    { label: 'not_applied -> ambiguous', first: { status: 'not_applied' }, second: { status: 'ambiguous' }, expected: 'intent_already_settled' },
  ];
  it.each(cases)('$label', ({ first, second, expected }) => {
    let doc = settle(journaled('r1'), 'r1', first);
    if (second) {
      const result = recordIntentOutcome(doc, 'r1', { ...second, at: T0 });
      expect(result.ok ? true : result.code).toBe(expected);
      if (result.ok) doc = result.doc;
    }
    expect(doc.intents).toHaveLength(1);
  });

  it('refuses an unknown request id', () => {
    expect(recordIntentOutcome(makeDoc(), 'nope', { status: 'applied', at: T0 })).toMatchObject({ ok: false, code: 'intent_not_found' });
  });
});

describe('journal retention', () => {
  it('trims only old clearly-settled intents and never an ambiguous one', () => {
    let doc = settle(journaled('first'), 'first', { status: 'ambiguous' });
    doc = settle(doc, 'first', { status: 'not_applied', settledBy: 'readback' });
    // Fill past retention with settled renewals, then leave one ambiguous intent at the end.
    for (let i = 0; i < SETTLED_INTENT_RETENTION + 10; i++) {
      const r = recordIntent(doc, intentDraft(`r${i}`, 'renew'));
      if (!r.ok) throw new Error(r.reason);
      doc = settle(r.doc, `r${i}`, { status: 'applied', settledBy: 'response' });
    }
    const open = recordIntent(doc, intentDraft('last'));
    if (!open.ok) throw new Error(open.reason);
    doc = settle(open.doc, 'last', { status: 'ambiguous' });
    for (let i = 0; i < 5; i++) {
      expect(recordIntent(doc, intentDraft(`blocked${i}`))).toMatchObject({ ok: false, code: 'intent_unresolved' });
    }
    expect(doc.intents.filter((intent) => intent.outcome?.status !== 'ambiguous')).toHaveLength(SETTLED_INTENT_RETENTION);
    expect(openIntent(doc)?.requestId).toBe('last');
  });
});

describe('consumeDecision', () => {
  it('consumes an id once and refuses it afterwards', () => {
    const first = consumeDecision(makeDoc(), 'd1');
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.doc.consumedDecisions).toEqual(['d1']);
    expect(consumeDecision(first.doc, 'd1')).toMatchObject({ ok: false, code: 'decision_already_consumed' });
    expect(consumeDecision(first.doc, 'd2')).toMatchObject({ ok: true });
  });
});

describe('digestPayload', () => {
  it('is a sha256 hex independent of key order', () => {
    expect(digestPayload({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(digestPayload({ b: { d: [1, 2], c: 2 }, a: 1 }));
    expect(digestPayload({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    expect(digestPayload({ a: 1 })).not.toBe(digestPayload({ a: 2 }));
  });
});
