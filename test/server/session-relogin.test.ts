/**
 * A login from a browser that already holds a session replaces it: the new id is fresh (no
 * fixation) and the one the browser presented ends, so a copy of the old cookie taken before
 * the login (a shared machine, a leaked header) stops working at once, not after its idle time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { login, post, postLogin, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
let w: SessionWorld;
beforeEach(async () => {
  w = await startSessionWorld(scope);
});

describe('logging in again', () => {
  it('ends the session the browser presented, and only that one', async () => {
    const old = await login(w);
    const bystander = await login(w);
    const again = await postLogin(w, w.key, { cookie: old.cookie });
    expect(again.status).toBe(303);
    const fresh = again.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(fresh).not.toBe(old.cookie);
    expect((await post(w, 'health', {}, { cookie: old.cookie, 'x-csrf-token': old.csrf })).status).toBe(401);
    expect((await post(w, 'health', {}, { cookie: bystander.cookie, 'x-csrf-token': bystander.csrf })).status).toBe(200);
  });

  it('a failed login leaves the presented session alone', async () => {
    const mine = await login(w);
    expect((await postLogin(w, canary('relogin-wrong-key'), { cookie: mine.cookie })).status).toBe(401);
    expect((await post(w, 'health', {}, { cookie: mine.cookie, 'x-csrf-token': mine.csrf })).status).toBe(200);
  });
});
