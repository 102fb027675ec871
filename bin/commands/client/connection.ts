/**
 * How the CLI client reaches a running `serve`: `ARGUS_SUPERVISOR_URL` (default
 * http://127.0.0.1:7860) or, when only `ARGUS_SUPERVISOR_SOCKET` is set, that Unix socket; the
 * key from `ARGUS_SUPERVISOR_API_KEY` or the local key file `serve` wrote under
 * `ARGUS_SUPERVISOR_STATE_ROOT` (default ./.argus-supervisor). The key goes in the `X-API-KEY`
 * header and nowhere else: no message of the client ever contains it.
 *
 * Failures are `ClientError`s with a stable code, printed as one line `<code>: <message>`:
 * the API's own codes, `server_unreachable` (nothing answers), `invalid_response` (something
 * answered that is not the supervisor's JSON), `api_key_missing` / `local_key_unsafe`.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { localKeyPath, readLocalKey } from '../../../services/runtime/local-key.js';
import { StartupFailure } from '../../../services/runtime/startup-failure.js';

export const API_PREFIX = '/api/plugins/argus_supervisor';
export const DEFAULT_URL = 'http://127.0.0.1:7860';
/** What a masked key looks like, should one ever have to be shown. */
export const MASKED_KEY = '************';

export class ClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** 2 for a usage error, 1 for everything else. */
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export interface Target {
  /** For messages: the URL, or `unix:<path>`. */
  label: string;
  url: URL;
  socketPath: string | null;
}

export interface Connection {
  target: Target;
  /** `POST <API_PREFIX>/<route>` with a JSON body; resolves to the answer's body on `ok: true`. */
  post(route: string, body: unknown, headers?: Record<string, string>): Promise<Record<string, any>>;
  /** A raw GET (the event stream); the caller reads the response. */
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<http.IncomingMessage>;
}

/** How one run reaches the server: `--url` wins over the environment; `--timeout` bounds each wait. */
export interface ConnectOptions {
  url?: string | undefined;
  /** Connecting and the first byte of each answer (a followed stream is not timed out after that). */
  timeoutMs?: number | undefined;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

export function resolveTarget(env: NodeJS.ProcessEnv, flagUrl?: string): Target {
  const raw = flagUrl?.trim() || env.ARGUS_SUPERVISOR_URL?.trim();
  const name = flagUrl?.trim() ? '--url' : 'ARGUS_SUPERVISOR_URL';
  const socket = env.ARGUS_SUPERVISOR_SOCKET?.trim();
  if (!raw && socket) return { label: `unix:${socket}`, url: new URL('http://localhost'), socketPath: socket };
  let url: URL;
  try {
    url = new URL(raw || DEFAULT_URL);
  } catch {
    throw new ClientError('usage', `${name} is not a valid URL`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientError('usage', `${name} must be http(s)`, 2);
  // A credential belongs in the key variable, never in a URL that ends up in messages.
  if (url.username || url.password) throw new ClientError('usage', `${name} must not embed a credential (use ARGUS_SUPERVISOR_API_KEY)`, 2);
  const base = new URL(url.origin + url.pathname.replace(/\/+$/, ''));
  return { label: base.toString().replace(/\/$/, ''), url: base, socketPath: null };
}

/** The key: the environment's, else the local key file of the state root. */
export async function resolveKey(env: NodeJS.ProcessEnv): Promise<string> {
  const fromEnv = env.ARGUS_SUPERVISOR_API_KEY;
  if (fromEnv) return fromEnv;
  const file = localKeyPath(path.resolve(env.ARGUS_SUPERVISOR_STATE_ROOT || './.argus-supervisor'));
  let key: string | null;
  try {
    key = await readLocalKey(file);
  } catch (error) {
    if (error instanceof StartupFailure) throw new ClientError(error.code, error.message);
    throw new ClientError('api_key_missing', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (key === null) {
    throw new ClientError('api_key_missing', `set ARGUS_SUPERVISOR_API_KEY, or ARGUS_SUPERVISOR_STATE_ROOT to the state root of a local serve (no ${file})`);
  }
  return key;
}

export async function connect(env: NodeJS.ProcessEnv = process.env, opts: ConnectOptions = {}): Promise<Connection> {
  const target = resolveTarget(env, opts.url);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const key = await resolveKey(env);
  const request = (method: 'GET' | 'POST', pathAndQuery: string, headers: Record<string, string>, body?: string) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const url = new URL(target.url.pathname.replace(/\/$/, '') + pathAndQuery, target.url);
      const options: http.RequestOptions = {
        method,
        headers: { 'x-api-key': key, ...headers, ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
        ...(target.socketPath ? { socketPath: target.socketPath, path: url.pathname + url.search } : {}),
      };
      const lib = url.protocol === 'https:' ? https : http;
      const req = target.socketPath ? http.request(options, resolve) : lib.request(url, options, resolve);
      // Connecting and the first byte of the answer; a followed stream is not timed out after that.
      let timedOut = false;
      req.setTimeout(timeoutMs, () => {
        timedOut = true;
        req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' }));
      });
      req.on('response', () => req.setTimeout(0));
      req.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          timedOut
            ? new ClientError('server_timeout', `${target.label} did not answer within ${timeoutMs / 1000} s (--timeout)`)
            : new ClientError('server_unreachable', `${target.label} (${error.code ?? error.message})`),
        ),
      );
      req.end(body);
    });
  return {
    target,
    async post(route, body, headers = {}) {
      const res = await request('POST', `${API_PREFIX}/${route}`, headers, JSON.stringify(body));
      return answerOf(res, target);
    },
    get: (pathAndQuery, headers = {}) => request('GET', pathAndQuery, { accept: 'text/event-stream', ...headers }),
  };
}

/** The body of an `ok: true` answer, or the API's error as a ClientError. */
export async function answerOf(res: http.IncomingMessage, target: Target): Promise<Record<string, any>> {
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk as string;
  let json: Record<string, any>;
  try {
    json = JSON.parse(text) as Record<string, any>;
  } catch {
    throw new ClientError('invalid_response', `${target.label} answered HTTP ${res.statusCode} with a body that is not JSON; is it argus-supervisor?`);
  }
  if (json.ok === true) return json;
  const error = json.error as { code?: unknown; message?: unknown } | undefined;
  if (json.ok === false && typeof error?.code === 'string') throw new ClientError(error.code, typeof error.message === 'string' ? error.message : '');
  throw new ClientError('invalid_response', `${target.label} answered HTTP ${res.statusCode} without the API's shape`);
}
