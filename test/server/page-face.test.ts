/**
 * The page's own routes added for issue 20: `/favicon.ico` answers the icon (no 404 on every
 * page load), `/ui/overview.svg` and `/ui/overview.css` serve the operator overview, and the
 * login form after `?session=ended` says why the page came back (a fixed sentence; nothing
 * from the request is echoed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { get, login, startSessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('page routes', () => {
  it('serves the favicon, the overview and its stylesheet; the login form says when a session ended', async () => {
    const w = await startSessionWorld(scope);
    const icon = await get(w, '/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(icon.text).toMatch(/^<svg /);
    expect((await get(w, '/ui/static/favicon.svg')).status).toBe(200);

    const { cookie } = await login(w);
    const overview = await get(w, '/ui/overview.svg', { cookie });
    expect(overview.status).toBe(200);
    expect(overview.text).toMatch(/^<svg [^>]*class="argus-overview"/);
    const css = await get(w, '/ui/overview.css', { cookie });
    expect(css.text).toContain('.argus-overview .ov-state[data-active="true"]>rect');

    const ended = await get(w, '/?session=ended');
    expect(ended.text).toContain('Your session has ended (the supervisor restarted, or the session expired): log in again.');
    const plain = await get(w, '/?session=%3Cscript%3E');
    expect(plain.text).not.toContain('Your session has ended');
    expect(plain.text).not.toContain('<script>');
  });
});
