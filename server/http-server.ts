/**
 * The inbound face: one listening socket (TCP or a Unix socket for a sidecar), a public
 * `/health`, authenticated JSON POST routes compatible with the original plugin, and
 * `/metrics`. Fastify because it is pino-native (docs/decisions.md).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { API_ERROR_STATUS, type ApiError } from '../services/contract/api-errors.js';
import { buildInfo } from '../services/runtime/build-info.js';
import type { ApiResult, RequestOptions, SupervisorApi } from '../services/api/supervisor-api.js';
import { isValidIdempotencyKey } from '../services/api/request-gate.js';
import { HOST_NOT_ALLOWED, createHostCheck } from './allowed-hosts.js';
import { createKeyCheck } from './auth.js';
import { AuthThrottle, guardKeyCheck, type AuthThrottleOptions } from './auth-throttle.js';
import { registerPageRoutes } from './page/page-routes.js';
import { bindToSession, createRequestAuth } from './page/session-auth.js';
import { SessionStore, type SessionOptions } from './page/sessions.js';
import { registerEventStream, type EventStreamOptions, type StreamOwner } from './event-stream.js';

export const API_PREFIX = '/api/plugins/argus_supervisor';

export interface HttpServerOptions {
  supervisor: SupervisorApi;
  apiKey: string | null;
  logger: Logger;
  /** Request bodies above this are refused before parsing. */
  bodyLimitBytes?: number;
  /** The operator page's sessions (idle/absolute lifetime, bound, clock for tests). */
  session?: SessionOptions;
  /** The statechart the page shows; the real one (services/chart) by default. */
  chartSvg?: () => Promise<string>;
  /** The live event stream's keepalive, limits and coalescing (server/event-stream.ts). */
  eventStream?: EventStreamOptions;
  /** Back-off of wrong keys per client and globally (server/auth-throttle.ts; its defaults are documented). */
  authThrottle?: AuthThrottleOptions;
  /** `ARGUS_SUPERVISOR_ALLOWED_HOSTS`: Host names a non-loopback listener answers (server/allowed-hosts.ts). */
  allowedHosts?: readonly string[];
}

// Loaded on the first chart request: the layout engine (elkjs) is not carried by a supervisor
// nobody opens the page of.
const defaultChartSvg = async (): Promise<string> => (await import('../services/chart/index.js')).chartSvg();

export function createHttpServer(opts: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger.child({ component: 'http' }) as FastifyBaseLogger,
    bodyLimit: opts.bodyLimitBytes ?? 64 * 1024,
    // Per-request lines would carry headers; errors are logged by the handlers that see them.
    logController: new LogController({ disableRequestLogging: true }),
  });
  const { supervisor } = opts;
  const keyCheck = createKeyCheck(opts.apiKey, { counter: supervisor.metrics.authFailures, logger: opts.logger.child({ component: 'auth' }) });
  // Wrong keys back off per client and globally; a client that has not failed is never slowed.
  const isAuthorized = guardKeyCheck(keyCheck, new AuthThrottle(opts.authThrottle), () => supervisor.metrics.authFailures.inc({ reason: 'throttled' }));
  const sessions = new SessionStore(opts.session);
  // An API client with the key, or the page with its session (and its CSRF token on every POST).
  const authorize = createRequestAuth(isAuthorized, sessions);

  // Fastify parses text/plain by default; the API takes JSON only, so such a body is 415 (as
  // docs/api.md says), not a 400 about a string where an object was expected.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error: { statusCode?: number; code?: string; message?: string; stack?: string }, req, reply) => {
    // Fastify's own parse/size errors become our stable shape; nothing from the body is echoed.
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    // The answer says "see its log", so the log must have it (never the request's headers or body).
    if (status >= 500) req.log.error({ route: req.routeOptions.url, err: { message: error.message, stack: error.stack } }, 'request failed');
    const code = status === 413 ? 'request_too_large' : status < 500 ? 'invalid_request' : 'internal_error';
    const message =
      status === 413
        ? 'The request body is larger than the API accepts.'
        : status === 415
          ? 'Send the request body as application/json.'
          : status < 500
            ? 'The request body is not valid JSON.'
            : 'The supervisor hit an internal error; see its log.';
    void reply.code(status).send({ ok: false, error: { code, message } });
  });

  // First of all, on every route (/health and 404s too): a rebound name learns nothing.
  const hostAllowed = createHostCheck(opts.allowedHosts ?? [], () => app.server.address());
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req.headers.host)) return reply.code(421).send(HOST_NOT_ALLOWED);
  });

  // Every answer, JSON or page or stream: a browser never sniffs a different type out of it.
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.header('x-content-type-options', 'nosniff');
    return payload;
  });

  // A deposed process is alive but useless: said so (503), so an orchestrator replaces it.
  app.get('/health', async (_req, reply) =>
    supervisor.health().hosting?.deposed ? reply.code(503).send({ status: 'not_owner', ...buildInfo() }) : { status: 'ok', ...buildInfo() },
  );

  // Unknown routes keep the API's one error shape too.
  app.setNotFoundHandler((_req, reply) => {
    void reply.code(404).send({ ok: false, error: { code: 'not_found', message: 'No such route.' } });
  });

  registerPageRoutes(app, { sessions, keyCheck: isAuthorized, chartSvg: opts.chartSvg ?? defaultChartSvg });

  // Who each authorized request came as, for the event stream's per-owner limits.
  const streamOwners = new WeakMap<IncomingMessage, StreamOwner>();
  app.register(async (protectedRoutes) => {
    protectedRoutes.addHook('onRequest', async (req, reply) => {
      const auth = authorize(req.method, req.headers, req.socket.remoteAddress);
      if (!auth.ok) {
        if (auth.status === 429) void reply.header('retry-after', String(auth.retryAfterSeconds));
        return reply.code(auth.status).send({ ok: false, error: { code: auth.code, message: auth.message } });
      }
      if (auth.via === 'session') bindToSession(sessions, auth.sessionId, reply.raw, sessions.checkEveryMs);
      streamOwners.set(req.raw, auth.via === 'session' ? { via: 'session', sessionId: auth.sessionId } : { via: 'key' });
    });

    protectedRoutes.get('/metrics', async (_req, reply) => {
      const body = await supervisor.metrics.registry.metrics();
      return reply.type(supervisor.metrics.registry.contentType).send(body);
    });

    registerEventStream(protectedRoutes, supervisor, opts.eventStream, (raw) => streamOwners.get(raw) ?? { via: 'key' });
    protectedRoutes.post(`${API_PREFIX}/health`, async () => ({ ok: true, ...supervisor.health() }));
    protectedRoutes.post(`${API_PREFIX}/status`, async () => ({ ok: true, ...supervisor.status() }));
    protectedRoutes.post(`${API_PREFIX}/campaigns`, async (req, reply) => {
      const options = requestOptions(req.headers, req.raw.rawHeaders);
      return send(reply, options.ok ? await supervisor.campaigns(req.body ?? {}, options.value) : options);
    });
    // The `history` action of `campaigns` as a GET (a link, curl, the page): a read, so no CSRF token.
    protectedRoutes.get(`${API_PREFIX}/history`, async (req, reply) => {
      const campaignId = (req.query as Record<string, unknown> | undefined)?.['campaign_id'];
      return send(reply, await supervisor.campaigns({ action: 'history', campaign_id: campaignId }));
    });
    protectedRoutes.post(`${API_PREFIX}/campaign_action`, async (req, reply) => {
      const options = requestOptions(req.headers, req.raw.rawHeaders);
      return send(reply, options.ok ? await supervisor.campaignAction(req.body ?? {}, options.value) : options);
    });
  });

  return app;
}

/**
 * The `Idempotency-Key` header (Stripe's contract, see services/api/request-gate.ts): one value of
 * 1-255 printable ASCII characters; anything else is refused before the request runs. Node joins
 * repeated header lines with `, `, so a comma (or a second line) means two keys: refused, never
 * merged into one that a later single `a, b` would replay.
 */
function requestOptions(headers: Record<string, string | string[] | undefined>, rawHeaders: string[]): ApiResult<RequestOptions> {
  const key = headers['idempotency-key'];
  if (key === undefined) return { ok: true, value: {} };
  const lines = rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'idempotency-key').length;
  if (typeof key !== 'string' || lines !== 1 || key.includes(',') || !isValidIdempotencyKey(key)) {
    return { ok: false, error: { code: 'invalid_request', message: 'Idempotency-Key must be sent once, as one value of 1-255 printable ASCII characters without a comma.' } };
  }
  return { ok: true, value: { idempotencyKey: key } };
}

function send(reply: FastifyReply, result: ApiResult<unknown>) {
  // Stripe marks an answer served from the idempotency store the same way.
  if (result.replayed) void reply.header('idempotent-replayed', 'true');
  if (result.ok) return reply.send({ ok: true, ...(result.value as object) });
  return reply.code(statusOf(result.error)).send({ ok: false, error: result.error });
}

function statusOf(error: ApiError): number {
  return API_ERROR_STATUS[error.code] ?? 400;
}

/** Starts listening on TCP or a Unix socket and resolves to a printable address. */
export async function listen(
  app: FastifyInstance,
  where: { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string },
): Promise<string> {
  if (where.kind === 'unix') return app.listen({ path: where.path });
  return app.listen({ host: where.host, port: where.port });
}
