/**
 * An intent that applies a Reviewer-approved decision consumes that decision id in the same
 * journal write: a second intent for the same id is refused (`decision_consumed`) whatever
 * became of the first (open, in doubt, applied, refused, not applied, even trimmed away), and
 * nothing is written. The record's new optional `decisionId` leaves old documents readable,
 * v1 stays frozen as it was written, and the store's transition rules keep the id immutable.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  SETTLED_INTENT_RETENTION,
  parseCampaignDocument,
  type CampaignDocument,
  type IntentOutcome,
} from '../../persistence/campaign-document.js';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { checkDocumentTransition } from '../../persistence/document-transition.js';
import { recordIntent, recordIntentOutcome, type IntentDraft } from '../../persistence/intent-journal.js';
import { intentDraft, makeDoc, T0 } from './support/documents.js';
import { useTempDirs } from './support/temp-dir.js';
import { v1Fixture } from './support/v1-fixtures.js';

const tempDir = useTempDirs();

const answerDraft = (requestId: string, decisionId?: string): IntentDraft => ({
  ...intentDraft(requestId),
  action: 'answer',
  ...(decisionId !== undefined ? { decisionId } : {}),
});

function ok(result: ReturnType<typeof recordIntent>): CampaignDocument {
  if (!result.ok) throw new Error(`${result.code}: ${result.reason}`);
  return result.doc;
}

const settle = (doc: CampaignDocument, requestId: string, outcome: Omit<IntentOutcome, 'at'>): CampaignDocument =>
  ok(recordIntentOutcome(doc, requestId, { ...outcome, at: T0 }));

describe('recordIntent with a decision id', () => {
  it('journals the id on the intent and consumes it in the same document', () => {
    const doc = ok(recordIntent(makeDoc(), answerDraft('r1', 'dec-1')));
    expect(doc.intents).toEqual([expect.objectContaining({ requestId: 'r1', action: 'answer', decisionId: 'dec-1', outcome: null })]);
    expect(doc.consumedDecisions).toEqual(['dec-1']);
    // The document it produced is one the schema accepts (the store validates every write).
    expect(parseCampaignDocument(JSON.parse(JSON.stringify(doc)))).toMatchObject({ ok: true });
  });

  it('an intent without a decision id carries no such key and consumes nothing', () => {
    const doc = ok(recordIntent(makeDoc(), answerDraft('r1')));
    expect(Object.keys(doc.intents[0]!)).not.toContain('decisionId');
    expect(doc.consumedDecisions).toEqual([]);
  });

  const firstOutcomes: [string, Omit<IntentOutcome, 'at'>[]][] = [
    ['open (sent, no answer yet)', []],
    ['ambiguous', [{ status: 'ambiguous', code: 'remote_timeout' }]],
    ['applied', [{ status: 'applied', settledBy: 'response' }]],
    ['rejected', [{ status: 'rejected', code: 'lease_stale_epoch', settledBy: 'response' }]],
    ['not applied (readback)', [{ status: 'ambiguous' }, { status: 'not_applied', settledBy: 'readback' }]],
  ];
  it.each(firstOutcomes)('refuses the same decision again when the first intent is %s, and writes nothing', (_label, steps) => {
    let doc = ok(recordIntent(makeDoc(), answerDraft('r1', 'dec-1')));
    for (const step of steps) doc = settle(doc, 'r1', step);
    const frozen = JSON.stringify(doc);
    const again = recordIntent(doc, { ...answerDraft('r2', 'dec-1'), action: 'intervene' });
    expect(again).toMatchObject({ ok: false, code: 'decision_consumed' });
    if (!again.ok) {
      // One sentence, naming the decision, never the payload.
      expect(again.reason).toMatch(/^decision dec-1 was already applied, refused or is in doubt; [^.]+$/);
    }
    expect(JSON.stringify(doc)).toBe(frozen);
  });

  it('says decision_consumed, not intent_unresolved, while the first intent is still open (the refusal is final)', () => {
    const doc = ok(recordIntent(makeDoc(), answerDraft('r1', 'dec-1')));
    expect(recordIntent(doc, answerDraft('r2', 'dec-1'))).toMatchObject({ ok: false, code: 'decision_consumed' });
    // Another decision, or none, is still only blocked by the open intent.
    expect(recordIntent(doc, answerDraft('r2', 'dec-2'))).toMatchObject({ ok: false, code: 'intent_unresolved' });
    expect(recordIntent(doc, answerDraft('r2'))).toMatchObject({ ok: false, code: 'intent_unresolved' });
  });

  it('accepts another decision once the first intent is settled', () => {
    const doc = settle(ok(recordIntent(makeDoc(), answerDraft('r1', 'dec-1'))), 'r1', { status: 'applied', settledBy: 'response' });
    const next = ok(recordIntent(doc, answerDraft('r2', 'dec-2')));
    expect(next.consumedDecisions).toEqual(['dec-1', 'dec-2']);
  });

  it('refuses a decision recorded as consumed, and one whose intent was trimmed from the journal long ago', () => {
    const recorded = makeDoc('c1', { consumedDecisions: ['dec-old'] });
    expect(recordIntent(recorded, answerDraft('r1', 'dec-old'))).toMatchObject({ ok: false, code: 'decision_consumed' });

    let doc = settle(ok(recordIntent(makeDoc(), answerDraft('r0', 'dec-1'))), 'r0', { status: 'applied', settledBy: 'response' });
    for (let i = 1; i <= SETTLED_INTENT_RETENTION + 1; i++) {
      doc = settle(ok(recordIntent(doc, intentDraft(`r${i}`))), `r${i}`, { status: 'applied', settledBy: 'response' });
    }
    expect(doc.intents.some((intent) => intent.decisionId === 'dec-1')).toBe(false);
    expect(recordIntent(doc, answerDraft('r-late', 'dec-1'))).toMatchObject({ ok: false, code: 'decision_consumed' });
  });
});

describe('the document schema', () => {
  const withIntents = (intents: unknown[], consumedDecisions: string[] = []) => ({ ...makeDoc(), intents, consumedDecisions });
  const intent = (requestId: string, extra: Record<string, unknown> = {}) => ({ ...intentDraft(requestId), outcome: { status: 'applied', at: T0 }, ...extra });

  it('reads intents with and without a decision id, and the answer action', () => {
    const parsed = parseCampaignDocument(withIntents([intent('r1'), intent('r2', { action: 'answer', decisionId: 'dec-1' })], ['dec-1']));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.doc.intents.map((i) => [i.action, i.decisionId])).toEqual([['submit', undefined], ['answer', 'dec-1']]);
  });

  it.each([
    ['a decision id that is not an identifier', [intent('r1', { decisionId: 'dec 1\u0000' })]],
    ['an empty decision id', [intent('r1', { decisionId: '' })]],
    ['a decision id of 129 characters', [intent('r1', { decisionId: 'd'.repeat(129) })]],
    ['two intents applying the same decision', [intent('r1', { decisionId: 'dec-1' }), intent('r2', { decisionId: 'dec-1' })]],
  ])('refuses %s as corrupt', (_label, intents) => {
    expect(parseCampaignDocument(withIntents(intents))).toMatchObject({ ok: false, code: 'document_corrupt' });
  });

  it('v1 stays as it was written: its documents still migrate, a decision id or an answer in one is corrupt', () => {
    const v1 = v1Fixture('ambiguous-intent');
    expect(parseCampaignDocument(v1)).toMatchObject({ ok: true, migratedFrom: 1 });
    const [first] = v1['intents'] as Record<string, unknown>[];
    expect(parseCampaignDocument({ ...v1, intents: [{ ...first, decisionId: 'dec-1' }] })).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument({ ...v1, intents: [{ ...first, action: 'answer' }] })).toMatchObject({ ok: false, code: 'document_corrupt' });
  });
});

describe('the store', () => {
  it('keeps the decision id on disk, refuses a rewrite of it, and never forgets the consumed id', async () => {
    const root = await tempDir();
    const store = await openCampaignStore({ root });
    expect((await store.create(makeDoc('c1'))).ok).toBe(true);
    const written = await store.transact('c1', (doc) => ok(recordIntent(doc, answerDraft('r1', 'dec-1'))));
    expect(written.ok).toBe(true);

    const onDisk = JSON.parse(await readFile(store.layout.documentPath('c1'), 'utf8')) as CampaignDocument;
    expect(onDisk.intents[0]).toMatchObject({ requestId: 'r1', action: 'answer', decisionId: 'dec-1', outcome: null });
    expect(onDisk.consumedDecisions).toEqual(['dec-1']);

    const loaded = await store.load('c1');
    if (!loaded.ok) throw new Error(loaded.code);
    const prev = loaded.doc;
    const rewritten = { ...prev, intents: prev.intents.map((i) => ({ ...i, decisionId: 'dec-2' })) };
    const dropped = { ...prev, intents: prev.intents.map(({ decisionId: _gone, ...rest }) => rest) };
    expect(checkDocumentTransition(prev, rewritten)).toMatchObject({ ok: false, code: 'document_regression' });
    expect(checkDocumentTransition(prev, dropped)).toMatchObject({ ok: false, code: 'document_regression' });
    expect(checkDocumentTransition(prev, { ...prev, consumedDecisions: [] })).toMatchObject({ ok: false, code: 'document_regression' });
    // The store runs the same check on every write: the rewrite is refused and the file is unchanged.
    const before = await readFile(store.layout.documentPath('c1'), 'utf8');
    expect(await store.transact('c1', () => rewritten)).toMatchObject({ ok: false, code: 'document_regression' });
    expect(await readFile(store.layout.documentPath('c1'), 'utf8')).toBe(before);
  });
});
