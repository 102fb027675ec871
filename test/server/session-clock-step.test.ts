/**
 * Issue 19, defect 5: session ages are measured on a monotonic clock. A wall clock stepped back
 * 20 h (NTP, an operator, a VM restore) must not stretch the 12 h absolute limit or the idle
 * limit: the server is built with its default clocks here (no injected `now`), and only the
 * wall clock (Date) and the monotonic one (performance.now) are faked; sockets and timers are real.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpServer, listen } from '../../server/http-server.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { CHART_STUB, login, post, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(async () => {
  vi.useRealTimers();
  await scope.dispose();
});
const HOUR = 3600_000;

async function world(idleTtlMs: number): Promise<SessionWorld> {
  const key = canary('clock-step-api-key');
  const stateRoot = await tempStateRoot(scope);
  const { logger, lines } = captureLogs('trace');
  const started = await startTestSupervisor(scope, { stateRoot, apiKey: key, logger });
  const app = scope.defer(createHttpServer({ supervisor: started.supervisor, apiKey: key, logger, session: { idleTtlMs }, chartSvg: async () => CHART_STUB }), (a) => a.close());
  const base = await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 });
  return { ...started, base, key, clock: { now: 0 }, lines };
}

describe('a backward wall-clock step', () => {
  it('does not extend a session past its 12 h absolute limit', async () => {
    const w = await world(12 * HOUR);
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: Date.parse('2026-12-01T10:00:00Z') });
    const { cookie, csrf } = await login(w);
    vi.advanceTimersByTime(11 * HOUR);
    expect((await post(w, 'health', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(200);
    // The wall clock jumps back 20 h; monotonic time does not move.
    vi.setSystemTime(Date.now() - 20 * HOUR);
    vi.advanceTimersByTime(1.5 * HOUR);
    // 12.5 h since login on the monotonic clock (and -7.5 h on the wall clock).
    expect((await post(w, 'health', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(401);
  });

  it('does not extend the idle limit either', async () => {
    const w = await world(30 * 60_000);
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: Date.parse('2026-12-01T10:00:00Z') });
    const { cookie, csrf } = await login(w);
    vi.advanceTimersByTime(29 * 60_000);
    expect((await post(w, 'health', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(200);
    vi.setSystemTime(Date.now() - 20 * HOUR);
    vi.advanceTimersByTime(31 * 60_000);
    // 31 min idle on the monotonic clock, whatever the wall clock says.
    expect((await post(w, 'health', {}, { cookie, 'x-csrf-token': csrf })).status).toBe(401);
  });
});
