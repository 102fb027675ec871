/**
 * Failure in plain sight over the loopback API with the bundled simulator (issue 20, item 2): a
 * remote task that fails shows `health: failed` with the remote's own message (sanitized,
 * bounded); read failures go degraded → critical, and one good read brings `ok` back with the
 * last error kept; an unchanged tick after it still writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { NO_BACKOFF } from './session-fixture.js';
import { attach, createScope, httpCall, observe, startTestSupervisor, storeWrites, summaryOf, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('health-api-key');
const TOKEN = canary('health-remote-token');

async function world() {
  const sim = scope.defer(await startSimulator({ port: 0, token: TOKEN, pollsPerStage: 1 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const started = await startTestSupervisor(scope, { stateRoot, url: sim.url, token: TOKEN, apiKey: KEY, logger });
  const app = scope.defer(createHttpServer({ supervisor: started.supervisor, apiKey: KEY, logger, authThrottle: NO_BACKOFF }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const view = async (id: string) => {
    const a = await httpCall(`${base}${API_PREFIX}/campaigns`, { body: { action: 'get', campaign_id: id }, headers: { 'x-api-key': KEY } });
    expect(a.status, a.text).toBe(200);
    return (a.json as { campaign: Record<string, any> }).campaign;
  };
  return { sim, stateRoot, supervisor: started.supervisor, view };
}

describe('health in the campaign view', () => {
  it('a remote task that fails reads health: failed, with the remote’s own message', async () => {
    const { sim, supervisor, view } = await world();
    const [taskId] = sim.createTasks(1, 'failed');
    await attach(supervisor, 'oom', taskId!);
    expect((await view('oom')).health).toBe('ok');
    // prepare, train, then failed (poll 2P+1 with P = 1).
    for (let i = 0; i < 4 && (await view('oom')).remote.state !== 'failed'; i++) await observe(supervisor, 'oom');
    const c = await view('oom');
    expect(c.remote.state).toBe('failed');
    expect(c.health).toBe('failed');
    expect(c.remote.status_message).toMatch(/^Training failed at step \d+: CUDA error: out of memory/);
    expect(c.remote.status_message.length).toBeLessThanOrEqual(300);
    expect(c.consecutive_read_failures).toBe(0);
  });

  it('after a restart: failed at once (persisted), the remote’s message again from the first read, written nowhere', async () => {
    const { sim, stateRoot, supervisor, view } = await world();
    const [taskId] = sim.createTasks(1, 'failed');
    await attach(supervisor, 'oom', taskId!);
    for (let i = 0; i < 4 && (await view('oom')).remote.state !== 'failed'; i++) await observe(supervisor, 'oom');
    expect((await view('oom')).health).toBe('failed');
    await supervisor.stop();
    const again = (await startTestSupervisor(scope, { stateRoot, url: sim.url, token: TOKEN, apiKey: KEY })).supervisor;
    expect(summaryOf(again, 'oom')).toMatchObject({ health: 'failed', remote: { state: 'failed', status_message: null } });
    const before = await storeWrites(again);
    await observe(again, 'oom');
    expect(summaryOf(again, 'oom').remote.status_message).toMatch(/CUDA error: out of memory/);
    expect(await storeWrites(again)).toBe(before);
  });

  it('read failures: degraded below the threshold, critical at it, ok again after one good read', async () => {
    const { sim, supervisor, view } = await world();
    const [taskId] = sim.createTasks(1, 'steady');
    await attach(supervisor, 'flaky', taskId!);
    await observe(supervisor, 'flaky');
    expect(await view('flaky')).toMatchObject({ health: 'ok', last_error: null, consecutive_read_failures: 0 });
    expect((await view('flaky')).remote.status_message).toBeNull(); // a working task's text is noise, not shown

    sim.injectFaults({ kind: 'http-5xx', count: 3, methods: ['GetTask'] });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await supervisor.observe('flaky');
      expect(r.ok).toBe(false);
      const c = await view('flaky');
      seen.push(`${c.consecutive_read_failures}:${c.health}`);
    }
    expect(seen).toEqual(['1:degraded', '2:degraded', '3:critical']);
    const failing = await view('flaky');
    expect(failing.last_error).toEqual({ code: 'remote_http_status', sentence: 'The remote answered with an HTTP error.', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    await observe(supervisor, 'flaky');
    const healed = await view('flaky');
    expect(healed.health).toBe('ok');
    expect(healed.consecutive_read_failures).toBe(0);
    // The last error stays visible after recovery (it is the last one, not a current one).
    expect(healed.last_error.code).toBe('remote_http_status');

    // Health is projected, never stored: an unchanged read writes nothing.
    const before = await storeWrites(supervisor);
    await observe(supervisor, 'flaky');
    expect(await storeWrites(supervisor)).toBe(before);
  });
});
