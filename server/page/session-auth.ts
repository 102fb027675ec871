/**
 * Who may call a protected route: an API client with the key (`X-API-KEY` / Bearer, exactly as
 * before: no cookie, no CSRF token), or the operator page with a live session cookie. A page
 * request that changes anything (every method but GET/HEAD) must also carry the session's CSRF
 * token in `X-CSRF-Token`: the cookie rides along on any request the browser makes, the token
 * only on those our own page script makes (SameSite=Strict is the second lock, not the only one).
 * @module
 */
import { maxHeaderSize, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { presentedKey } from '../auth.js';
import type { GuardedKeyCheck } from '../auth-throttle.js';
import { SESSION_COOKIE, tokensEqual, type Session, type SessionStore } from './sessions.js';

export type AuthOutcome =
  | { ok: true; via: 'key' }
  | { ok: true; via: 'session'; sessionId: string; session: Session }
  | { ok: false; status: 401 | 403; code: 'unauthorized' | 'csrf_required' | 'csrf_invalid'; message: string }
  | { ok: false; status: 429; code: 'too_many_attempts'; message: string; retryAfterSeconds: number };

/** A client in back-off (server/auth-throttle.ts): its key was not compared. */
export const tooManyAttempts = (retryAfterSeconds: number): Extract<AuthOutcome, { status: 429 }> => ({
  ok: false,
  status: 429,
  code: 'too_many_attempts',
  message: 'Too many wrong keys from this address; wait for the time in Retry-After.',
  retryAfterSeconds,
});

const UNAUTHORIZED = {
  ok: false,
  status: 401,
  code: 'unauthorized',
  message: 'A valid API key is required (X-API-KEY or Authorization: Bearer), or a page session.',
} as const;

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every well-formed value of one cookie. A page on another port of this host or a sibling
 * subdomain can plant cookies of the same name, many of them, and the browser may send them
 * first: the real one must still be found, however many come before it. The header is bounded
 * by the server's own header limit (Node answers 431 above it), so reading all of it is bounded
 * too. Only our own cookie is read; others are ignored unparsed.
 */
export function cookieValues(headers: IncomingHttpHeaders, name: string): string[] {
  const raw = headers.cookie;
  if (typeof raw !== 'string' || raw.length > maxHeaderSize) return [];
  const values: string[] = [];
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (/^[A-Za-z0-9_-]{1,128}$/.test(value)) values.push(value);
  }
  return values;
}

/** The first value naming a live session (a planted or stale cookie beside it does not hide it). */
export function sessionOf(sessions: SessionStore, headers: IncomingHttpHeaders): { id: string; session: Session } | null {
  for (const id of cookieValues(headers, SESSION_COOKIE)) {
    const session = sessions.lookup(id);
    if (session) return { id, session };
  }
  return null;
}

/** The CSRF check of a state-changing session request; null when it passes. */
export function csrfRefusal(session: Session, headers: IncomingHttpHeaders): Extract<AuthOutcome, { ok: false }> | null {
  const presented = headers['x-csrf-token'];
  if (typeof presented !== 'string' || presented.length === 0) {
    return { ok: false, status: 403, code: 'csrf_required', message: 'A page request that changes something must carry the X-CSRF-Token header.' };
  }
  if (!tokensEqual(presented, session.csrfToken)) {
    return { ok: false, status: 403, code: 'csrf_invalid', message: 'The X-CSRF-Token header does not match this session; reload the page.' };
  }
  return null;
}

export function createRequestAuth(keyCheck: GuardedKeyCheck, sessions: SessionStore) {
  return (method: string, headers: IncomingHttpHeaders, remoteAddress: string | undefined): AuthOutcome => {
    // A presented key decides alone (an API client with a stray cookie is still a key client).
    if (presentedKey(headers) !== null) {
      const verdict = keyCheck(headers, remoteAddress);
      if (verdict.ok) return { ok: true, via: 'key' };
      return verdict.retryAfterSeconds === null ? UNAUTHORIZED : tooManyAttempts(verdict.retryAfterSeconds);
    }
    const found = sessionOf(sessions, headers);
    if (!found) {
      // No credential at all: the key check counts and logs it as `missing`.
      keyCheck(headers, remoteAddress);
      return UNAUTHORIZED;
    }
    if (!SAFE_METHODS.has(method)) {
      const refusal = csrfRefusal(found.session, headers);
      if (refusal) return refusal;
    }
    sessions.touch(found.id);
    return { ok: true, via: 'session', sessionId: found.id, session: found.session };
  };
}

/**
 * A long answer given to a session (the event stream) ends when the session does: at once on
 * logout, within `everyMs` on idle or absolute expiry. Watching does not renew the session;
 * only requests do.
 */
export function bindToSession(sessions: SessionStore, sessionId: string, res: ServerResponse, everyMs = 15_000): void {
  const timer = setInterval(() => {
    if (!sessions.lookup(sessionId)) res.destroy();
  }, everyMs);
  timer.unref();
  // Logout ends it at once; expiry is seen by the check above.
  const cancel = sessions.onEnd(sessionId, () => res.destroy());
  res.once('close', () => {
    clearInterval(timer);
    cancel();
  });
}
