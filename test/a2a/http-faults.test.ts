import { afterAll, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient, type A2AClientOptions, type RemoteError, type Result } from '../../adapters/a2a/index.js';
import { transportError } from '../../adapters/a2a/http.js';
import { closedPort } from '../fixtures/fault-server.js';
import { useFaultServer } from '../fixtures/fault-world.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { canary } from '../fixtures/canary.js';

const TOKEN = canary('remote-token');
const remote = useFaultServer(TOKEN);
const logs = captureLogs();
const seenErrors: RemoteError[] = [];
const clients: A2AClient[] = [];

function client(baseUrl: string, extra: Partial<A2AClientOptions> = {}): A2AClient {
  const c = createA2AClient({ baseUrl, token: TOKEN, logger: logs.logger, ...extra });
  clients.push(c);
  return c;
}

function expectError<T>(r: Result<T>): RemoteError {
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error('expected an error');
  seenErrors.push(r.error);
  return r.error;
}


afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe('JSON-RPC faults on GetTask map to stable codes and outcomes', () => {
  const table: [taskId: string, code: string, outcome: string, extra: Partial<RemoteError>][] = [
    ['http-503', 'remote_http_status', 'ambiguous', { httpStatus: 503 }],
    ['http-500', 'remote_http_status', 'ambiguous', { httpStatus: 500 }],
    ['http-404', 'remote_http_status', 'rejected', { httpStatus: 404 }],
    ['http-401', 'remote_auth_failed', 'rejected', { httpStatus: 401 }],
    ['http-403', 'remote_auth_failed', 'rejected', { httpStatus: 403 }],
    ['malformed', 'remote_malformed', 'ambiguous', {}],
    ['not-rpc', 'remote_malformed', 'ambiguous', {}],
    ['wrong-id', 'remote_malformed', 'ambiguous', {}],
    ['wrong-types', 'remote_malformed', 'ambiguous', {}],
    ['bad-control', 'remote_malformed', 'ambiguous', {}],
    ['oversized-declared', 'remote_too_large', 'ambiguous', {}],
    ['reset', 'remote_unreachable', 'ambiguous', {}],
    ['rpc--32001', 'task_not_found', 'rejected', { rpcCode: -32001 }],
    ['rpc--32050', 'lease_held', 'rejected', { rpcCode: -32050 }],
    ['rpc--32051', 'lease_stale_epoch', 'rejected', { rpcCode: -32051 }],
    ['rpc--32052', 'lease_not_held', 'rejected', { rpcCode: -32052 }],
    ['rpc--32054', 'request_id_conflict', 'rejected', { rpcCode: -32054 }],
    ['rpc--32053', 'remote_rpc_error', 'rejected', { rpcCode: -32053 }],
    ['rpc--32603', 'remote_rpc_error', 'rejected', { rpcCode: -32603 }],
    ['rpc5xx--32603', 'remote_rpc_error', 'ambiguous', { rpcCode: -32603, httpStatus: 500 }],
  ];
  it.each(table)('%s → %s (%s)', async (taskId, code, outcome, extra) => {
    const error = expectError(await client(remote.fault.base('v1')).getTask(taskId));
    expect(error).toMatchObject({ code, outcome, ...extra });
  });

  it('sanitizes remote error text: no token, no control characters, bounded length', async () => {
    const error = expectError(await client(remote.fault.base('v1')).getTask('rpc--32603'));
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(error.message.length).toBeLessThan(260);
  });

  it('never follows a redirect: the target receives nothing', async () => {
    const error = expectError(await client(remote.fault.base('v1')).getTask('redirect'));
    expect(error).toMatchObject({ code: 'remote_redirect_refused', outcome: 'rejected', httpStatus: 302 });
    expect(remote.trap.hits).toHaveLength(0);
  });

  it('aborts an oversized streamed body at the cap instead of buffering it', async () => {
    const error = expectError(await client(remote.fault.base('v1')).getTask('oversized'));
    expect(error).toMatchObject({ code: 'remote_too_large', outcome: 'ambiguous' });
    // The server saw the client hang up long before its 32 MiB were written.
    for (let i = 0; i < 100 && !remote.fault.oversized.cutEarly; i++) await new Promise((r) => setTimeout(r, 10));
    expect(remote.fault.oversized.cutEarly).toBe(true);
  });

  it('a 2 MiB answer passes when the cap is raised (the cap is the only reason)', async () => {
    const error = expectError(await client(remote.fault.base('v1'), { maxBodyBytes: 4 * 1024 * 1024 }).getTask('oversized-declared'));
    expect(error.code).toBe('remote_malformed');
  });

  it('times out on late headers as ambiguous (the request was sent)', async () => {
    const error = expectError(await client(remote.fault.base('v1'), { timeouts: { headersMs: 150 } }).getTask('slow'));
    expect(error).toMatchObject({ code: 'remote_timeout', outcome: 'ambiguous' });
  });

  it('times out on a stalled body as ambiguous', async () => {
    const error = expectError(await client(remote.fault.base('v1'), { timeouts: { bodyMs: 150 } }).getTask('slow-body'));
    expect(error).toMatchObject({ code: 'remote_timeout', outcome: 'ambiguous' });
  });

  it('ends a body trickling a byte at a time at the overall deadline, as remote_timeout (ambiguous)', async () => {
    const started = Date.now();
    const error = expectError(await client(remote.fault.base('v1'), { timeouts: { bodyMs: 150, overallMs: 400 } }).getTask('trickle'));
    expect(error).toMatchObject({ code: 'remote_timeout', outcome: 'ambiguous' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('survives a burst of 5xx and recovers on the same client', async () => {
    const c = client(remote.fault.base('v1'));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await c.getTask('burst'));
    for (const r of results.slice(0, 3)) expect(expectError(r)).toMatchObject({ code: 'remote_http_status', httpStatus: 503, outcome: 'ambiguous' });
    expect(results[3]?.ok).toBe(true);
  });
});

describe('connection-level failures', () => {
  it('a closed port is remote_unreachable and not_sent', async () => {
    const port = await closedPort();
    const c = client(`http://127.0.0.1:${port}/a2a`);
    expect(expectError(await c.discover())).toMatchObject({ code: 'remote_unreachable', outcome: 'not_sent' });
    expect(expectError(await c.getTask('t'))).toMatchObject({ code: 'remote_unreachable', outcome: 'not_sent' });
  });

  it('maps undici transport codes by whether the bytes left', () => {
    expect(transportError({ code: 'UND_ERR_CONNECT_TIMEOUT' })).toMatchObject({ code: 'remote_timeout', outcome: 'not_sent' });
    expect(transportError({ code: 'ENOTFOUND' })).toMatchObject({ code: 'remote_unreachable', outcome: 'not_sent' });
    expect(transportError({ code: 'UND_ERR_HEADERS_TIMEOUT' })).toMatchObject({ code: 'remote_timeout', outcome: 'ambiguous' });
    expect(transportError({ code: 'ECONNRESET' })).toMatchObject({ code: 'remote_unreachable', outcome: 'ambiguous' });
    expect(transportError(new Error('weird'))).toMatchObject({ code: 'remote_unreachable', outcome: 'ambiguous' });
  });

  it('a closed client answers not_sent', async () => {
    const c = client(remote.fault.base('v1'));
    expect((await c.discover()).ok).toBe(true);
    await c.close();
    expect(expectError(await c.getTask('ok'))).toMatchObject({ outcome: 'not_sent' });
  });
});

describe('discovery failures', () => {
  it.each([
    ['locked', 'remote_auth_failed'],
    ['redirect-card', 'remote_redirect_refused'],
    ['garbage-card', 'remote_malformed'],
    ['no-jsonrpc', 'remote_malformed'],
    ['nowhere', 'remote_http_status'],
  ])('%s → %s', async (variant, code) => {
    const error = expectError(await client(remote.fault.base(variant)).discover());
    expect(error.code).toBe(code);
  });

  it('stops at the first auth refusal instead of trying the other card locations', async () => {
    const before = remote.fault.requests.length;
    await client(remote.fault.base('locked')).discover();
    expect(remote.fault.requests.length - before).toBe(1);
    expect(remote.trap.hits).toHaveLength(0);
  });
});

describe('base URL validation happens before any I/O', () => {
  it.each([
    ['userinfo', (o: string) => `http://user:pw@${o.slice('http://'.length)}/v1/a2a`],
    ['token query', (o: string) => `${o}/v1/a2a?api_key=abc`],
    ['access_token query', (o: string) => `${o}/v1/a2a?access_token=abc`],
    ['embedded token', (o: string) => `${o}/v1/a2a/t-${TOKEN}`],
    ['not a URL', () => 'not a url'],
    ['ftp', () => 'ftp://127.0.0.1/a2a'],
  ])('%s is remote_url_rejected', async (_name, make) => {
    const before = remote.fault.requests.length;
    const c = client(make(remote.fault.origin));
    const error = expectError(await c.discover());
    expect(error).toMatchObject({ code: 'remote_url_rejected', outcome: 'not_sent' });
    expect(expectError(await c.getTask('ok')).code).toBe('remote_url_rejected');
    expect(remote.fault.requests.length).toBe(before);
  });
});

describe('credentials', () => {
  it('travel in both headers and never in a URL', async () => {
    expect((await client(remote.fault.base('v1')).getTask('ok')).ok).toBe(true);
    const posts = remote.fault.posts('/v1/');
    expect(posts.length).toBeGreaterThan(0);
    for (const r of remote.fault.requests) expect(r.path).not.toContain(TOKEN);
    for (const r of posts) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.headers['x-api-key']).toBe(TOKEN);
    }
  });

  it('a remote echo of the token is redacted from the excerpt, controls stripped', async () => {
    const r = await client(remote.fault.base('v1')).getTask('echo');
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.latestAgentMessageExcerpt).toBe('key=[REDACTED] reversed');
    }
  });

  it('never appear in any error or log line (checked last)', () => {
    expect(seenErrors.length).toBeGreaterThan(20);
    expect(JSON.stringify(seenErrors)).not.toContain(TOKEN);
    expect(logs.lines.length).toBeGreaterThan(10);
    expect(logs.lines.join('')).not.toContain(TOKEN);
  });
});
