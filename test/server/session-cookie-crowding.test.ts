/**
 * Issue 19, defect 4: cookie crowding. A neighbour on the same host can plant many
 * `argus_session` cookies (and pad the header with others) so that the real one comes fifth or
 * lies past 8 KiB. Every well-formed value is read, up to the server's own header limit, and the
 * first live session wins; a header the server accepts is never ignored whole.
 */
import { maxHeaderSize } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { get, login, post, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
let w: SessionWorld;
beforeEach(async () => {
  w = await startSessionWorld(scope);
});

describe('a crowded Cookie header', () => {
  it('finds the real session after four (and after forty) planted argus_session values', async () => {
    const { cookie, csrf } = await login(w);
    for (const n of [4, 40]) {
      const planted = Array.from({ length: n }, (_, i) => `argus_session=planted${i}`).join('; ');
      const jar = `${planted}; ${cookie}`;
      expect((await post(w, 'health', {}, { cookie: jar, 'x-csrf-token': csrf })).status, `${n} planted`).toBe(200);
      expect((await get(w, '/', { cookie: jar })).text, `${n} planted`).toContain('name="csrf-token"');
    }
  });

  it('finds it in a Cookie header over 8 KiB that the server still accepts', async () => {
    const { cookie, csrf } = await login(w);
    const padding = Array.from({ length: 30 }, (_, i) => `neighbour${i}=${'x'.repeat(300)}`).join('; ');
    const jar = `${padding}; argus_session=planted; ${cookie}`;
    expect(jar.length).toBeGreaterThan(8192);
    expect(jar.length).toBeLessThan(maxHeaderSize - 1024);
    expect((await post(w, 'health', {}, { cookie: jar, 'x-csrf-token': csrf })).status).toBe(200);
    expect((await get(w, '/', { cookie: jar })).text).toContain('name="csrf-token"');
    // Planted values alone are still no session.
    expect((await post(w, 'health', {}, { cookie: `${padding}; argus_session=planted`, 'x-csrf-token': csrf })).status).toBe(401);
  });
});
