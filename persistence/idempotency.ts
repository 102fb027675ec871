/**
 * Idempotency keys, Stripe's contract: the first answer to a mutating request is kept under
 * its `Idempotency-Key`; the same key with the same request gets that answer again (no second
 * effect, also after a restart), the same key with another request is refused. Keys are kept
 * in the campaign document (one truth), bounded: the last IDEMPOTENCY_KEY_RETENTION keys per
 * campaign, each as a digest of the key, a digest of the request and an answer of at most
 * IDEMPOTENT_ANSWER_MAX_BYTES. Neither the key nor the request body is stored. Pure.
 * @see https://docs.stripe.com/api/idempotent_requests
 * @module
 */
import { z } from 'zod';
import { digestPayload } from './payload-digest.js';

/** Keys remembered per campaign; an older key is forgotten (a retry with it runs anew). */
export const IDEMPOTENCY_KEY_RETENTION = 64;
/** Serialized size cap of one stored answer (UTF-8 bytes); the caller compacts bigger ones. */
export const IDEMPOTENT_ANSWER_MAX_BYTES = 1024;
/** Stripe's limit on the key itself. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 hex');

/** The answer as the API gave it: `{ok:true, value}` or `{ok:false, error:{code,message}}`. */
export const storedAnswerSchema = z
  .union([
    z.strictObject({ ok: z.literal(true), value: z.unknown() }),
    z.strictObject({ ok: z.literal(false), error: z.strictObject({ code: z.string().min(1), message: z.string() }) }),
  ])
  .refine((answer) => answerBytes(answer) <= IDEMPOTENT_ANSWER_MAX_BYTES, `answer larger than ${IDEMPOTENT_ANSWER_MAX_BYTES} bytes`);
export type StoredAnswer = z.infer<typeof storedAnswerSchema>;

export const idempotencyRecordSchema = z.strictObject({
  keyDigest: sha256,
  /** Digest of the route and the validated request: a different request under the key is refused. */
  requestDigest: sha256,
  answer: storedAnswerSchema,
  at: z.iso.datetime({ offset: true }),
});
export type IdempotencyRecord = z.infer<typeof idempotencyRecordSchema>;

/** Printable ASCII, 1–255 characters, no leading or trailing space. */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length <= IDEMPOTENCY_KEY_MAX_LENGTH && /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key);
}

export const answerBytes = (answer: unknown): number => Buffer.byteLength(JSON.stringify(answer) ?? '', 'utf8');

export const digestKey = (key: string): string => digestPayload({ idempotencyKey: key });

/** The request as the key binds it: which route and action, with which validated body. */
export const digestRequest = (route: string, body: unknown): string => digestPayload({ route, body });

export type Replay = { kind: 'new' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'key_reused' };

/** What an earlier request under this key decides for this one. */
export function findReplay(records: readonly IdempotencyRecord[], keyDigest: string, requestDigest: string): Replay {
  const found = records.find((record) => record.keyDigest === keyDigest);
  if (!found) return { kind: 'new' };
  return found.requestDigest === requestDigest ? { kind: 'replay', answer: found.answer } : { kind: 'key_reused' };
}

/** Appends a record (replacing none: a key is answered once) and keeps the newest N. */
export function rememberAnswer(records: readonly IdempotencyRecord[], record: IdempotencyRecord): IdempotencyRecord[] {
  if (records.some((r) => r.keyDigest === record.keyDigest)) return [...records];
  return [...records, record].slice(-IDEMPOTENCY_KEY_RETENTION);
}
