import { describe, expect, it } from 'vitest';
import { campaignDocumentSchema, newCampaignDocument, parseCampaignDocument } from '../../persistence/campaign-document.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { makeDoc, T0 } from './support/documents.js';

describe('campaign document schema', () => {
  it('accepts a fresh document and defaults maxAttempts to 3', () => {
    const doc = newCampaignDocument({ campaignId: 'c1', objective: 'o', createdAt: new Date(T0) });
    expect(campaignDocumentSchema.parse(doc)).toEqual(doc);
    const { maxAttempts: _omitted, ...withoutMax } = doc;
    expect(campaignDocumentSchema.parse(withoutMax).maxAttempts).toBe(3);
  });

  it.each([
    ['maxAttempts below 1', { maxAttempts: 0 }],
    ['maxAttempts above 20', { maxAttempts: 21 }],
    ['an unknown field (never silently stripped)', { futureField: true }],
    ['a bad controller mode', { controllerMode: 'owner' }],
    ['a non-sha256 intent digest', { intents: [{ requestId: 'r', action: 'submit', epoch: 1, payloadDigest: 'abc', createdAt: T0, outcome: null }] }],
  ])('fails closed as document_corrupt on %s', (_label, patch) => {
    expect(parseCampaignDocument({ ...makeDoc(), ...patch })).toMatchObject({ ok: false, code: 'document_corrupt' });
  });

  it.each([
    ['version 2', 2, 'document_version_unknown'],
    ['version "1"', '1', 'document_version_unknown'],
    ['no version', undefined, 'document_corrupt'],
  ])('classifies %s', (_label, documentVersion, code) => {
    expect(parseCampaignDocument({ ...makeDoc(), documentVersion })).toMatchObject({ ok: false, code });
  });

  it('refuses a document filed under another id', () => {
    expect(parseCampaignDocument(makeDoc('c1'), 'c2')).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument(makeDoc('c1'), 'c1')).toMatchObject({ ok: true });
  });

  it('refuses outbox events whose ids do not follow `${campaignId}:${seq}` or reach nextSeq', () => {
    const { doc } = appendPublicEvents(makeDoc(), [{ kind: 'NEEDS_YOU', dedupeKey: 'k', summary: 's' }], T0);
    expect(parseCampaignDocument(doc).ok).toBe(true);
    const wrongId = { ...doc, outbox: { ...doc.outbox, events: doc.outbox.events.map((e) => ({ ...e, id: 'other:1' })) } };
    expect(parseCampaignDocument(wrongId)).toMatchObject({ ok: false, code: 'document_corrupt' });
    const seqAhead = { ...doc, outbox: { ...doc.outbox, nextSeq: 1 } };
    expect(parseCampaignDocument(seqAhead)).toMatchObject({ ok: false, code: 'document_corrupt' });
  });

  it('refuses two unresolved intents in one document', () => {
    const intent = (requestId: string) => ({ requestId, action: 'submit', epoch: 1, payloadDigest: 'a'.repeat(64), createdAt: T0, outcome: null });
    expect(parseCampaignDocument({ ...makeDoc(), intents: [intent('r1'), intent('r2')] })).toMatchObject({ ok: false, code: 'document_corrupt' });
  });
});
