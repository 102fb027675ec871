/**
 * The HTTP layer: one undici Agent per client, with bounded timeouts, a response-size cap
 * enforced while streaming, and no redirects. It turns every transport failure into a
 * RemoteError whose `outcome` says whether the request could have reached the remote.
 * @module
 */
import { Agent } from 'undici';
import { err, ok, remoteError, type RemoteError, type Result, type SendOutcome, type RemoteErrorCode } from './errors.js';

export interface HttpOptions {
  /** Time allowed to open the TCP/TLS connection; nothing was sent if it runs out. */
  connectMs: number;
  /** Time allowed between sending the request and receiving the response headers. */
  headersMs: number;
  /** Idle time allowed between body chunks. */
  bodyMs: number;
  /**
   * The whole request, connect + headers + body: `bodyMs` alone bounds only the gap between
   * chunks, so a remote trickling one byte a second could hold a request for days.
   */
  overallMs: number;
  /** Largest response body accepted; undici aborts the stream once it is exceeded. */
  maxBodyBytes: number;
  /** Keep-alive sockets per origin; sized for a heartbeat sweep at ~64 concurrent polls. */
  connections: number;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  connectMs: 3_000,
  headersMs: 10_000,
  bodyMs: 10_000,
  overallMs: 30_000,
  maxBodyBytes: 1024 * 1024,
  connections: 64,
};

/** Any answer that is neither a redirect nor an auth refusal. `parsed` is false when the body is not JSON. */
export interface HttpReply {
  status: number;
  body: unknown;
  parsed: boolean;
}

export type RequestHeaders = Readonly<Record<string, string>>;

export interface HttpTransport {
  request(method: 'GET' | 'POST', path: string, headers: RequestHeaders, body?: string): Promise<Result<HttpReply>>;
  close(): Promise<void>;
}

/** undici/Node error codes by what they say about whether our bytes left. */
const TRANSPORT_CODES: Record<string, [RemoteErrorCode, SendOutcome, string]> = {
  UND_ERR_CONNECT_TIMEOUT: ['remote_timeout', 'not_sent', 'connecting to the remote timed out'],
  ECONNREFUSED: ['remote_unreachable', 'not_sent', 'the remote refused the connection'],
  ENOTFOUND: ['remote_unreachable', 'not_sent', 'the remote host name did not resolve'],
  EAI_AGAIN: ['remote_unreachable', 'not_sent', 'the remote host name could not be resolved right now'],
  EHOSTUNREACH: ['remote_unreachable', 'not_sent', 'the remote host is unreachable'],
  ENETUNREACH: ['remote_unreachable', 'not_sent', 'the remote network is unreachable'],
  EADDRNOTAVAIL: ['remote_unreachable', 'not_sent', 'no local address was available to reach the remote'],
  UND_ERR_CLOSED: ['remote_unreachable', 'not_sent', 'the A2A client is closed'],
  UND_ERR_DESTROYED: ['remote_unreachable', 'not_sent', 'the A2A client is closed'],
  UND_ERR_HEADERS_TIMEOUT: ['remote_timeout', 'ambiguous', 'the remote did not answer in time'],
  UND_ERR_BODY_TIMEOUT: ['remote_timeout', 'ambiguous', 'the remote stopped sending its answer'],
  UND_ERR_RES_EXCEEDED_MAX_SIZE: ['remote_too_large', 'ambiguous', 'the remote answer exceeded the size cap'],
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: ['remote_malformed', 'ambiguous', 'the remote answer was truncated'],
  ECONNRESET: ['remote_unreachable', 'ambiguous', 'the remote reset the connection'],
  EPIPE: ['remote_unreachable', 'ambiguous', 'the connection broke while sending'],
  UND_ERR_SOCKET: ['remote_unreachable', 'ambiguous', 'the connection to the remote failed'],
};

/** Maps a thrown transport error to a RemoteError. The raw error text is never used: it may name headers. */
export function transportError(e: unknown, signal?: AbortSignal): RemoteError {
  // Our overall deadline fired (undici reports the abort with the signal's reason or its own AbortError).
  if (signal?.aborted) return remoteError('remote_timeout', 'the remote did not finish its answer within the request deadline', 'ambiguous');
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  const known = TRANSPORT_CODES[code];
  if (known) return remoteError(known[0], known[2], known[1]);
  if (/^(ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY))/.test(code)) {
    return remoteError('remote_unreachable', 'the TLS handshake with the remote failed', 'not_sent');
  }
  // Unknown failure: we cannot prove the request did not arrive.
  return remoteError('remote_unreachable', 'the request to the remote failed', 'ambiguous');
}

/** Drains a small unwanted body so the socket can be reused; a large one is dropped with its socket. */
const discard = (body: { dump(opts?: { limit?: number }): Promise<void> }) => body.dump({ limit: 64 * 1024 }).catch(() => undefined);

const abortOnDeadline = (deadline: AbortController): void => deadline.abort(new DOMException('the request deadline passed', 'TimeoutError'));

/** Creates the transport for one origin. Paths are origin-relative; nothing else can be addressed. */
export function createHttpTransport(origin: string, opts: HttpOptions): HttpTransport {
  const agent = new Agent({
    connect: { timeout: opts.connectMs },
    headersTimeout: opts.headersMs,
    bodyTimeout: opts.bodyMs,
    maxResponseSize: opts.maxBodyBytes,
    connections: opts.connections,
    pipelining: 1,
  });

  async function request(
    method: 'GET' | 'POST',
    path: string,
    headers: RequestHeaders,
    body?: string,
  ): Promise<Result<HttpReply>> {
    // One deadline for the whole exchange: undici aborts the connect, the wait for headers and
    // the body stream with it. A plain timer, cleared when the exchange ends: `AbortSignal.timeout`
    // keeps its timer (and a weak registration) alive for the whole deadline after the answer,
    // i.e. tens of thousands of live timers per sweep of 10,000 campaigns.
    const deadline = new AbortController();
    const timer = setTimeout(abortOnDeadline, opts.overallMs, deadline);
    timer.unref();
    try {
      return await exchange(method, path, headers, body, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async function exchange(method: 'GET' | 'POST', path: string, headers: RequestHeaders, body: string | undefined, signal: AbortSignal): Promise<Result<HttpReply>> {
    let res;
    try {
      res = await agent.request({ origin, path, method, headers, body, signal });
    } catch (e) {
      return err(transportError(e, signal));
    }
    const status = res.statusCode;
    if (status >= 300 && status < 400) {
      await discard(res.body);
      return err(
        remoteError('remote_redirect_refused', `the remote answered with a ${status} redirect, which is never followed`, 'rejected', { httpStatus: status }),
      );
    }
    if (status === 401 || status === 403) {
      await discard(res.body);
      return err(remoteError('remote_auth_failed', `the remote refused the credentials (HTTP ${status})`, 'rejected', { httpStatus: status }));
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (e) {
      return err(transportError(e, signal));
    }
    try {
      return ok({ status, body: JSON.parse(text) as unknown, parsed: true });
    } catch {
      return ok({ status, body: undefined, parsed: false });
    }
  }

  return { request, close: () => agent.close() };
}
