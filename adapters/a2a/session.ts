/**
 * A session is what discovery buys: the dialect, the JSON-RPC path and the request headers,
 * computed once so the heartbeat's hot path only serializes a body and sends it.
 * @module
 */
import type { Dialect } from './dialect.js';
import { DIALECTS } from './dialect.js';
import type { RemoteDescription } from './discovery.js';
import type { RequestHeaders } from './http.js';

export interface Session {
  readonly description: RemoteDescription;
  readonly dialect: Dialect;
  /** Origin-relative JSON-RPC path. */
  readonly rpcPath: string;
  /** Every JSON-RPC request's headers: credentials, version, extension activation. */
  readonly headers: RequestHeaders;
}

/** Visible ASCII only: anything else cannot travel in a header and would fail every request. */
export const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;

/** Credential headers; both spellings, because servers accept one or the other. */
export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}`, 'x-api-key': token } : {};
}

export function buildSession(description: RemoteDescription, token: string | undefined): Session {
  const dialect = DIALECTS[description.protocolVersion];
  const headers = Object.freeze({
    'content-type': 'application/json',
    accept: 'application/json',
    ...authHeaders(token),
    ...dialect.versionHeaders(description.controlExtension),
  });
  return { description, dialect, rpcPath: new URL(description.rpcUrl).pathname, headers };
}
