/**
 * Issue 19, defect 2: DNS rebinding. A page on `evil.example` re-pointed at 127.0.0.1 sends
 * `Host: evil.example:PORT` (and a matching Origin); every route, `/health` and the login
 * included, must answer `421 host_not_allowed` with nothing beyond the code. The loopback names
 * with the listener's port still work; other listeners take `ARGUS_SUPERVISOR_ALLOWED_HOSTS`.
 */
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHostCheck } from '../../server/allowed-hosts.js';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { CHART_STUB } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('hosts-api-key');

interface Raw {
  status: number;
  text: string;
}

/** One request with exactly this Host header (fetch cannot set one). */
function call(to: { port: number } | { socketPath: string }, method: string, urlPath: string, host: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      { ...('port' in to ? { host: '127.0.0.1', port: to.port } : { socketPath: to.socketPath }), method, path: urlPath, setHost: false, headers: { host, ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function app(allowedHosts?: string[]) {
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, apiKey: KEY, logger });
  return scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger, chartSvg: async () => CHART_STUB, ...(allowedHosts ? { allowedHosts } : {}) }), (a) => a.close());
}

async function tcpServer(allowedHosts?: string[]): Promise<{ port: number }> {
  const address = await listen(await app(allowedHosts), { kind: 'tcp', host: '127.0.0.1', port: 0 });
  return { port: Number(new URL(address).port) };
}

async function unixServer(socketPath: string, allowedHosts?: string[]): Promise<{ socketPath: string }> {
  await listen(await app(allowedHosts), { kind: 'unix', path: socketPath });
  return { socketPath };
}

const REFUSED = { status: 421, text: '{"ok":false,"error":{"code":"host_not_allowed"}}' };

describe('the Host header on a loopback listener', () => {
  it('a rebinding name gets 421 and the code alone on every route: /health, the page, the chart, the login, the API, a 404', async () => {
    const to = await tcpServer(['evil.example']);
    const evil = `evil.example:${to.port}`;
    const origin = { origin: `http://${evil}` };
    expect(await call(to, 'GET', '/health', evil, origin)).toEqual(REFUSED);
    expect(await call(to, 'HEAD', '/health', evil, origin)).toEqual({ status: 421, text: '' });
    expect(await call(to, 'GET', '/', evil, origin)).toEqual(REFUSED);
    expect(await call(to, 'GET', '/ui/chart.svg', evil, origin)).toEqual(REFUSED);
    expect(await call(to, 'POST', '/ui/login', evil, { ...origin, 'content-type': 'application/x-www-form-urlencoded' }, `api_key=${KEY}`)).toEqual(REFUSED);
    expect(await call(to, 'POST', `${API_PREFIX}/health`, evil, { ...origin, 'x-api-key': KEY, 'content-type': 'application/json' }, '{}')).toEqual(REFUSED);
    expect(await call(to, 'GET', `${API_PREFIX}/events`, evil, { 'x-api-key': KEY })).toEqual(REFUSED);
    expect(await call(to, 'GET', '/no-such-route', evil)).toEqual(REFUSED);
    // Not even the listed name: on loopback the list does not apply.
    for (const host of [`localhost:${to.port + 1}`, 'localhost', `127.0.0.1:${to.port + 1}`, `localhost.:${to.port}`, `sub.localhost:${to.port}`, `10.0.0.1:${to.port}`, `[::2]:${to.port}`, `evil.example`, '']) {
      expect(await call(to, 'GET', '/health', host), host).toEqual(REFUSED);
    }
  });

  it('the loopback names and addresses with the listener port pass', async () => {
    const to = await tcpServer();
    for (const host of [`127.0.0.1:${to.port}`, `localhost:${to.port}`, `LOCALHOST:${to.port}`, `127.0.0.2:${to.port}`, `[::1]:${to.port}`]) {
      const health = await call(to, 'GET', '/health', host);
      expect(health.status, host).toBe(200);
      expect(JSON.parse(health.text).status).toBe('ok');
    }
    expect((await call(to, 'POST', `${API_PREFIX}/health`, `localhost:${to.port}`, { 'x-api-key': KEY, 'content-type': 'application/json' }, '{}')).status).toBe(200);
  });

  it('a Unix socket takes the loopback names (any port) and the listed names', async () => {
    const dir = await tempStateRoot(scope);
    const to = await unixServer(path.join(dir, 's.sock'), ['supervisor.internal']);
    expect((await call(to, 'GET', '/health', 'localhost')).status).toBe(200);
    expect((await call(to, 'GET', '/health', 'supervisor.internal:8443')).status).toBe(200);
    expect(await call(to, 'GET', '/health', 'evil.example')).toEqual(REFUSED);
  });
});

describe('the Host check on other listeners (a pure function: tests listen on loopback only)', () => {
  const anyAddress = { address: '0.0.0.0', family: 'IPv4', port: 7860 };
  it('takes the loopback names with its port and the listed entries, by name or name:port', () => {
    const ok = createHostCheck(['supervisor.example.org', 'proxy.internal:8443', '10.1.2.3:7860'], () => anyAddress);
    expect(['localhost:7860', '127.0.0.1:7860', 'supervisor.example.org', 'supervisor.example.org:443', 'proxy.internal:8443', '10.1.2.3:7860'].filter((h) => !ok(h))).toEqual([]);
    expect(['localhost:80', 'evil.example:7860', 'proxy.internal:7860', '10.1.2.3:80', 'supervisor.example.org.evil:7860', undefined].filter((h) => ok(h))).toEqual([]);
  });

  it('ARGUS_SUPERVISOR_ALLOWED_HOSTS is read as a comma-separated list and checked at start-up', () => {
    const env = { ARGUS_SUPERVISOR_STATE_ROOT: '/tmp/x' };
    expect(loadConfig(env).allowedHosts).toEqual([]);
    expect(loadConfig({ ...env, ARGUS_SUPERVISOR_ALLOWED_HOSTS: 'Supervisor.Example.org, proxy.internal:8443,[fd00::1]:7860' }).allowedHosts).toEqual([
      'supervisor.example.org',
      'proxy.internal:8443',
      '[fd00::1]:7860',
    ]);
    for (const bad of ['*', 'http://x', 'a b', 'x:99999', 'x,,y']) {
      expect(() => loadConfig({ ...env, ARGUS_SUPERVISOR_ALLOWED_HOSTS: bad }), bad).toThrow(/ARGUS_SUPERVISOR_ALLOWED_HOSTS/);
    }
  });
});
