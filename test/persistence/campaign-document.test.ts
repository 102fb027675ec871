import { describe, expect, it } from 'vitest';
import { campaignDocumentSchema, DOCUMENT_VERSION, newCampaignDocument, parseCampaignDocument } from '../../persistence/campaign-document.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { initialSnapshot, makeDoc, T0 } from './support/documents.js';
import { v1Fixture } from './support/v1-fixtures.js';

describe('campaign document schema', () => {
  it('accepts a fresh v2 document carrying the initial snapshot, and nothing the snapshot holds', () => {
    const machine = initialSnapshot('c1');
    const doc = newCampaignDocument({ campaignId: 'c1', objective: 'o', createdAt: new Date(T0), machine });
    expect(doc.documentVersion).toBe(2);
    expect(DOCUMENT_VERSION).toBe(2);
    expect(campaignDocumentSchema.parse(doc)).toEqual(doc);
    expect(doc.machine).toBe(machine);
    expect(Object.keys(doc).sort()).toEqual(
      ['campaignId', 'consumedDecisions', 'createdAt', 'documentVersion', 'idempotency', 'intents', 'machine', 'objective', 'outbox', 'remote', 'sourceSha', 'wake'],
    );
    expect(parseCampaignDocument(doc)).toEqual({ ok: true, doc });
  });

  // Every field v1 kept beside the snapshot is refused in v2 (strict: never silently stripped),
  // so a caller still writing one fails instead of storing a second truth.
  it.each([
    ['an unknown field (never silently stripped)', { futureField: true }],
    ['no machine snapshot', { machine: null }],
    ['a machine without a version', { machine: { version: '', snapshot: {} } }],
    ...['remoteView', 'attemptId', 'lease', 'controllerMode', 'pendingQuestion', 'maxAttempts', 'attemptsSubmitted', 'readFailures', 'paused', 'argusMission', 'reviewerVerdict', 'latestEvidence'].map(
      (field): [string, object] => [`the v1 field ${field}`, { [field]: null }],
    ),
    ['a non-sha256 intent digest', { intents: [{ requestId: 'r', action: 'submit', epoch: 1, payloadDigest: 'abc', createdAt: T0, outcome: null }] }],
  ])('fails closed as document_corrupt on %s', (_label, patch) => {
    expect(parseCampaignDocument({ ...makeDoc(), ...patch })).toMatchObject({ ok: false, code: 'document_corrupt' });
  });

  it.each([
    ['version 3', 3, 'document_version_unknown'],
    ['version "2"', '2', 'document_version_unknown'],
    ['version "1"', '1', 'document_version_unknown'],
    ['no version', undefined, 'document_corrupt'],
  ])('classifies %s', (_label, documentVersion, code) => {
    expect(parseCampaignDocument({ ...makeDoc(), documentVersion })).toMatchObject({ ok: false, code });
  });

  it('reads v1 through its own schema: a v2-shaped document labelled 1 is corrupt, a real v1 one migrates', () => {
    expect(parseCampaignDocument({ ...makeDoc(), documentVersion: 1 })).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument({ ...v1Fixture('controlling'), maxAttempts: 0 })).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument({ ...v1Fixture('controlling'), machine: null })).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument(v1Fixture('controlling'))).toMatchObject({ ok: true, migratedFrom: 1, doc: { documentVersion: 2 } });
    expect(parseCampaignDocument(v1Fixture('controlling'), 'other')).toMatchObject({ ok: false, code: 'document_corrupt' });
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
