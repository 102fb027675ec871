/**
 * The operator page's session over real loopback HTTP: the login form, the cookie it sets (and
 * that it is not the key), the CSRF token every state-changing session request needs, the
 * login's same-origin rule, logout, the page's security headers, and API-key clients exactly
 * as before (no cookie, no CSRF token).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope, metricValue } from '../fixtures/supervisor-harness.js';
import { CHART_STUB, get, login, post, postLogin, startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
let w: SessionWorld;
beforeEach(async () => {
  w = await startSessionWorld(scope);
});

const failures = (reason: 'missing' | 'invalid') => metricValue(w.supervisor, 'argus_supervisor_auth_failures_total', { reason });

describe('login', () => {
  it('GET / without a session is the login form, with the page security headers', async () => {
    const page = await get(w, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<form method="post" action="\/ui\/login"/);
    expect(page.text).toMatch(/<input id="api_key" name="api_key" type="password"/);
    expect(page.text).toMatch(/<label for="api_key">/);
    expect(page.text).not.toContain('csrf-token');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script anywhere
  });

  it('a wrong key answers the login page again with one sentence and 401, and counts as an auth failure', async () => {
    const before = await failures('invalid');
    const wrong = canary('page-wrong-key');
    const res = await postLogin(w, wrong);
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
    const error = /<p class="error" role="alert" id="login-error">([^<]+)<\/p>/.exec(res.text)?.[1];
    expect(error).toBe('That key was not accepted; check it and try again.');
    expect(res.text).toMatch(/<form method="post" action="\/ui\/login"/);
    expect(res.text.includes(wrong)).toBe(false);
    expect(await failures('invalid')).toBe(before + 1);
    // An empty key is a missing credential.
    const missingBefore = await failures('missing');
    expect((await postLogin(w, '')).status).toBe(401);
    expect(await failures('missing')).toBe(missingBefore + 1);
  });

  it('the right key sets an HttpOnly SameSite=Strict session cookie (not the key) and redirects 303 to /', async () => {
    const res = await postLogin(w, w.key);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair, ...attrs] = cookies[0]!.split(';').map((s) => s.trim());
    const [name, value] = pair!.split('=');
    expect(name).toBe('argus_session');
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    expect(attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(cookies[0]!.includes(w.key)).toBe(false);
    expect(Buffer.from(value!, 'base64url').toString('latin1').includes(w.key)).toBe(false);
    // Two logins are two sessions.
    const other = (await postLogin(w, w.key)).headers.getSetCookie()[0]!.split(';')[0];
    expect(other).not.toBe(pair);
  });

  it('with the session, GET / is the application page with a CSRF meta tag and never the key', async () => {
    const { cookie, csrf } = await login(w);
    const page = await get(w, '/', { cookie });
    expect(page.status).toBe(200);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.text).toContain('<script type="module" src="/ui/static/app.js"></script>');
    expect(page.text).toContain('id="campaign-rows"');
    expect(page.text.includes(w.key)).toBe(false);
    expect(cookie.includes(csrf)).toBe(false);
  });

  it('refuses a login posted from another origin, and accepts its own origin', async () => {
    const foreign = await postLogin(w, w.key, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.getSetCookie()).toEqual([]);
    expect(foreign.text).toContain('Log in from the supervisor’s own page.');
    expect((await postLogin(w, w.key, { origin: 'null' })).status).toBe(403);
    expect((await postLogin(w, w.key, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // Another port of this host is the same site, not the same origin.
    const otherPort = `http://127.0.0.1:${Number(new URL(w.base).port) + 1}`;
    expect((await postLogin(w, w.key, { origin: otherPort })).status).toBe(403);
    expect((await postLogin(w, w.key, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await postLogin(w, w.key, { origin: w.base })).status).toBe(303);
    // What Chromium sends for its own form under Referrer-Policy: no-referrer.
    expect((await postLogin(w, w.key, { origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(303);
  });

  it('takes only a form post, and only a small one', async () => {
    const json = await fetch(`${w.base}/ui/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: w.key }) });
    expect(json.status).toBe(415);
    const big = await fetch(`${w.base}/ui/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `api_key=${'a'.repeat(5000)}`,
    });
    expect(big.status).toBe(413);
    // The API routes still refuse a form body.
    const { cookie, csrf } = await login(w);
    const form = await fetch(`${w.base}/api/plugins/argus_supervisor/campaigns`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=list',
    });
    expect(form.status).toBe(415);
  });
});

describe('CSRF', () => {
  it('a session POST needs X-CSRF-Token: missing → 403 csrf_required, wrong → 403 csrf_invalid, right → 200', async () => {
    const { cookie, csrf } = await login(w);
    const none = await post(w, 'campaigns', { action: 'list' }, { cookie });
    expect([none.status, none.json.error?.code]).toEqual([403, 'csrf_required']);
    const wrong = await post(w, 'campaigns', { action: 'list' }, { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` });
    expect([wrong.status, wrong.json.error?.code]).toEqual([403, 'csrf_invalid']);
    const empty = await post(w, 'campaigns', { action: 'list' }, { cookie, 'x-csrf-token': '' });
    expect(empty.json.error?.code).toBe('csrf_required');
    const right = await post(w, 'campaigns', { action: 'list' }, { cookie, 'x-csrf-token': csrf });
    expect([right.status, right.json.ok]).toEqual([200, true]);
    // A refused mutation changed nothing.
    const create = await post(w, 'campaigns', { action: 'create', campaign_id: 'c1', objective: 'x' }, { cookie });
    expect(create.json.error?.code).toBe('csrf_required');
    expect(w.supervisor.status().campaigns).toHaveLength(0);
  });

  it("another session's token does not pass", async () => {
    const a = await login(w);
    const b = await login(w);
    const crossed = await post(w, 'status', {}, { cookie: a.cookie, 'x-csrf-token': b.csrf });
    expect(crossed.json.error?.code).toBe('csrf_invalid');
  });

  it('a GET with the session needs no token (/metrics); without a session it is 401', async () => {
    const { cookie } = await login(w);
    const metrics = await get(w, '/metrics', { cookie });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('argus_supervisor_auth_failures_total');
    expect((await get(w, '/metrics')).status).toBe(401);
    expect((await get(w, '/metrics', { cookie: 'argus_session=AAAA' })).status).toBe(401);
  });
});

describe('API key clients are unaffected', () => {
  it('X-API-KEY or Bearer with no cookie and no CSRF token works as before', async () => {
    const byHeader = await post(w, 'campaigns', { action: 'create', campaign_id: 'k1', objective: 'by key' }, { 'x-api-key': w.key });
    expect([byHeader.status, byHeader.json.ok]).toEqual([200, true]);
    const byBearer = await post(w, 'status', {}, { authorization: `Bearer ${w.key}` });
    expect(byBearer.status).toBe(200);
    expect(byBearer.headers.getSetCookie()).toEqual([]);
  });

  it('a presented key decides alone: a wrong key with a valid session cookie is 401', async () => {
    const { cookie } = await login(w);
    const wrong = await post(w, 'status', {}, { cookie, 'x-api-key': canary('page-other-key') });
    expect([wrong.status, wrong.json.error?.code]).toEqual([401, 'unauthorized']);
    const right = await post(w, 'status', {}, { cookie, 'x-api-key': w.key });
    expect(right.status).toBe(200);
  });
});

describe('logout', () => {
  it('needs the CSRF token, ends the session and clears the cookie', async () => {
    const { cookie, csrf } = await login(w);
    const refused = await post(w, '/ui/logout', {}, { cookie });
    expect([refused.status, refused.json.error?.code]).toEqual([403, 'csrf_required']);
    expect((await post(w, 'status', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(200);
    const out = await post(w, '/ui/logout', {}, { cookie, 'x-csrf-token': csrf });
    expect([out.status, out.json.ok]).toEqual([200, true]);
    expect(out.headers.getSetCookie()[0]).toMatch(/^argus_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/);
    const after = await post(w, 'status', {}, { cookie, 'x-csrf-token': csrf });
    expect([after.status, after.json.error?.code]).toEqual([401, 'unauthorized']);
    expect((await get(w, '/', { cookie })).text).toContain('action="/ui/login"');
    expect((await post(w, '/ui/logout', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(401);
  });
});

describe('static assets', () => {
  it('serves the page script and style from the package, by bare name only, with nosniff', async () => {
    const js = await get(w, '/ui/static/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(js.text).toContain("new EventSource(api.eventsUrl)");
    expect((await get(w, '/ui/static/app.css')).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await get(w, '/ui/static/nothing.js')).status).toBe(404);
    expect((await get(w, '/ui/static/..%2Fpage-html.ts')).status).toBe(404);
    expect((await get(w, '/ui/static/%2E%2E%2F%2E%2E%2Fpackage.json')).status).toBe(404);
  });

  it("serves the chart's style block as /ui/chart.css, and the SVG alone under its own strict policy", async () => {
    const css = await get(w, '/ui/chart.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.text).toBe('.argus-chart .state>rect{fill:#fff}');
    const svg = await get(w, '/ui/chart.svg');
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toBe(CHART_STUB);
    expect(svg.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  });

  it('no page script uses innerHTML, eval or storage (strings from the API are text only)', async () => {
    for (const name of ['app.js', 'api.js', 'dom.js', 'list.js', 'detail.js', 'chart.js', 'dialog.js']) {
      const js = await get(w, `/ui/static/${name}`);
      expect(js.status, name).toBe(200);
      expect(js.text, name).not.toMatch(/\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|\beval\(|new Function|localStorage|sessionStorage|document\.cookie/);
    }
  });
});
