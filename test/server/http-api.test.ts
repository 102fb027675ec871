/**
 * The HTTP face over real loopback: a public /health that says only {status, version, sha};
 * every /api route and /metrics behind the API key (X-API-KEY or Bearer); bad requests refused
 * with the stable `{ok:false, error:{code,message}}` shape and nothing changed; the response
 * shapes of create/get/list/status; the Prometheus series; and no secret in any body or log line.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { NO_BACKOFF } from './session-fixture.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { captureLogs } from '../fixtures/log-capture.js';
import {
  createScope,
  httpCall,
  startTestSupervisor,
  storeWrites,
  tempStateRoot,
  type HttpAnswer,
  type TestSupervisor,
} from '../fixtures/supervisor-harness.js';
import { canary } from '../fixtures/canary.js';

const scope = createScope();
afterEach(() => scope.dispose());

const KEY = canary('api-key');
const TOKEN = canary('remote-token');
const WRONG = canary('wrong-key');

interface Fixture extends TestSupervisor {
  sim: RunningSimulator;
  base: string;
  lines: string[];
  answers: HttpAnswer[];
  /** POST with the key (X-API-KEY) and remember the answer for the secret scan. */
  post(route: string, body: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  raw(url: string, init: Parameters<typeof httpCall>[1]): Promise<HttpAnswer>;
}

let f: Fixture;

beforeEach(async () => {
  const sim = scope.defer(await startSimulator({ port: 0, token: TOKEN, pollsPerStage: 2 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const { logger, lines } = captureLogs('trace');
  const started = await startTestSupervisor(scope, { stateRoot, url: sim.url, token: TOKEN, apiKey: KEY, logger });
  // These tests are about which credentials are refused, not the back-off (test/server/auth-throttle.test.ts).
  const app = scope.defer(createHttpServer({ supervisor: started.supervisor, apiKey: KEY, logger, authThrottle: NO_BACKOFF }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const answers: HttpAnswer[] = [];
  const raw = async (url: string, init: Parameters<typeof httpCall>[1]) => {
    const a = await httpCall(url, init);
    answers.push(a);
    return a;
  };
  f = {
    ...started,
    sim,
    base,
    lines,
    answers,
    raw,
    post: (route, body, headers = { 'x-api-key': KEY }) => raw(`${base}${API_PREFIX}/${route}`, { body, headers }),
  };
});

const expectError = (a: HttpAnswer, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.json).toEqual({ ok: false, error: { code, message: expect.any(String) } });
  expect(a.json.error!.message.length).toBeGreaterThan(0);
};

describe('GET /health', () => {
  it('is public and says only status, version and sha', async () => {
    const a = await f.raw(`${f.base}/health`, {});
    expect(a.status).toBe(200);
    expect(Object.keys(a.json).sort()).toEqual(['sha', 'status', 'version']);
    expect(a.json).toEqual({ status: 'ok', version: expect.any(String), sha: expect.any(String) });
  });
});

describe('authentication', () => {
  const protectedRoutes = [
    { method: 'POST' as const, path: `${API_PREFIX}/health`, body: {} },
    { method: 'POST' as const, path: `${API_PREFIX}/status`, body: {} },
    { method: 'POST' as const, path: `${API_PREFIX}/campaigns`, body: { action: 'list' } },
    { method: 'POST' as const, path: `${API_PREFIX}/campaign_action`, body: { campaign_id: 'c1', action: 'observe' } },
    { method: 'GET' as const, path: '/metrics', body: undefined },
  ];

  it('refuses every /api route and /metrics without a key or with a wrong one', async () => {
    for (const route of protectedRoutes) {
      const attempts: Record<string, string>[] = [
        {},
        { 'x-api-key': WRONG },
        { authorization: `Bearer ${WRONG}` },
        { authorization: `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}` },
        { 'x-api-key': `${KEY}x` },
        { authorization: KEY },
      ];
      for (const headers of attempts) {
        const a = await f.raw(`${f.base}${route.path}`, { method: route.method, body: route.body, headers });
        expect(a.status, `${route.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(a.json).toEqual({ ok: false, error: { code: 'unauthorized', message: expect.any(String) } });
      }
    }
    expect(await storeWrites(f.supervisor)).toBe(0);
  });

  it('accepts both X-API-KEY and Authorization: Bearer', async () => {
    for (const route of protectedRoutes.filter((r) => r.path !== `${API_PREFIX}/campaign_action`)) {
      const accepted: Record<string, string>[] = [{ 'x-api-key': KEY }, { authorization: `Bearer ${KEY}` }, { authorization: `bearer ${KEY}` }];
      for (const headers of accepted) {
        const a = await f.raw(`${f.base}${route.path}`, { method: route.method, body: route.body, headers });
        expect(a.status, `${route.path} ${JSON.stringify(headers)}`).toBe(200);
      }
    }
  });

  it('fails closed when no key is configured', async () => {
    const app = scope.defer(createHttpServer({ supervisor: f.supervisor, apiKey: null, logger: captureLogs().logger }), (a) => a.close());
    const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    expect((await httpCall(`${base}/metrics`, { headers: { 'x-api-key': KEY } })).status).toBe(401);
    expect((await httpCall(`${base}${API_PREFIX}/status`, { body: {}, headers: { authorization: 'Bearer ' } })).status).toBe(401);
    expect((await httpCall(`${base}/health`)).status).toBe(200);
  });
});

describe('bad requests', () => {
  it('are refused with a stable code and change nothing', async () => {
    const [taskId] = f.sim.createTasks(1, 'training');
    expect((await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId })).status).toBe(200);
    const writes = await storeWrites(f.supervisor);
    const statusBefore = (await f.post('status', {})).json;
    const polls = f.sim.task(taskId!)!.polls;
    const headers = { 'x-api-key': KEY };
    const campaignsUrl = `${f.base}${API_PREFIX}/campaigns`;
    const actionUrl = `${f.base}${API_PREFIX}/campaign_action`;

    expectError(await f.raw(campaignsUrl, { rawBody: '{"action":"create",', headers }), 400, 'invalid_request');
    expectError(await f.raw(actionUrl, { rawBody: 'not json', headers }), 400, 'invalid_request');
    expectError(await f.raw(actionUrl, { rawBody: '[]', headers }), 400, 'invalid_request');
    expectError(await f.raw(actionUrl, { rawBody: '"observe"', headers }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'delete', campaign_id: 'c1' }), 400, 'invalid_request');
    expectError(await f.post('campaigns', {}), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: 'c2', objective: 'o', epcoh: 3 }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: '../escape', objective: 'o' }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: '.hidden', objective: 'o' }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: 'c3', objective: '   ' }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: 'c4', objective: 'o', max_attempts: 21 }), 400, 'invalid_request');
    expectError(await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'again' }), 409, 'campaign_exists');
    expectError(await f.post('campaigns', { action: 'get', campaign_id: 'nope' }), 404, 'campaign_not_found');
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'explode' }), 400, 'invalid_request');
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'observe', force: true }), 400, 'invalid_request');
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'release', epcoh: 1 }), 400, 'invalid_request');
    expectError(await f.post('campaign_action', { campaign_id: 'a/b', action: 'observe' }), 400, 'invalid_request');
    expectError(await f.post('campaign_action', { campaign_id: 'x'.repeat(129), action: 'observe' }), 400, 'invalid_request');
    expectError(await f.post('campaign_action', { campaign_id: 'ghost', action: 'observe' }), 404, 'campaign_not_found');
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'answer', text: 'no question pending' }), 409, 'no_pending_question');
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'resume' }), 409, 'not_paused');
    expectError(await f.raw(actionUrl, { rawBody: JSON.stringify({ campaign_id: 'c1', action: 'answer', text: 'x'.repeat(70_000) }), headers }), 413, 'request_too_large');

    // No value from the request is echoed back.
    const echoed = await f.post('campaigns', { action: 'create', campaign_id: 'c5', objective: 'o', max_attempts: 'MARKER-VALUE-123' });
    expectError(echoed, 400, 'invalid_request');
    expect(echoed.text).not.toContain('MARKER-VALUE-123');

    expect(await storeWrites(f.supervisor)).toBe(writes);
    expect(f.sim.task(taskId!)!.polls).toBe(polls);
    expect((await f.post('status', {})).json).toEqual(statusBefore);
  });
});

describe('errors outside the operator API', () => {
  it('unknown routes and internal failures keep the error shape; a 500 is logged without secrets', async () => {
    expectError(await f.raw(`${f.base}${API_PREFIX}/nope`, { body: {}, headers: { 'x-api-key': KEY } }), 404, 'not_found');
    expectError(await f.raw(`${f.base}${API_PREFIX}/status`, { headers: { 'x-api-key': KEY } }), 404, 'not_found');

    const { logger, lines } = captureLogs('info');
    const broken = { ...f.supervisor, campaigns: async () => Promise.reject(new Error('disk on fire')) };
    const app = scope.defer(createHttpServer({ supervisor: broken, apiKey: KEY, logger }), (a) => a.close());
    const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    const a = await httpCall(`${base}${API_PREFIX}/campaigns`, { body: { action: 'list' }, headers: { authorization: `Bearer ${KEY}` } });
    expectError(a, 500, 'internal_error');
    expect(a.text).not.toContain('disk on fire');
    const logged = lines.filter((l) => l.includes('request failed'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('disk on fire');
    for (const line of lines) expect(line).not.toContain(KEY);
  });
});

describe('campaign routes', () => {
  it('create → get → list → status → health have their documented shapes', async () => {
    const [taskId] = f.sim.createTasks(1, 'training');
    const created = await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'Fine-tune', remote_task_id: taskId, max_attempts: 2 });
    expect(created.status).toBe(200);
    const summary = {
      campaign_id: 'c1',
      objective: 'Fine-tune',
      state: 'observing',
      attention: 'idle',
      paused: false,
      corrupt: false,
      // Create read the task once to verify it: that read is the first `last_read_at`.
      remote: { task_id: taskId, context_id: null, state: null, stage: null, attempt: null, observed_at: null, last_read_at: expect.any(String), status_message: null },
      lease: { mode: 'observer', epoch: null, expires_at: null },
      pending_question: null,
      // No Argus runtime here: nothing bound, nothing decided (and `mission` is not allowed).
      decisions: { mission: { project_id: null, binding: 'none' }, in_flight: null, event_key: null, last: null, reviewer_verdict: null },
      open_intent: null,
      max_attempts: 2,
      attempts_submitted: 0,
      consecutive_read_failures: 0,
      health: 'ok',
      last_error: null,
      // What the actor can take now: an observer may read, pause, close or claim; nothing else.
      allowed_actions: ['observe', 'pause', 'close', 'claim'],
    };
    expect(created.json).toEqual({ ok: true, campaign: summary });

    const observed = await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    expect(observed.json).toMatchObject({ ok: true, changed: true, events: [], campaign: { remote: { state: 'working', stage: 'prepare', attempt: 1 } } });

    const got = await f.post('campaigns', { action: 'get', campaign_id: 'c1' });
    expect(got.json).toEqual({
      ok: true,
      campaign: {
        ...summary,
        remote: { task_id: taskId, context_id: expect.any(String), state: 'working', stage: 'prepare', attempt: 1, observed_at: expect.any(String), last_read_at: expect.any(String), status_message: null },
      },
      events: [],
      // The chart's state node ids the live actor is in, ancestors included (what the page lights).
      chart: {
        active: [
          'campaign',
          'campaign.active',
          'campaign.active.authority',
          'campaign.active.attention',
          'campaign.active.heartbeat',
          'campaign.active.authority.observing',
          'campaign.active.attention.idle',
          'campaign.active.attention.idle.quiet',
          'campaign.active.heartbeat.idle',
        ],
      },
    });
    const listed = await f.post('campaigns', { action: 'list' });
    expect(listed.json).toEqual({ ok: true, campaigns: [got.json.campaign] });

    // Create's verifying read was poll 1, so two more observes reach `train`.
    for (let i = 0; i < 2; i++) await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const status = await f.post('status', {});
    expect(status.json).toEqual({ ok: true, campaigns: [expect.objectContaining({ campaign_id: 'c1' })], events: [expect.any(Object)] });
    expect((status.json.events as unknown[])[0]).toEqual({
      id: 'c1:1',
      seq: 1,
      kind: 'STAGE_TRANSITION',
      campaign_id: 'c1',
      at: expect.any(String),
      summary: 'Stage prepare → train',
      data: expect.objectContaining({ from: 'prepare', to: 'train' }),
    });

    const health = await f.post('health', {});
    expect(health.json).toMatchObject({
      ok: true,
      api_key_source: 'deployment_secret',
      configured: { remote: true, remote_token: true, api_key: true },
      campaigns: { total: 1, corrupt: 0 },
      remote: { reachable: true, protocol_version: '1.0', control_extension: true },
    });

    const paused = await f.post('campaign_action', { campaign_id: 'c1', action: 'pause' });
    expect(paused.json).toMatchObject({ ok: true, campaign: { paused: true, state: 'paused' } });
    expectError(await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' }), 409, 'campaign_paused');
  });
});

describe('GET /metrics', () => {
  it('exposes the heartbeat, store, model, event and remote-latency series', async () => {
    const [taskId] = f.sim.createTasks(1, 'training');
    await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId });
    // P=2: create's read and observes 1-2 reach `train` (one transition); the sweep's read is noise only.
    for (let i = 0; i < 2; i++) await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    await f.supervisor.sweep();

    const a = await f.raw(`${f.base}/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(a.status).toBe(200);
    const text = a.text;
    expect(text).toMatch(/^argus_supervisor_ticks_total\{result="unchanged"\} 1$/m);
    expect(text).toMatch(/^argus_supervisor_store_writes_total \d+$/m);
    expect(text).toMatch(/^argus_supervisor_model_calls_total\{runtime="argus"\} 0$/m);
    expect(text).toMatch(/^argus_supervisor_public_events_total\{kind="STAGE_TRANSITION"\} 1$/m);
    for (const kind of ['NEEDS_YOU', 'ATTEMPT_COMPLETED', 'MISSION_COMPLETE', 'CRITICAL']) {
      expect(text).toMatch(new RegExp(`^argus_supervisor_public_events_total\\{kind="${kind}"\\} 0$`, 'm'));
    }
    expect(text).toMatch(/^argus_supervisor_remote_request_seconds_count\{method="GetTask",outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^argus_supervisor_remote_request_seconds_bucket\{le="[^"]+",method="GetTask",outcome="ok"\} \d+$/m);
  });
});

describe('secrets', () => {
  it('neither the API key nor the remote token appears in any response body or log line', async () => {
    const [taskId] = f.sim.createTasks(1, 'blocker');
    await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId });
    for (let i = 0; i < 8; i++) await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    // A failing remote and a refused request also log; neither may carry a secret.
    f.sim.injectFaults({ kind: 'http-5xx', count: 3, methods: ['GetTask'] });
    await f.supervisor.sweep();
    for (let i = 0; i < 2; i++) await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    await f.post('campaign_action', { campaign_id: 'c1', action: 'answer', text: 'ok' });
    await f.raw(`${f.base}${API_PREFIX}/status`, { body: {}, headers: { 'x-api-key': `${KEY}-wrong` } });
    await f.post('health', {});
    await f.post('status', {});
    await f.post('campaigns', { action: 'list' });
    await f.raw(`${f.base}/metrics`, { headers: { 'x-api-key': KEY } });
    await f.raw(`${f.base}/health`, {});

    expect(f.supervisor.status().events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION', 'NEEDS_YOU', 'CRITICAL']);
    expect(f.lines.length).toBeGreaterThan(0);
    expect(f.lines.some((l) => l.includes('remote read failed'))).toBe(true);
    const scanned = f.answers;
    expect(scanned.length).toBeGreaterThan(15);
    for (const secret of [KEY, TOKEN]) {
      for (const a of scanned) expect(a.text).not.toContain(secret);
      for (const line of f.lines) expect(line).not.toContain(secret);
    }
  });
});
