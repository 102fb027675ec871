/**
 * Logout ends the session's event stream at once, not at the next liveness check (every 15 s by
 * default): after "Log out" the connection must not keep carrying campaign views.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../server/http-server.js';
import { openSse } from '../cli/sse.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { login, post, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
let w: SessionWorld;
beforeEach(async () => {
  w = await startSessionWorld(scope);
});

describe('logout and the event stream', () => {
  it("closes the session's open stream within a second, and leaves another session's open", async () => {
    const mine = await login(w);
    const other = await login(w);
    const stream = async (cookie: string) => {
      const s = scope.defer(await openSse(`${w.base}${API_PREFIX}/events`, { cookie }), (x) => x.close());
      expect(s.status).toBe(200);
      await s.next((f) => f.event === 'hello', 2000);
      return s;
    };
    const a = await stream(mine.cookie);
    const b = await stream(other.cookie);
    let bClosed = false;
    void b.closed.then(() => (bClosed = true));
    const out = await post(w, '/ui/logout', {}, { cookie: mine.cookie, 'x-csrf-token': mine.csrf });
    expect(out.status).toBe(200);
    const closed = await Promise.race([a.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open after 1 s'), 1000))]);
    expect(closed).toBe('closed');
    expect(bClosed).toBe(false);
  });
});
