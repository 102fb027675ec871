/**
 * Throttling of key guesses (API key headers and the login form), per client address and
 * globally, so that an online guess of even a weak 16-character key is out of reach:
 *
 * - Per client: the first `freeFailures` (5) wrong keys cost nothing (typos); each one after
 *   that blocks the client for `baseDelayMs` (1 s) doubled per failure, at most `maxDelayMs`
 *   (10 min). While blocked, a key it presents is not even compared: `429 too_many_attempts`
 *   with `Retry-After`, so a guess learns nothing. A right key resets the client; a client is
 *   forgotten `forgetAfterMs` (1 h) after its block ends.
 * - Globally: at most `globalFailuresPerMinute` (60) wrong keys a minute from all clients
 *   together (a bucket that refills continuously). Beyond that no client gets free failures:
 *   each one's first wrong key already starts its back-off. The global budget only slows
 *   failing clients; it never refuses a client that has not failed, so the rightful key from
 *   another address is always compared at once, however busy an attacker is.
 *
 * A client is its remote address: IPv4 as is, IPv6 by its /64 (one host usually holds a whole
 * /64), a Unix socket as one client. Behind a reverse proxy every client is the proxy's address
 * (forwarded headers are not trusted: a client could write them).
 * Times are on the monotonic clock. The table is bounded (`maxClients`; the least recently
 * failing client goes first).
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { presentedKey } from './auth.js';

export interface AuthThrottleOptions {
  freeFailures?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  forgetAfterMs?: number;
  globalFailuresPerMinute?: number;
  maxClients?: number;
  /** Monotonic ms (performance.now() by default). */
  now?: () => number;
}

export const AUTH_THROTTLE_DEFAULTS = {
  freeFailures: 5,
  baseDelayMs: 1000,
  maxDelayMs: 10 * 60_000,
  forgetAfterMs: 60 * 60_000,
  globalFailuresPerMinute: 60,
  maxClients: 10_000,
} as const;

interface Client {
  failures: number;
  blockedUntil: number;
}

/** The table key of a remote address (see the module comment). */
export function clientOf(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'local';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (isIP(remoteAddress) !== 6) return remoteAddress;
  const [head = '', tail = ''] = remoteAddress.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = remoteAddress.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class AuthThrottle {
  private readonly clients = new Map<string, Client>();
  private readonly o: Required<Omit<AuthThrottleOptions, 'now'>>;
  private readonly now: () => number;
  private globalTokens: number;
  private globalAt: number;

  constructor(opts: AuthThrottleOptions = {}) {
    const { now, ...rest } = opts;
    this.o = { ...AUTH_THROTTLE_DEFAULTS, ...rest };
    this.now = now ?? (() => performance.now());
    this.globalTokens = this.o.globalFailuresPerMinute;
    this.globalAt = this.now();
  }

  /** The back-off after a client's `failures`-th wrong key (0 while within its free ones). */
  delayAfter(failures: number, free = this.o.freeFailures): number {
    if (failures <= free) return 0;
    return Math.min(this.o.baseDelayMs * 2 ** Math.min(failures - free - 1, 40), this.o.maxDelayMs);
  }

  /** Ms until this client may present a key again; 0 when it may now. */
  retryAfterMs(client: string): number {
    const c = this.clients.get(client);
    if (!c) return 0;
    const at = this.now();
    if (at >= c.blockedUntil + this.o.forgetAfterMs) {
      this.clients.delete(client);
      return 0;
    }
    return Math.max(0, Math.ceil(c.blockedUntil - at));
  }

  /** A wrong key from this client: counts it and sets its back-off. */
  failed(client: string): void {
    const at = this.now();
    const pressed = !this.takeGlobalToken(at);
    const c = this.clients.get(client) ?? { failures: 0, blockedUntil: at };
    this.clients.delete(client);
    c.failures++;
    const delay = this.delayAfter(c.failures, pressed ? 0 : this.o.freeFailures);
    c.blockedUntil = Math.max(c.blockedUntil, at + delay);
    this.clients.set(client, c);
    while (this.clients.size > this.o.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest === undefined) break;
      this.clients.delete(oldest);
    }
  }

  /** The right key: the client starts over. */
  succeeded(client: string): void {
    this.clients.delete(client);
  }

  private takeGlobalToken(at: number): boolean {
    const perMs = this.o.globalFailuresPerMinute / 60_000;
    this.globalTokens = Math.min(this.o.globalFailuresPerMinute, this.globalTokens + (at - this.globalAt) * perMs);
    this.globalAt = at;
    if (this.globalTokens < 1) return false;
    this.globalTokens--;
    return true;
  }
}

/** A key check's answer: accepted, refused (wrong or missing), or not compared at all (throttled). */
export type KeyVerdict = { ok: true } | { ok: false; retryAfterSeconds: number | null };
export type GuardedKeyCheck = (headers: IncomingHttpHeaders, remoteAddress: string | undefined) => KeyVerdict;

/**
 * The key check behind the throttle: a blocked client's key is not compared (`onThrottled`
 * counts it); a wrong key counts against its client; no key at all is no guess and only counted.
 */
export function guardKeyCheck(keyCheck: (headers: IncomingHttpHeaders) => boolean, throttle: AuthThrottle, onThrottled: () => void): GuardedKeyCheck {
  return (headers, remoteAddress) => {
    if (presentedKey(headers) === null) {
      keyCheck(headers);
      return { ok: false, retryAfterSeconds: null };
    }
    const client = clientOf(remoteAddress);
    const wait = throttle.retryAfterMs(client);
    if (wait > 0) {
      onThrottled();
      return { ok: false, retryAfterSeconds: Math.ceil(wait / 1000) };
    }
    if (keyCheck(headers)) {
      throttle.succeeded(client);
      return { ok: true };
    }
    throttle.failed(client);
    return { ok: false, retryAfterSeconds: null };
  };
}
