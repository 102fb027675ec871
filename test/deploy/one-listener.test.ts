/**
 * The serving process holds exactly one listening socket, on TCP or on a Unix socket, as the
 * kernel sees it (/proc, test/deploy/listeners.ts): the API, the page, the event stream and
 * /metrics all share it. The same check is shown failing on a serve child given a second listener.
 */
import { writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { createScope, httpCall, spawnServe, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { listeningSockets, socketInodes, theOneListener } from './listeners.js';

const KEY = canary('listener-api-key');
const TOKEN = canary('listener-remote-token');
const scope = createScope();
afterEach(() => scope.dispose());

/** A connection held open to the server, so the process also has an accepted (non-listening) socket. */
async function holdConnection(to: { port: number } | { path: string }): Promise<Socket> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ ...to, ...('port' in to ? { host: '127.0.0.1' } : {}) }, () => resolve(s)).once('error', reject);
  });
  return scope.defer(socket, (s) => s.destroy());
}

/** A module preloaded into serve (NODE_OPTIONS --import) that opens one more listener. */
async function extraListener(dir: string, where: 'tcp' | 'unix'): Promise<string> {
  const file = path.join(dir, `extra-${where}-listener.mjs`);
  const target = where === 'tcp' ? "0, '127.0.0.1'" : JSON.stringify(path.join(dir, 'extra.sock'));
  await writeFile(file, `import { createServer } from 'node:net';\ncreateServer().listen(${target}).unref();\n`);
  return `--import=${pathToFileURL(file).href}`;
}

async function envFor(extra: Record<string, string> = {}) {
  const sim = await startSimulator({ token: TOKEN });
  scope.defer(sim, (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const env = { ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, OPENTRAINING_A2A_TOKEN: TOKEN, ARGUS_SUPERVISOR_API_KEY: KEY, ...extra };
  return { sim, stateRoot, env };
}

describe('one listening socket', () => {
  it('serve on TCP: one listener, on its port, while it talks to the remote and holds a client connection', async () => {
    const { sim, env } = await envFor();
    const serve = await spawnServe(scope, env, KEY);
    // Outbound (remote) and accepted (client) sockets exist too; only the listener counts.
    const [taskId] = sim.createTasks(1);
    const created = await serve.api('campaigns', { action: 'create', campaign_id: 'c1', objective: `observe ${taskId}`, remote_task_id: taskId });
    expect(created.status).toBe(200);
    expect((await serve.api('campaign_action', { campaign_id: 'c1', action: 'observe' })).status).toBe(200);
    const port = Number(new URL(serve.address).port);
    await holdConnection({ port });
    expect((await httpCall(`${serve.address}/health`)).status).toBe(200);

    expect(socketInodes(serve.pid).size).toBeGreaterThanOrEqual(2);
    expect(theOneListener(serve.pid)).toMatchObject({ kind: 'tcp', port });
  });

  it('serve on a Unix socket: one listener, the socket, and no TCP port', async () => {
    const dir = await tempStateRoot(scope);
    const socketPath = path.join(dir, 'argus.sock');
    const { env } = await envFor({ ARGUS_SUPERVISOR_SOCKET: socketPath });
    const serve = await spawnServe(scope, env, KEY);
    expect(serve.address).toBe(socketPath);
    await holdConnection({ path: socketPath });

    expect(socketInodes(serve.pid).size).toBeGreaterThanOrEqual(2);
    expect(theOneListener(serve.pid)).toMatchObject({ kind: 'unix', path: socketPath });
  });

  it.each([
    ['on TCP, with a second TCP listener', 'tcp', false],
    ['on a Unix socket, with a TCP listener beside it', 'tcp', true],
    ['on TCP, with a Unix listener beside it', 'unix', false],
  ] as const)('fails for serve %s', async (_label, where, onSocket) => {
    const dir = await tempStateRoot(scope);
    const socketPath = path.join(dir, 'argus.sock');
    const { env } = await envFor({ NODE_OPTIONS: await extraListener(dir, where), ...(onSocket ? { ARGUS_SUPERVISOR_SOCKET: socketPath } : {}) });
    const serve = await spawnServe(scope, env, KEY);
    const found = listeningSockets(serve.pid);
    expect(found).toHaveLength(2);
    expect(found.map((l) => l.kind).sort()).toEqual((onSocket || where === 'unix' ? ['tcp', 'unix'] : ['tcp', 'tcp']).sort());
    expect(() => theOneListener(serve.pid)).toThrow(/expected exactly one listening socket in process \d+, found 2/);
  });
});
