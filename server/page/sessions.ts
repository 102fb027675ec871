/**
 * The operator page's sessions: in memory only (a restart logs everyone out, which is the safe
 * direction), each a random 32-byte id in an HttpOnly cookie plus a CSRF token the page gets in
 * its HTML. A session ends after an idle period (sliding: every accepted request renews it) or
 * at an absolute age, whichever comes first, or on logout. The count is bounded: the least
 * recently used session is dropped first, so a stream of logins cannot grow memory.
 *
 * The map is keyed by a hash of the id, so a lookup's timing depends on the hash, never on how
 * many characters of a real id a guess shares.
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'argus_session';
export const DEFAULT_IDLE_TTL_MS = 30 * 60_000;
export const ABSOLUTE_TTL_MS = 12 * 3600_000;
export const DEFAULT_MAX_SESSIONS = 1000;

export interface SessionOptions {
  /** Idle time after which a session ends (sliding); capped at the absolute lifetime. */
  idleTtlMs?: number;
  absoluteTtlMs?: number;
  maxSessions?: number;
  /** How often a long answer (the event stream) checks that its session is still live. */
  checkEveryMs?: number;
  /**
   * The clock sessions are aged by, in ms: monotonic (`performance.now()`) by default, so a wall
   * clock stepped back (NTP, a VM restore) cannot stretch the idle or absolute limit.
   */
  now?: () => number;
}

export interface Session {
  readonly csrfToken: string;
  /** Monotonic ms (the store's clock), for ages only. */
  readonly createdAt: number;
  lastSeenAt: number;
  /** Wall time of the login, for display only: never used to age the session. */
  readonly loggedInAt: string;
}

const hashOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('base64url');
const token = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** What ends with a session on logout (its open event streams), by hashed id. */
  private readonly enders = new Map<string, Set<() => void>>();
  readonly idleTtlMs: number;
  readonly absoluteTtlMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;
  readonly checkEveryMs: number;

  constructor(opts: SessionOptions = {}) {
    this.absoluteTtlMs = opts.absoluteTtlMs ?? ABSOLUTE_TTL_MS;
    this.idleTtlMs = Math.min(opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS, this.absoluteTtlMs);
    this.maxSessions = Math.max(1, opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
    this.now = opts.now ?? (() => performance.now());
    this.checkEveryMs = opts.checkEveryMs ?? 15_000;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session; returns the cookie value (the id) and the session. */
  create(): { id: string; session: Session } {
    this.sweep();
    while (this.sessions.size >= this.maxSessions) {
      // Map order is insertion order and `touch` re-inserts: the first key is the least recently used.
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const id = token();
    const at = this.now();
    const session: Session = { csrfToken: token(), createdAt: at, lastSeenAt: at, loggedInAt: new Date().toISOString() };
    this.sessions.set(hashOf(id), session);
    return { id, session };
  }

  /** The live session for a cookie value, or null (unknown, idle too long, or too old: then removed). */
  lookup(id: string | null): Session | null {
    if (!id) return null;
    const key = hashOf(id);
    const session = this.sessions.get(key);
    if (!session) return null;
    if (!this.alive(session, this.now())) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  /** An accepted request renews the idle period (never the absolute one). */
  touch(id: string): void {
    const key = hashOf(id);
    const session = this.sessions.get(key);
    if (!session) return;
    session.lastSeenAt = this.now();
    this.sessions.delete(key);
    this.sessions.set(key, session);
  }

  end(id: string): void {
    const key = hashOf(id);
    this.sessions.delete(key);
    const enders = this.enders.get(key);
    this.enders.delete(key);
    for (const fn of enders ?? []) fn();
  }

  /** Runs `fn` when this session is ended (logout); returns the way to cancel that. */
  onEnd(id: string, fn: () => void): () => void {
    const key = hashOf(id);
    let set = this.enders.get(key);
    if (!set) this.enders.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.enders.get(key) === set) this.enders.delete(key);
    };
  }

  private alive(s: Session, at: number): boolean {
    return at - s.lastSeenAt < this.idleTtlMs && at - s.createdAt < this.absoluteTtlMs;
  }

  /** Drops expired sessions; runs on each login, so memory never holds more than the live ones plus the bound. */
  private sweep(): void {
    const at = this.now();
    for (const [key, s] of this.sessions) if (!this.alive(s, at)) this.sessions.delete(key);
  }
}

/** Constant-time equality of two tokens (hashed first, so unequal lengths take the same time). */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
