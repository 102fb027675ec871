/**
 * Plain-fetch JSON-RPC for the simulator tests: the control methods and the 0.2 dialect have
 * no SDK client, and raw responses let the tests assert exact wire shapes.
 */
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';

export interface RpcReply {
  status: number;
  headers: Headers;
  body: { jsonrpc?: string; id?: unknown; result?: any; error?: { code: number; message: string } };
}

export interface RpcOptions {
  version?: string | null;
  activate?: boolean;
  headers?: Record<string, string>;
}

let nextId = 1;

export async function rpc(endpoint: string, method: string, params: unknown, options: RpcOptions = {}): Promise<RpcReply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const version = options.version === undefined ? '1.0' : options.version;
  if (version !== null) headers['A2A-Version'] = version;
  if (options.activate !== false) {
    headers['A2A-Extensions'] = CONTROL_EXTENSION_URI;
    headers['X-A2A-Extensions'] = CONTROL_EXTENSION_URI;
  }
  const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
  const text = await response.text();
  let body: RpcReply['body'] = {};
  try {
    body = JSON.parse(text) as RpcReply['body'];
  } catch {
    body = {};
  }
  return { status: response.status, headers: response.headers, body };
}

/** The result of a successful call; fails the test with the error otherwise. */
export async function call(endpoint: string, method: string, params: unknown, options?: RpcOptions): Promise<any> {
  const reply = await rpc(endpoint, method, params, options);
  if (reply.body.error || reply.status !== 200) {
    throw new Error(`${method} failed: HTTP ${reply.status} ${JSON.stringify(reply.body.error ?? reply.body)}`);
  }
  return reply.body.result;
}

/** The error code of a call expected to fail. */
export async function errorCode(endpoint: string, method: string, params: unknown, options?: RpcOptions): Promise<number | undefined> {
  return (await rpc(endpoint, method, params, options)).body.error?.code;
}

export const authority = (controllerId: string, epoch: number, requestId: string) => ({
  [CONTROL_EXTENSION_URI]: { controllerId, epoch, requestId },
});

/** GET a JSON document (cards, admin) as `any`: tests assert on exact wire shapes. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<any> {
  return (await fetch(url, { headers })).json();
}
