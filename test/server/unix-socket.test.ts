/**
 * A sidecar deployment listens on a Unix socket instead of TCP: the same routes and the same
 * authentication, and no TCP port at all.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../adapters/logger.js';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { removeScratch } from '../fixtures/scratch.js';
import { canary } from '../fixtures/canary.js';

const KEY = canary('unix-api-key');
/** Teardown steps, registered as each resource comes to exist; run newest first, all of them. */
const cleanups: (() => Promise<unknown>)[] = [];
const onCleanup = (step: () => Promise<unknown>) => void cleanups.push(step);
afterEach(async () => {
  const failures: unknown[] = [];
  while (cleanups.length) await cleanups.pop()!().catch((e: unknown) => failures.push(e));
  if (failures.length) throw new AggregateError(failures, 'unix-socket test cleanup failed');
});

describe('Unix socket listener', () => {
  it('serves /health publicly and the API behind the key, on the socket only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-sock-'));
    onCleanup(() => removeScratch(dir));
    const socketPath = join(dir, 'argus.sock');
    const config = loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: join(dir, 'state'), ARGUS_SUPERVISOR_API_KEY: KEY, ARGUS_SUPERVISOR_SOCKET: socketPath });
    expect(config.listen).toEqual({ kind: 'unix', path: socketPath });
    const supervisor: Supervisor = await createSupervisor({ config });
    onCleanup(() => supervisor.stop());
    await supervisor.start({ heartbeat: false, initialSweep: false });
    const app = createHttpServer({ supervisor, apiKey: KEY, logger: silentLogger() });
    onCleanup(() => app.close());
    await listen(app, config.listen);
    const dispatcher = new Agent({ connect: { socketPath } });
    onCleanup(() => dispatcher.close());
    // The one listener is the socket itself: no TCP port was opened.
    expect(app.server.address()).toBe(socketPath);

    const health = await request('http://localhost/health', { dispatcher });
    expect(health.statusCode).toBe(200);
    expect(Object.keys((await health.body.json()) as object).sort()).toEqual(['sha', 'status', 'version']);

    const denied = await request(`http://localhost${API_PREFIX}/status`, { method: 'POST', dispatcher, body: '{}', headers: { 'content-type': 'application/json' } });
    expect(denied.statusCode).toBe(401);
    await denied.body.dump();

    const allowed = await request(`http://localhost${API_PREFIX}/status`, {
      method: 'POST',
      dispatcher,
      body: '{}',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    });
    expect(allowed.statusCode).toBe(200);
    expect(await allowed.body.json()).toMatchObject({ ok: true, campaigns: [], events: [] });
  });
});
