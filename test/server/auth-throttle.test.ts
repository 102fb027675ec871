/**
 * Issue 19, defect 1: key guessing is throttled per client address and globally. Every test
 * client connects to 127.0.0.1 from its own loopback address (`localAddress`: Linux routes all
 * of 127/8 to lo), so the server sees distinct remote addresses. Timing: only lower bounds on
 * the attacker's side; the rightful client's answer is judged by its status (never 429) and a
 * generous bound.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_THROTTLE_DEFAULTS, AuthThrottle, clientOf, type AuthThrottleOptions } from '../../server/auth-throttle.js';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, metricValue, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('throttle-api-key');
const WRONG = canary('throttle-wrong-key');

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
  ms: number;
}

async function world(authThrottle?: AuthThrottleOptions) {
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, apiKey: KEY, logger, url: null });
  const app = scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger, ...(authThrottle ? { authThrottle } : {}) }), (a) => a.close());
  const port = Number(new URL(await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).port);
  const agents = new Map<string, http.Agent>();
  /** One request from `from` (a 127/8 address), with a key header or a login form. */
  const send = (from: string, what: { key: string } | { login: string }): Promise<Answer> => {
    let agent = agents.get(from);
    if (!agent) agents.set(from, (agent = scope.defer(new http.Agent({ keepAlive: true }), (a) => a.destroy())));
    const login = 'login' in what;
    const body = login ? `api_key=${encodeURIComponent(what.login)}` : '{}';
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          localAddress: from,
          agent,
          method: 'POST',
          path: login ? '/ui/login' : `${API_PREFIX}/health`,
          headers: { 'content-type': login ? 'application/x-www-form-urlencoded' : 'application/json', ...(login ? {} : { 'x-api-key': what.key }) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text, ms: performance.now() - started }));
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  };
  return { supervisor, send };
}

/** The documented schedule (docs/api.md): the wait before the (k+1)-th compared wrong key. */
const documentedDelay = (k: number, o: { freeFailures: number; baseDelayMs: number; maxDelayMs: number }) =>
  k <= o.freeFailures ? 0 : Math.min(o.baseDelayMs * 2 ** (k - o.freeFailures - 1), o.maxDelayMs);

describe('wrong keys from one address', () => {
  it('1,000 wrong keys take at least the documented back-off (scaled to ms here), and the right key from another address answers at once', async () => {
    const scaled = { freeFailures: 5, baseDelayMs: 1, maxDelayMs: 4 };
    const w = await world(scaled);
    const started = performance.now();
    let compared = 0;
    let throttled = 0;
    // The attacker retries at once after every 429 until 1,000 wrong keys have been compared.
    for (let sent = 0; compared < 1000 && sent < 100_000; sent++) {
      const a = await w.send('127.0.0.2', { key: `${WRONG}-${compared}` });
      if (a.status === 401) compared++;
      else {
        expect(a.status).toBe(429);
        expect(JSON.parse(a.body).error.code).toBe('too_many_attempts');
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        throttled++;
      }
    }
    const elapsed = performance.now() - started;
    let documented = 0;
    for (let k = 1; k < 1000; k++) documented += documentedDelay(k, scaled);
    expect(compared).toBe(1000);
    expect(throttled).toBeGreaterThan(0);
    expect(elapsed, `1,000 compared wrong keys took ${Math.round(elapsed)} ms; the schedule says at least ${documented} ms`).toBeGreaterThanOrEqual(documented);

    const right = await w.send('127.0.0.3', { key: KEY });
    expect(right.status).toBe(200);
    expect(right.retryAfter).toBeUndefined();
    expect(right.ms).toBeLessThan(2000);
    expect(await metricValue(w.supervisor, 'argus_supervisor_auth_failures_total', { reason: 'invalid' })).toBe(1000);
    expect(await metricValue(w.supervisor, 'argus_supervisor_auth_failures_total', { reason: 'throttled' })).toBe(throttled);
  }, 120_000);

  it('with the defaults: after 5 free wrong keys the address waits 1 s, 2 s, …; 1,000 sent as fast as possible get few compared, and the right key from another address is not held up', async () => {
    const w = await world();
    const started = performance.now();
    const answers: Answer[] = [];
    for (let i = 0; i < 1000; i++) answers.push(await w.send('127.0.0.2', { key: `${WRONG}-${i}` }));
    const elapsed = performance.now() - started;
    expect(answers.slice(0, 6).map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(answers[6]).toMatchObject({ status: 429, retryAfter: '1' });
    const compared = answers.filter((a) => a.status === 401).length;
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    // Lower bound only: n compared wrong keys need the schedule's waits between them.
    let documented = 0;
    for (let k = 1; k < compared; k++) documented += documentedDelay(k, AUTH_THROTTLE_DEFAULTS);
    expect(elapsed).toBeGreaterThanOrEqual(documented);
    expect(compared).toBeLessThan(6 + Math.log2(elapsed / 1000 + 1) + 2);
    // The same address with the right key waits too (it is not compared while blocked)...
    expect((await w.send('127.0.0.2', { key: KEY })).status).toBe(429);
    // ...another address is answered at once.
    const right = await w.send('127.0.0.3', { key: KEY });
    expect(right.status).toBe(200);
    expect(right.ms).toBeLessThan(2000);
  }, 120_000);

  it('the login form is throttled the same way: 429 with Retry-After, and the right key logs in from another address', async () => {
    const w = await world();
    for (let i = 0; i < 6; i++) expect((await w.send('127.0.0.5', { login: `${WRONG}-${i}` })).status).toBe(401);
    const blocked = await w.send('127.0.0.5', { login: KEY });
    expect(blocked.status).toBe(429);
    expect(blocked.retryAfter).toBe('1');
    expect(blocked.body).toContain('Too many wrong keys');
    expect((await w.send('127.0.0.6', { login: KEY })).status).toBe(303);
  });
});

describe('the global budget', () => {
  it('once spent, no address gets free failures, but an address that has not failed is compared at once', async () => {
    const w = await world({ globalFailuresPerMinute: 20 });
    // 5 addresses × 4 wrong keys: each within its own free 5, together the whole global budget.
    for (let a = 1; a <= 5; a++) for (let i = 0; i < 4; i++) expect((await w.send(`127.0.1.${a}`, { key: `${WRONG}-${i}` })).status).toBe(401);
    // A fresh address: its first wrong key is compared, and already starts its back-off.
    expect((await w.send('127.0.2.1', { key: WRONG })).status).toBe(401);
    expect((await w.send('127.0.2.1', { key: WRONG })).status).toBe(429);
    // An address with a failure in hand (within its free 5 before) is slowed now too.
    expect((await w.send('127.0.1.1', { key: WRONG })).status).toBe(401);
    expect((await w.send('127.0.1.1', { key: WRONG })).status).toBe(429);
    // The rightful key from an address that has not failed: answered, never refused.
    const right = await w.send('127.0.2.2', { key: KEY });
    expect(right.status).toBe(200);
    expect(right.ms).toBeLessThan(2000);
  });
});

describe('the throttle table', () => {
  it('groups IPv6 by /64, maps IPv4-mapped addresses to IPv4, and forgets a client an hour after its block', () => {
    expect(clientOf('::ffff:127.0.0.9')).toBe('127.0.0.9');
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe(clientOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(clientOf('2001:db8:1:2::1')).not.toBe(clientOf('2001:db8:1:3::1'));
    expect(clientOf(undefined)).toBe('local');
    let now = 0;
    const t = new AuthThrottle({ now: () => now });
    for (let i = 0; i < 7; i++) t.failed('c');
    expect(t.retryAfterMs('c')).toBe(2000);
    expect(t.retryAfterMs('other')).toBe(0);
    now = 2000 + 60 * 60_000;
    expect(t.retryAfterMs('c')).toBe(0);
    t.failed('c');
    expect(t.retryAfterMs('c')).toBe(0); // forgotten: a free failure again
  });
});
