/**
 * The idempotency bookkeeping (pure): replay / reuse / new, the retention and size bounds, key
 * validation, and the migration of a document written before the field existed.
 */
import { describe, expect, it } from 'vitest';
import { parseCampaignDocument } from '../../persistence/campaign-document.js';
import {
  IDEMPOTENCY_KEY_RETENTION,
  IDEMPOTENT_ANSWER_MAX_BYTES,
  digestKey,
  digestRequest,
  findReplay,
  idempotencyRecordSchema,
  isValidIdempotencyKey,
  rememberAnswer,
  type IdempotencyRecord,
} from '../../persistence/idempotency.js';
import { storable } from '../../services/api/request-gate.js';
import { T0, makeDoc } from './support/documents.js';
import { v1Fixture } from './support/v1-fixtures.js';

const record = (key: string, body: unknown, answer: IdempotencyRecord['answer'] = { ok: true, value: { n: 1 } }): IdempotencyRecord => ({
  keyDigest: digestKey(key),
  requestDigest: digestRequest('campaign_action', body),
  answer,
  at: T0,
});

describe('idempotency records', () => {
  const body = { campaign_id: 'c1', action: 'submit', epoch: 1, text: 'a' };

  it('replays the same key and request, refuses another request, and knows nothing of a new key', () => {
    const kept = [record('k1', body, { ok: false, error: { code: 'mutation_in_doubt', message: 'x.' } })];
    expect(findReplay(kept, digestKey('k1'), digestRequest('campaign_action', { ...body }))).toEqual({ kind: 'replay', answer: kept[0]!.answer });
    // Key order in the body does not matter; a changed field, route or action does.
    expect(findReplay(kept, digestKey('k1'), digestRequest('campaign_action', { text: 'a', epoch: 1, action: 'submit', campaign_id: 'c1' })).kind).toBe('replay');
    expect(findReplay(kept, digestKey('k1'), digestRequest('campaign_action', { ...body, text: 'b' })).kind).toBe('key_reused');
    expect(findReplay(kept, digestKey('k1'), digestRequest('campaigns', body)).kind).toBe('key_reused');
    expect(findReplay(kept, digestKey('k2'), digestRequest('campaign_action', body)).kind).toBe('new');
  });

  it('keeps the newest N and never replaces a key already answered', () => {
    let kept: IdempotencyRecord[] = [];
    for (let i = 0; i < IDEMPOTENCY_KEY_RETENTION + 10; i++) kept = rememberAnswer(kept, record(`k${i}`, body));
    expect(kept).toHaveLength(IDEMPOTENCY_KEY_RETENTION);
    expect(kept[0]!.keyDigest).toBe(digestKey('k10'));
    expect(kept.at(-1)!.keyDigest).toBe(digestKey(`k${IDEMPOTENCY_KEY_RETENTION + 9}`));
    const again = rememberAnswer(kept, record(`k${IDEMPOTENCY_KEY_RETENTION + 9}`, body, { ok: true, value: { n: 2 } }));
    expect(again.at(-1)!.answer).toEqual({ ok: true, value: { n: 1 } });
  });

  it('refuses an answer over the size bound in the document; the gate keeps the outcome without the view, compacted if need be', () => {
    const big = { ok: true as const, value: { campaign: { campaign_id: 'c1', state: 'controlling', attention: 'idle', objective: 'x'.repeat(4000) }, request_id: 'r1', outcome: 'applied' } };
    expect(idempotencyRecordSchema.safeParse(record('k', body, big)).success).toBe(false);
    // The view is a projection, rendered again at every answer: the record keeps the outcome.
    const kept = storable(big);
    expect(idempotencyRecordSchema.safeParse(record('k', body, kept)).success).toBe(true);
    expect(kept).toEqual({ ok: true, value: { request_id: 'r1', outcome: 'applied' } });
    // An outcome too big even without its view keeps its short fields, marked compacted.
    const events = Array.from({ length: 40 }, (_, seq) => ({ seq, kind: 'STAGE_TRANSITION', summary: 'y'.repeat(40) }));
    const observed = storable({ ok: true, value: { campaign: { campaign_id: 'c1' }, request_id: 'r2', outcome: 'applied', task_id: 't1', events } });
    expect(observed).toEqual({ ok: true, value: { request_id: 'r2', outcome: 'applied', task_id: 't1', compacted: true } });
    expect(idempotencyRecordSchema.safeParse(record('k', body, observed)).success).toBe(true);
    const small = { ok: false as const, error: { code: 'attempt_running' as const, message: 'Not yet.' } };
    expect(storable(small)).toEqual(small);
    const long = storable({ ok: false, error: { code: 'remote_rejected', message: 'y'.repeat(5000) } });
    expect(JSON.stringify(long).length).toBeLessThanOrEqual(IDEMPOTENT_ANSWER_MAX_BYTES);
    expect(long).toMatchObject({ ok: false, error: { code: 'remote_rejected' } });
  });

  it('accepts 1-255 printable ASCII characters without outer spaces as a key', () => {
    for (const ok of ['a', 'x'.repeat(255), 'uuid-7f3a 9c2e', '~!@#$%^&*()']) expect([ok.slice(0, 9), isValidIdempotencyKey(ok)]).toEqual([ok.slice(0, 9), true]);
    for (const bad of ['', 'x'.repeat(256), ' a', 'a ', 'tab\tx', 'nl\nx', 'naïve', '\u0000']) expect([bad.slice(0, 9), isValidIdempotencyKey(bad)]).toEqual([bad.slice(0, 9), false]);
  });

  it('reads a (v1) document written before the field existed as one with no kept answers (the migration)', () => {
    const { idempotency: _none, ...before } = v1Fixture('needs-you');
    const parsed = parseCampaignDocument(JSON.parse(JSON.stringify(before)), 'needs-you');
    expect(parsed).toMatchObject({ ok: true, migratedFrom: 1, doc: { idempotency: [] } });
    // Every v2 document was written with the field: one without it was not written by this build.
    const { idempotency, ...v2Without } = makeDoc('c1');
    expect(idempotency).toEqual([]);
    expect(parseCampaignDocument(v2Without, 'c1')).toMatchObject({ ok: false, code: 'document_corrupt' });
    // More than the bound is not a document this build wrote: it fails closed.
    const tooMany = Array.from({ length: IDEMPOTENCY_KEY_RETENTION + 1 }, (_, i) => record(`k${i}`, body));
    expect(parseCampaignDocument({ ...before, idempotency: tooMany }, 'needs-you')).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(parseCampaignDocument({ ...makeDoc('c1'), idempotency: tooMany }, 'c1')).toMatchObject({ ok: false, code: 'document_corrupt' });
  });
});
