/**
 * A real loopback server for the page-session tests: a supervisor (no remote), the HTTP face
 * with an injected clock, and helpers that log in with a form post and call the API with the
 * session cookie (and, when given, the CSRF token).
 */
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import type { SessionOptions } from '../../server/page/sessions.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { startTestSupervisor, tempStateRoot, type Scope, type TestSupervisor } from '../fixtures/supervisor-harness.js';

/** A throttle that never backs off, for tests about which keys are refused (the back-off has its own test). */
export const NO_BACKOFF = { freeFailures: 1_000_000, globalFailuresPerMinute: 1_000_000 } as const;

/** A stand-in statechart (the real one is tested in test/chart and the browser tests). */
export const CHART_STUB = '<svg xmlns="http://www.w3.org/2000/svg"><style>.argus-chart .state&gt;rect{fill:#fff}</style><g data-state="campaign"/></svg>';

export interface SessionWorld extends TestSupervisor {
  base: string;
  key: string;
  /** The injected clock, in ms; tests move it. */
  clock: { now: number };
  lines: string[];
}

export async function startSessionWorld(scope: Scope, session: Omit<SessionOptions, 'now'> = {}): Promise<SessionWorld> {
  const key = canary('page-api-key');
  const stateRoot = await tempStateRoot(scope);
  const { logger, lines } = captureLogs('trace');
  const started = await startTestSupervisor(scope, { stateRoot, apiKey: key, logger });
  const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
  const app = scope.defer(
    createHttpServer({ supervisor: started.supervisor, apiKey: key, logger, session: { ...session, now: () => clock.now }, chartSvg: async () => CHART_STUB }),
    (a) => a.close(),
  );
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  return { ...started, base, key, clock, lines };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: { ok?: boolean; error?: { code: string; message: string } } & Record<string, unknown>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: Answer['json'] = {};
  try {
    json = JSON.parse(text) as Answer['json'];
  } catch {
    // HTML
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POSTs the login form; `headers` may add an Origin. */
export async function postLogin(w: SessionWorld, apiKey: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${w.base}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ api_key: apiKey }).toString(),
  });
  return answer(res);
}

/** Logs in with the right key; returns the cookie pair (`argus_session=…`) and the page's CSRF token. */
export async function login(w: SessionWorld): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await postLogin(w, w.key);
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  const setCookie = res.headers.getSetCookie()[0] ?? '';
  const cookie = setCookie.split(';')[0]!;
  const page = await get(w, '/', { cookie });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)?.[1];
  if (!csrf) throw new Error('no csrf meta tag on the page');
  return { cookie, csrf, setCookie };
}

export async function get(w: SessionWorld, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return answer(await fetch(`${w.base}${path}`, { headers }));
}

/** POSTs JSON to an API route (`campaigns`, …) or a full path (`/ui/logout`). */
export async function post(w: SessionWorld, route: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const url = route.startsWith('/') ? `${w.base}${route}` : `${w.base}${API_PREFIX}/${route}`;
  return answer(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }));
}
