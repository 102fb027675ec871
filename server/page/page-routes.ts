/**
 * The operator page's own routes: `GET /` (the page, or the login form without a session),
 * `POST /ui/login` (a form post with the key; opens a session), `POST /ui/logout` (session and
 * CSRF token; ends it), `GET /ui/chart.svg` (the statechart, rendered from the machine), and the
 * static assets. Every answer carries the page's security headers.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GuardedKeyCheck } from '../auth-throttle.js';
import { appPage, loginPage } from './page-html.js';
import { SESSION_COOKIE, type SessionStore } from './sessions.js';
import { csrfRefusal, sessionOf } from './session-auth.js';
import { loadStaticAssets, type StaticAsset } from './static-assets.js';

export interface PageRoutesOptions {
  sessions: SessionStore;
  /** The API-key check (constant time, counts failures, throttled per client: server/auth-throttle.ts). */
  keyCheck: GuardedKeyCheck;
  chartSvg: () => Promise<string>;
  /** The operator overview; the shipped one from services/chart by default. */
  overviewSvg?: () => Promise<string>;
  /** Static assets; read from the package's server/page/static by default. */
  assets?: Map<string, StaticAsset>;
}

/** Largest login form accepted: a key is at most a few hundred bytes. */
export const LOGIN_BODY_LIMIT = 4096;

const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];
/** The SVG opened on its own: its own <style> applies, nothing can run. */
const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** The page's policy: nothing inline at all (the chart's style is served as /ui/chart.css). */
export const pagePolicy = (): string => [...POLICY, "style-src 'self'"].join('; ');

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** The text of every <style> element of an SVG, as CSS (the page drops the elements when it inlines the SVG). */
export function svgStyles(svg: string): string {
  return [...svg.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)]
    .map((m) => m[1]!.replace(/&(lt|gt|amp|quot|apos);/g, (_w, name: string) => XML_ENTITIES[name]!))
    .join('\n');
}

function securityHeaders(reply: FastifyReply): void {
  if (!reply.hasHeader('content-security-policy')) void reply.header('content-security-policy', pagePolicy());
  void reply
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

/**
 * True when the login comes from this server's own page. `Origin` must name this server (its
 * Host header). Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` on a form
 * post, so then `Sec-Fetch-Site` must say `same-origin`; without either header (curl, a script)
 * the request is not a browser's cross-site one. `same-site` is refused too: another port on
 * this host (the simulator, any local service) is the same site, not the same origin.
 */
function sameOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  if (origin === 'null') return site === 'same-origin';
  if (origin === undefined) return site === undefined || site === 'same-origin' || site === 'none';
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === headers.host && (site === undefined || site === 'same-origin');
  } catch {
    return false;
  }
}

const sessionCookie = (id: string) => `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`;
const clearedCookie = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

export function registerPageRoutes(app: FastifyInstance, opts: PageRoutesOptions): void {
  const { sessions, keyCheck } = opts;
  const assets = opts.assets ?? loadStaticAssets();
  const overviewSvg = opts.overviewSvg ?? (async () => (await import('../../services/chart/index.js')).overviewSvg());

  app.register(async (page) => {
    page.addHook('onSend', async (_req, reply, payload) => {
      securityHeaders(reply);
      return payload;
    });
    // Only the login route takes a form; everywhere else the API keeps refusing it (415).
    page.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: LOGIN_BODY_LIMIT }, (_req, body, done) => {
      done(null, new URLSearchParams(body as string));
    });

    const html = (reply: FastifyReply, status: number, body: string) =>
      reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);

    page.get('/', async (req, reply) => {
      const found = sessionOf(sessions, req.headers);
      // Not a warm-up of the chart here: its layout (about a second, once per process) runs on
      // the event loop and would hold up the login itself. The list shows first, the chart after.
      // `?session=ended`: the page's script came back here after a 401 (a restart, an expiry).
      const ended = (req.query as { session?: unknown }).session === 'ended';
      if (!found) return html(reply, 200, loginPage(ended ? 'Your session has ended (the supervisor restarted, or the session expired): log in again.' : null));
      sessions.touch(found.id);
      return html(reply, 200, appPage(found.session.csrfToken));
    });

    page.post('/ui/login', async (req, reply) => {
      // A login posted from another origin would log this browser in as someone else (login CSRF).
      if (!sameOrigin(req.headers)) return html(reply, 403, loginPage('Log in from the supervisor’s own page.'));
      const form = req.body instanceof URLSearchParams ? req.body : null;
      if (!form) return html(reply, 415, loginPage('Send the login form as a normal form post.'));
      const apiKey = form.get('api_key') ?? '';
      // The key check counts, throttles and rate-limits the log line of a wrong key, like any refused API call.
      const verdict = keyCheck({ 'x-api-key': apiKey }, req.socket.remoteAddress);
      if (!verdict.ok && verdict.retryAfterSeconds !== null) {
        void reply.header('retry-after', String(verdict.retryAfterSeconds));
        return html(reply, 429, loginPage(`Too many wrong keys from this address; try again in ${verdict.retryAfterSeconds} s.`));
      }
      if (!verdict.ok) return html(reply, 401, loginPage('That key was not accepted; check it and try again.'));
      // The session this browser held ends: a copy of its old cookie must not outlive the login.
      const prior = sessionOf(sessions, req.headers);
      if (prior) sessions.end(prior.id);
      const { id } = sessions.create();
      return reply.code(303).header('set-cookie', sessionCookie(id)).header('location', '/').header('cache-control', 'no-store').send();
    });

    page.post('/ui/logout', async (req, reply) => {
      const found = sessionOf(sessions, req.headers);
      if (!found) {
        return reply.code(401).header('set-cookie', clearedCookie).send({ ok: false, error: { code: 'unauthorized', message: 'There is no session to end.' } });
      }
      const refusal = csrfRefusal(found.session, req.headers);
      if (refusal) return reply.code(refusal.status).send({ ok: false, error: { code: refusal.code, message: refusal.message } });
      sessions.end(found.id);
      return reply.header('set-cookie', clearedCookie).send({ ok: true });
    });

    // The statechart is the machine's definition (docs/ carries the same file): no secret in it.
    page.get('/ui/chart.svg', async (_req, reply) => {
      const svg = await opts.chartSvg();
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', SVG_POLICY).send(svg);
    });

    // The chart's own style block as a stylesheet: inlined, the block would need 'unsafe-inline'.
    page.get('/ui/chart.css', async (_req, reply) => {
      const css = svgStyles(await opts.chartSvg());
      return reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(css);
    });

    page.get('/ui/overview.svg', async (_req, reply) => {
      const svg = await overviewSvg();
      return reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', SVG_POLICY).send(svg);
    });
    page.get('/ui/overview.css', async (_req, reply) => {
      const css = svgStyles(await overviewSvg());
      return reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(css);
    });

    // Browsers ask for /favicon.ico whatever the page links: the same icon, not a 404.
    page.get('/favicon.ico', async (_req, reply) => {
      const icon = assets.get('favicon.svg');
      if (!icon) return reply.callNotFound();
      return reply.type(icon.type).header('cache-control', 'max-age=86400').send(icon.body);
    });

    page.get('/ui/static/:name', async (req, reply) => {
      const asset = assets.get((req.params as { name: string }).name);
      if (!asset) return reply.callNotFound();
      return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
    });
  });
}
