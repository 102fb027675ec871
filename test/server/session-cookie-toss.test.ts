/**
 * Cookie tossing: any page on the same host (another port: the simulator, any local service) or
 * a sibling subdomain can set a cookie named `argus_session` that the browser then sends along
 * with ours, often first (a longer Path goes first). Such a cookie is never adopted (the server
 * only knows ids it made), and it must not shadow the real one either: that would log the
 * operator out of the page for as long as the planted cookie lives.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { get, login, post, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
let w: SessionWorld;
beforeEach(async () => {
  w = await startSessionWorld(scope);
});

describe('a planted argus_session cookie', () => {
  it('does not shadow the real session, before or after it, and is not a session by itself', async () => {
    const { cookie, csrf } = await login(w);
    const planted = 'argus_session=planted-by-a-neighbour';
    for (const jar of [`${planted}; ${cookie}`, `${cookie}; ${planted}`, `argus_session=not%20valid; ${cookie}`]) {
      const health = await post(w, 'health', {}, { cookie: jar, 'x-csrf-token': csrf });
      expect(health.status, jar).toBe(200);
      expect((await get(w, '/', { cookie: jar })).text, jar).toContain('name="csrf-token"');
    }
    expect((await post(w, 'health', {}, { cookie: planted, 'x-csrf-token': csrf })).status).toBe(401);
    expect((await get(w, '/', { cookie: planted })).text).not.toContain('csrf-token');
  });
});
