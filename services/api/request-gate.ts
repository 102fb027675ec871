/**
 * The door every request with an Idempotency-Key passes (one mutation per campaign at a time is
 * the chart's own rule, `noMutationInFlight`, judged on its context), on Stripe's contract:
 *
 * - same key, same request, first answered → that answer again, nothing re-run (also after a
 *   restart: the answers live in the campaign document, see persistence/idempotency.ts);
 * - same key, another request → 422 `idempotency_key_reused`, also when the first request named
 *   another campaign (a key belongs to one request across the whole supervisor, as Stripe's
 *   belong to one account; each campaign document keeps its own, and `indexKeys` joins them);
 * - same key while the first is still in flight → 409 `mutation_in_progress` (Stripe answers
 *   409 to a concurrent request with the same key; it neither waits nor runs it twice);
 * - an answer is kept only if the request changed the campaign (Stripe keeps a result only
 *   once the endpoint began executing): a refusal that changed nothing may be retried as is.
 *
 * What is kept is the request's outcome, as data (request id, outcome, task id, lease, error
 * code), never the campaign's view: the first answer and every replay are rendered from that
 * record, with the campaign as it is at the moment of the answer (a view kept with the record
 * would replay `allowed_actions` judged at another time).
 * @module
 */
import {
  IDEMPOTENT_ANSWER_MAX_BYTES,
  answerBytes,
  digestKey,
  digestRequest,
  findReplay,
  isValidIdempotencyKey,
  type IdempotencyRecord,
  type StoredAnswer,
} from '../../persistence/idempotency.js';
import { apiError, type ApiError } from '../contract/api-errors.js';
import type { ApiResult } from './supervisor-api.js';

export interface RequestGateDeps {
  /** The campaign's kept answers ([] when it does not exist yet); throws ApiFailure when unreadable. */
  records(campaignId: string): Promise<readonly IdempotencyRecord[]>;
  /** Stores one answer in the campaign document, unless it is already kept there. */
  remember(campaignId: string, record: IdempotencyRecord): Promise<void>;
  /** Durable writes made to this campaign so far (to tell whether a request changed it). */
  writesTo(campaignId: string): number;
  /** The campaign's view now (an answer's `campaign`); undefined when it has none. */
  liveView(campaignId: string): unknown;
  now(): Date;
  onRememberFailed(campaignId: string, error: unknown): void;
}

export { isValidIdempotencyKey };

export function createRequestGate(deps: RequestGateDeps) {
  /** Per key: the kept answers being read right now (shared), or the request running. */
  const keys = new Map<string, Promise<readonly IdempotencyRecord[]> | 'running'>();
  /** Which campaign's document keeps each key's answer, and each campaign's keys (to re-index). */
  const keyOwner = new Map<string, string>();
  const keysOf = new Map<string, readonly string[]>();

  /** Records which keys a campaign's document keeps now (call on load and after every write). */
  function indexKeys(campaignId: string, records: readonly IdempotencyRecord[]): void {
    for (const digest of keysOf.get(campaignId) ?? []) if (keyOwner.get(digest) === campaignId) keyOwner.delete(digest);
    const digests = records.map((r) => r.keyDigest);
    for (const digest of digests) keyOwner.set(digest, campaignId);
    keysOf.set(campaignId, digests);
  }

  /**
   * `work` runs at most once per key and request; see the module comment. It is handed
   * `recordOf`, which makes the record of its answer (data), to keep it in the same document
   * write as its effect (a fenced mutation does, so no crash can fall between the outcome and
   * the record); otherwise the record is kept in a write of its own right after.
   */
  async function idempotent(
    campaignId: string,
    key: string,
    request: { route: string; body: unknown },
    work: (recordOf: KeepAnswer) => Promise<ApiResult<unknown>>,
  ): Promise<ApiResult<unknown>> {
    if (!isValidIdempotencyKey(key)) {
      return fail('invalid_request', 'Idempotency-Key must be 1-255 printable ASCII characters.');
    }
    const keyDigest = digestKey(key);
    const requestDigest = digestRequest(request.route, request.body);
    const slot = keyDigest;
    const owner = keyOwner.get(keyDigest);
    if (owner !== undefined && owner !== campaignId) {
      return fail('idempotency_key_reused', 'This Idempotency-Key was first used with a different request; use a new key.');
    }
    const inFlight = () => fail('mutation_in_progress', 'A request with this Idempotency-Key is still in flight; retry when it has answered.');
    const existing = keys.get(slot);
    if (existing === 'running') return inFlight();
    // Requests that arrive together share one read of the kept answers (taken synchronously).
    const lookup = existing ?? deps.records(campaignId);
    if (!existing) keys.set(slot, lookup);
    const release = () => {
      if (keys.get(slot) === lookup) keys.delete(slot);
    };
    let earlier;
    try {
      earlier = findReplay(await lookup, keyDigest, requestDigest);
    } catch (error) {
      release();
      throw error;
    }
    if (earlier.kind === 'replay') {
      release();
      return { ...render(campaignId, earlier.answer), replayed: true };
    }
    if (earlier.kind === 'key_reused') {
      release();
      return fail('idempotency_key_reused', 'This Idempotency-Key was first used with a different request; use a new key.');
    }
    // New: only the request that started the read runs it; the others are concurrent with it.
    if (existing || keys.get(slot) !== lookup) return inFlight();
    keys.set(slot, 'running');
    const recordOf = (answer: ApiResult<unknown>): IdempotencyRecord => ({ keyDigest, requestDigest, answer: storable(answer), at: deps.now().toISOString() });
    try {
      const writesBefore = deps.writesTo(campaignId);
      const answer = await work(recordOf);
      if (deps.writesTo(campaignId) <= writesBefore) return answer;
      const record = recordOf(answer);
      // The request took effect whatever happens here; a lost record only means a retry runs anew.
      // (A record its work kept already is found there: no second write.)
      await deps.remember(campaignId, record).catch((error: unknown) => deps.onRememberFailed(campaignId, error));
      return render(campaignId, record.answer);
    } finally {
      keys.delete(slot);
    }
  }

  /** An answer from its record: the outcome as kept, the campaign as it is now. */
  function render(campaignId: string, stored: StoredAnswer): ApiResult<unknown> {
    const answer = fromStored(stored);
    const view = answer.ok ? deps.liveView(campaignId) : undefined;
    if (!answer.ok || view === undefined || typeof answer.value !== 'object' || answer.value === null) return answer;
    return { ok: true, value: { ...answer.value, campaign: view } };
  }

  return { idempotent, indexKeys };
}

export type RequestGate = ReturnType<typeof createRequestGate>;

/** The record of an answer under the request's key: plain data, for the write that keeps it. */
export type KeepAnswer = (answer: ApiResult<unknown>) => IdempotencyRecord;

const fail = (code: Parameters<typeof apiError>[0], message: string): ApiResult<never> => ({ ok: false, error: apiError(code, message) });

// Stored answers were ours when written: their codes are API codes.
const fromStored = (answer: StoredAnswer): ApiResult<unknown> =>
  answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error as ApiError };

/**
 * The outcome as kept: the answer without its campaign view (a projection, rendered again at
 * every answer), whole when it fits IDEMPOTENT_ANSWER_MAX_BYTES; else an error keeps its code and
 * the start of its message, and an outcome keeps its short fields (request id, outcome, task id,
 * action, status, lease), marked `compacted: true`.
 */
export function storable(answer: ApiResult<unknown>): StoredAnswer {
  if (!answer.ok) {
    const error = { code: answer.error.code, message: answer.error.message };
    const whole: StoredAnswer = { ok: false, error };
    return answerBytes(whole) <= IDEMPOTENT_ANSWER_MAX_BYTES ? whole : { ok: false, error: { ...error, message: error.message.slice(0, 300) } };
  }
  const { campaign: _view, ...outcome } = (answer.value ?? {}) as Record<string, unknown>;
  const whole: StoredAnswer = { ok: true, value: outcome };
  if (answerBytes(whole) <= IDEMPOTENT_ANSWER_MAX_BYTES) return whole;
  const short = Object.fromEntries(Object.entries(outcome).filter(([key, value]) => SHORT_FIELDS.has(key) && answerBytes(value) <= 200));
  return { ok: true, value: { ...short, compacted: true } };
}

const SHORT_FIELDS = new Set(['request_id', 'outcome', 'task_id', 'action', 'status', 'lease', 'mission']);
