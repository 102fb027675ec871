/**
 * Two observability promises, read through the real /metrics endpoint:
 * - `argus_supervisor_campaigns{authority,attention}` has one sample per combination that has
 *   campaigns now, and a combination that emptied has none;
 * - every refused API request is counted in `argus_supervisor_auth_failures_total{reason}`
 *   and logged at warn at most once a minute with the count, never with the value presented.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyCheck } from '../../server/auth.js';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { NO_BACKOFF } from './session-fixture.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { attach, createScope, httpCall, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const KEY = canary('metrics-api-key');
const WRONG_KEY = canary('not-the-key');
const scope = createScope();
afterEach(() => scope.dispose());

async function served() {
  const stateRoot = await tempStateRoot(scope);
  const logs = captureLogs();
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
  // Counting and logging of refusals, not the back-off (test/server/auth-throttle.test.ts): 70 wrong keys stay 401.
  const app = scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger: logs.logger, authThrottle: NO_BACKOFF }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const metrics = async () => {
    const answer = await httpCall(`${base}/metrics`, { headers: { 'x-api-key': KEY } });
    expect(answer.status).toBe(200);
    return answer.text;
  };
  return { supervisor, base, logs, metrics };
}

/** `{ "authority/attention": value }` for every sample of the campaigns gauge. */
function gauge(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^argus_supervisor_campaigns\{authority="([^"]*)",attention="([^"]*)"\} (\d+)$/gm)) out[`${m[1]}/${m[2]}`] = Number(m[3]);
  return out;
}

describe('the campaigns gauge', () => {
  it('has a sample for every (authority, attention) with campaigns and drops a combination that emptied', async () => {
    const s = await served();
    expect(gauge(await s.metrics())).toEqual({});
    for (const id of ['c1', 'c2', 'c3']) await attach(s.supervisor, id, `task-${id}`);
    expect(gauge(await s.metrics())).toEqual({ 'observing/idle': 3 });

    expect((await s.supervisor.campaignAction({ campaign_id: 'c2', action: 'pause' })).ok).toBe(true);
    const paused = (await s.supervisor.campaigns({ action: 'get', campaign_id: 'c2' })) as { ok: true; value: { campaign: { state: string; attention: string } } };
    const pausedKey = `${paused.value.campaign.state}/${paused.value.campaign.attention}`;
    expect(pausedKey).not.toBe('observing/idle');
    expect(gauge(await s.metrics())).toEqual({ 'observing/idle': 2, [pausedKey]: 1 });

    expect((await s.supervisor.campaignAction({ campaign_id: 'c2', action: 'resume' })).ok).toBe(true);
    expect(gauge(await s.metrics())).toEqual({ 'observing/idle': 3 });
  });
});

describe('failed authentications', () => {
  it('are counted by reason and logged once per minute with the count, never with the value presented', async () => {
    const s = await served();
    const wrong = canary('wrong-api-key');
    const route = `${s.base}${API_PREFIX}/status`;
    for (let i = 0; i < 50; i++) expect((await httpCall(route, { body: {}, headers: { 'x-api-key': `${wrong}-${i}` } })).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await httpCall(route, { body: {}, headers: { authorization: `Bearer ${wrong}` } })).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await httpCall(route, { body: {} })).status).toBe(401);

    const text = await s.metrics();
    expect(text).toMatch(/^argus_supervisor_auth_failures_total\{reason="invalid"\} 70$/m);
    expect(text).toMatch(/^argus_supervisor_auth_failures_total\{reason="missing"\} 5$/m);
    const warned = s.logs.lines.filter((l) => l.includes('"auth_failed"'));
    expect(warned).toHaveLength(1); // all within a minute: the first refusal only
    expect(JSON.parse(warned[0]!)).toMatchObject({ level: 40, failures: 1 });
    expect(s.logs.lines.join('\n')).not.toContain(wrong);
  });

  it('a refusal after the minute logs the number refused since the last line', () => {
    let now = 0;
    const warnings: Record<string, unknown>[] = [];
    const counted: string[] = [];
    const check = createKeyCheck(KEY, {
      counter: { inc: ({ reason }) => void counted.push(reason) },
      logger: { warn: (obj) => void warnings.push(obj as Record<string, unknown>) },
      now: () => now,
    });
    expect(check({ 'x-api-key': KEY })).toBe(true);
    for (let i = 0; i < 10; i++) expect(check({ 'x-api-key': WRONG_KEY })).toBe(false);
    now = 59_999;
    expect(check({})).toBe(false);
    expect(warnings).toHaveLength(1);
    now = 60_000;
    expect(check({})).toBe(false);
    expect(warnings).toEqual([
      { code: 'auth_failed', failures: 1, missing: 0, invalid: 1 },
      { code: 'auth_failed', failures: 11, missing: 2, invalid: 9 },
    ]);
    expect(counted).toHaveLength(12);
  });
});
