/**
 * Page sessions end: after 30 idle minutes (sliding: each accepted request renews it), 12 hours
 * after login whatever the use, when the count bound drops the least recently used one, and
 * with a shorter idle lifetime from ARGUS_SUPERVISOR_SESSION_TTL_SECONDS. The clock is injected.
 */
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { bindToSession } from '../../server/page/session-auth.js';
import { SessionStore } from '../../server/page/sessions.js';
import { ConfigError, loadConfig } from '../../services/config/config.js';
import { createScope, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { get, login, post, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());

const MIN = 60_000;
const alive = async (w: SessionWorld, s: { cookie: string; csrf: string }) => (await post(w, 'status', {}, { cookie: s.cookie, 'x-csrf-token': s.csrf })).status;

describe('session lifetime', () => {
  it('idle: 30 minutes without a request ends it; each accepted request renews it', async () => {
    const w = await startSessionWorld(scope);
    const s = await login(w);
    w.clock.now += 29 * MIN;
    expect(await alive(w, s)).toBe(200); // renewed at minute 29
    w.clock.now += 29 * MIN;
    expect(await alive(w, s)).toBe(200); // 58 minutes after login, 29 after the last use
    w.clock.now += 30 * MIN;
    expect(await alive(w, s)).toBe(401);
    // Gone for good: the page is the login form again.
    w.clock.now -= 10 * MIN;
    expect((await get(w, '/', { cookie: s.cookie })).text).toContain('action="/ui/login"');
  });

  it('a refused request (no CSRF token) does not renew it', async () => {
    const w = await startSessionWorld(scope);
    const s = await login(w);
    w.clock.now += 20 * MIN;
    expect((await post(w, 'status', {}, { cookie: s.cookie })).status).toBe(403);
    w.clock.now += 11 * MIN;
    expect(await alive(w, s)).toBe(401);
  });

  it('absolute: 12 hours after login it ends even while in use', async () => {
    const w = await startSessionWorld(scope);
    const s = await login(w);
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      w.clock.now += 20 * MIN;
      expect(await alive(w, s), `minute ${minutes}`).toBe(200);
    }
    w.clock.now += 20 * MIN; // 12 h
    expect(await alive(w, s)).toBe(401);
  });

  it('GET / renews the idle period too (the page open in a tab)', async () => {
    const w = await startSessionWorld(scope);
    const s = await login(w);
    w.clock.now += 25 * MIN;
    expect((await get(w, '/', { cookie: s.cookie })).text).toContain('csrf-token');
    w.clock.now += 25 * MIN;
    expect(await alive(w, s)).toBe(200);
  });

  it('the count is bounded: the least recently used session is dropped first', async () => {
    const w = await startSessionWorld(scope, { maxSessions: 2 });
    const a = await login(w);
    w.clock.now += MIN;
    const b = await login(w);
    w.clock.now += MIN;
    expect(await alive(w, a)).toBe(200); // a is now more recent than b
    const c = await login(w);
    expect([await alive(w, a), await alive(w, b), await alive(w, c)]).toEqual([200, 401, 200]);
  });
});

describe('ARGUS_SUPERVISOR_SESSION_TTL_SECONDS', () => {
  it('defaults to 1800 and takes 60-43200', async () => {
    const root = await tempStateRoot(scope);
    expect(loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: root }).sessionTtlSeconds).toBe(1800);
    expect(loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_SESSION_TTL_SECONDS: '120' }).sessionTtlSeconds).toBe(120);
    for (const bad of ['59', '43201', 'soon', '1.5']) {
      let error: unknown;
      try {
        loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_SESSION_TTL_SECONDS: bad });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).lines()).toEqual(['config_invalid: ARGUS_SUPERVISOR_SESSION_TTL_SECONDS must be a whole number from 60 to 43200']);
    }
  });

  it('a shorter idle lifetime ends the session sooner', async () => {
    const w = await startSessionWorld(scope, { idleTtlMs: 120_000 });
    const s = await login(w);
    w.clock.now += 110_000;
    expect(await alive(w, s)).toBe(200);
    w.clock.now += 121_000;
    expect(await alive(w, s)).toBe(401);
  });
});

describe('a long answer given to a session', () => {
  it('ends when the session ends (an open event stream does not outlive logout or expiry)', async () => {
    let now = 0;
    const sessions = new SessionStore({ now: () => now });
    const a = sessions.create().id;
    const b = sessions.create().id;
    const server = scope.defer(
      createServer((req, res) => {
        bindToSession(sessions, req.url === '/a' ? a : b, res, 10);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n');
      }),
      (s) => new Promise((resolve) => s.close(resolve)),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const open = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      const reader = res.body!.getReader();
      await reader.read(); // the first comment
      return reader.read().then(
        () => 'ended',
        () => 'ended',
      );
    };
    const endedA = open('/a');
    const endedB = open('/b');
    await new Promise((r) => setTimeout(r, 50));
    sessions.end(a); // logout
    expect(await endedA).toBe('ended');
    let bEnded = false;
    void endedB.then(() => (bEnded = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(bEnded).toBe(false); // the other session's stream stays open
    now += 31 * MIN; // idle expiry
    expect(await endedB).toBe('ended');
    server.closeAllConnections();
  });
});
