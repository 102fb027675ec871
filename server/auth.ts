/**
 * API-key authentication: `X-API-KEY` or `Authorization: Bearer`, compared in constant time.
 * With no key configured every protected route refuses (fail closed), it never opens up.
 *
 * Every refusal is counted (`argus_supervisor_auth_failures_total{reason}`), and logged at warn
 * at most once a minute with the number of refusals since the last line — never the value
 * presented, which may be a real key sent to the wrong place or an attacker's guess.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** `missing`: no credential presented; `invalid`: one was presented and it is not the key. */
export type AuthFailureReason = 'missing' | 'invalid';

export interface AuthFailureReporting {
  counter: { inc(labels: { reason: AuthFailureReason }): void };
  logger: { warn(obj: object, msg?: string): void };
  now?: () => number;
}

export const AUTH_FAILURE_LOG_INTERVAL_MS = 60_000;

export function createKeyCheck(apiKey: string | null, reporting?: AuthFailureReporting): (headers: IncomingHttpHeaders) => boolean {
  const refused = reporting ? failureReporter(reporting) : () => undefined;
  // Hash both sides so the comparison length never depends on the presented value.
  const expected = apiKey ? digest(apiKey) : null;
  return (headers) => {
    const presented = presentedKey(headers);
    if (presented === null) {
      refused('missing');
      return false;
    }
    if (expected && timingSafeEqual(digest(presented), expected)) return true;
    refused('invalid');
    return false;
  };
}

/** Counts every refusal; logs the first, then at most one line a minute with the count since. */
function failureReporter(r: AuthFailureReporting): (reason: AuthFailureReason) => void {
  const now = r.now ?? Date.now;
  let lastLogAt: number | null = null;
  let unlogged = { missing: 0, invalid: 0 };
  return (reason) => {
    r.counter.inc({ reason });
    unlogged[reason]++;
    const at = now();
    if (lastLogAt !== null && at - lastLogAt < AUTH_FAILURE_LOG_INTERVAL_MS) return;
    const failures = unlogged.missing + unlogged.invalid;
    r.logger.warn({ code: 'auth_failed', failures, missing: unlogged.missing, invalid: unlogged.invalid }, 'API requests refused for a missing or wrong key');
    lastLogAt = at;
    unlogged = { missing: 0, invalid: 0 };
  };
}

/** The key a request presents (X-API-KEY first, then Bearer), or null when it presents none. */
export function presentedKey(headers: IncomingHttpHeaders): string | null {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.length > 0) return x;
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (m) return m[1]!.trim();
  }
  return null;
}
