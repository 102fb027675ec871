/**
 * The live event stream over real loopback HTTP, against a supervisor and the simulator: the
 * key is required; `hello` comes first; a claim shows up as a `campaign` frame whose active
 * chart states include `controlling` within a second; public events arrive as `public` frames;
 * `?campaign_id=` keeps one campaign; a closed connection leaves no listener on the read model,
 * and nothing of the feed runs per change while no client is connected.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, httpCall, startTestSupervisor, tempStateRoot, until, type TestSupervisor } from '../fixtures/supervisor-harness.js';
import { dataOf, openSse, type SseFrame } from '../cli/sse.js';

const scope = createScope();
afterEach(() => scope.dispose());

const KEY = canary('events-api-key');
const WRONG = canary('events-wrong-key');
const EVENTS = `${API_PREFIX}/events`;

interface Fixture extends TestSupervisor {
  sim: RunningSimulator;
  base: string;
  close(): Promise<void>;
  /** Read-model subscriptions currently held (the feed's), counted through a spy on `on`. */
  held(): number;
  post(route: string, body: unknown): Promise<Record<string, any>>;
}
let f: Fixture;

beforeEach(async () => {
  const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const started = await startTestSupervisor(scope, { stateRoot, url: sim.url, apiKey: KEY, logger });
  let held = 0;
  const model = started.supervisor.readModel;
  const on = model.on.bind(model);
  vi.spyOn(model, 'on').mockImplementation(((type: never, handler: never) => {
    const sub = on(type, handler);
    held++;
    let done = false;
    return { unsubscribe: () => (done ? undefined : ((done = true), held--, sub.unsubscribe())) };
  }) as typeof model.on);
  const app = createHttpServer({ supervisor: started.supervisor, apiKey: KEY, logger, eventStream: { keepaliveMs: 100 } });
  let closed = false;
  const close = async () => {
    if (!closed) await app.close();
    closed = true;
  };
  scope.defer(app, () => close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const post = async (route: string, body: unknown) => {
    const a = await httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': KEY } });
    expect(a.status, a.text).toBe(200);
    return a.json as Record<string, any>;
  };
  f = { ...started, sim, base, close, held: () => held, post };
});

const stream = async (query = '') => {
  const s = await openSse(`${f.base}${EVENTS}${query}`, { 'x-api-key': KEY });
  scope.defer(s, (x) => x.close());
  return s;
};

/** A campaign attached to a fresh simulator task and read once (so its context is known). */
async function attached(id: string): Promise<void> {
  const [taskId] = f.sim.createTasks(1);
  await f.post('campaigns', { action: 'create', campaign_id: id, objective: `watch ${id}`, remote_task_id: taskId });
  await f.post('campaign_action', { campaign_id: id, action: 'observe' });
}

const campaignFrame = (id: string, pred: (d: { campaign: Record<string, any>; active: string[] }) => boolean) => (fr: SseFrame) =>
  fr.event === 'campaign' && dataOf(fr).campaign.campaign_id === id && pred(dataOf(fr) as never);

describe('GET /api/plugins/argus_supervisor/events', () => {
  it('needs the key: 401 without one or with a wrong one, and no stream is opened', async () => {
    for (const headers of [{}, { 'x-api-key': WRONG }, { authorization: `Bearer ${WRONG}` }] as Record<string, string>[]) {
      const s = await openSse(`${f.base}${EVENTS}`, headers);
      expect(s.status).toBe(401);
      expect(JSON.parse(await s.body)).toEqual({ ok: false, error: { code: 'unauthorized', message: expect.any(String) } });
    }
    expect(f.held()).toBe(0);
    // HEAD (which Fastify answers with the GET route) gets headers only, and holds nothing open.
    const head = await fetch(`${f.base}${EVENTS}`, { method: 'HEAD', headers: { 'x-api-key': KEY } });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(f.held()).toBe(0);
  });

  it('says hello with the revision, then a claim arrives as a campaign frame with controlling active within 1 s', async () => {
    await attached('c1');
    const s = await stream();
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    const hello = await s.next((fr) => fr.event !== null);
    expect(hello.event).toBe('hello');
    expect(dataOf(hello)).toEqual({ revision: f.supervisor.readModel.getSnapshot().context.revision });
    expect(s.frames.filter((fr) => fr.event === 'campaign')).toEqual([]);

    const claimedAt = Date.now();
    const claim = f.post('campaign_action', { campaign_id: 'c1', action: 'claim' });
    const frame = await s.next(campaignFrame('c1', (d) => d.campaign.state === 'controlling'), 1000);
    expect(Date.now() - claimedAt).toBeLessThan(1000);
    const data = dataOf(frame);
    expect(data.active).toEqual(expect.arrayContaining([expect.stringMatching(/\.controlling$/)]));
    expect(data.active).toEqual(f.supervisor.activeStates('c1'));
    expect(data.campaign.lease).toMatchObject({ mode: 'controller', epoch: expect.any(Number) });
    expect((await claim).campaign.state).toBe('controlling');
    // The same positions `campaigns get` answers.
    const got = await f.post('campaigns', { action: 'get', campaign_id: 'c1' });
    expect(got.chart).toEqual({ active: f.supervisor.activeStates('c1') });
    expect(JSON.stringify(s.frames)).not.toContain(KEY);
  });

  it('sends each public event as a public frame, and keepalive comments', async () => {
    await attached('c1');
    const s = await stream();
    await s.next((fr) => fr.event === 'hello');
    const before = f.supervisor.status().events.length;
    await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const appended = f.supervisor.status().events.slice(before);
    expect(appended.length).toBeGreaterThan(0);
    const pub = await s.next((fr) => fr.event === 'public' && dataOf(fr).id === appended[0]!.id);
    expect(dataOf(pub)).toEqual(appended[0]);
    await s.next((fr) => fr.comment === 'keepalive', 1000);
  });

  it('?campaign_id= keeps one campaign; a bad id is refused', async () => {
    await attached('c1');
    await attached('c2');
    const only2 = await stream('?campaign_id=c2');
    await only2.next((fr) => fr.event === 'hello');
    const all = await stream();
    await all.next((fr) => fr.event === 'hello');
    await f.post('campaign_action', { campaign_id: 'c1', action: 'claim' });
    await f.post('campaign_action', { campaign_id: 'c2', action: 'observe' });
    await f.post('campaign_action', { campaign_id: 'c2', action: 'pause' });
    await all.next(campaignFrame('c1', (d) => d.campaign.state === 'controlling'));
    await only2.next(campaignFrame('c2', (d) => d.campaign.paused === true));
    await all.next(campaignFrame('c2', (d) => d.campaign.paused === true));
    const ids = only2.frames.filter((fr) => fr.event === 'campaign' || fr.event === 'public').map((fr) => (fr.event === 'public' ? dataOf(fr).campaign_id : dataOf(fr).campaign.campaign_id));
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set(['c2']));

    const bad = await openSse(`${f.base}${EVENTS}?campaign_id=..%2Fx`, { 'x-api-key': KEY });
    expect(bad.status).toBe(400);
    expect(JSON.parse(await bad.body).error.code).toBe('invalid_request');
  });

  it('a closed connection detaches: no listener is left, and with no client nothing runs per change', async () => {
    await attached('c1');
    const active = vi.spyOn(f.supervisor, 'activeStates');
    expect(f.held()).toBe(0);
    const a = await stream();
    const b = await stream();
    await a.next((fr) => fr.event === 'hello');
    await b.next((fr) => fr.event === 'hello');
    expect(f.held()).toBe(3); // changes, reloads, public events: once for all clients
    a.close();
    await until(() => f.held() === 3, 'still attached for b');
    b.close();
    await until(() => f.held() === 0, 'the feed detached from the read model');

    active.mockClear();
    await f.post('campaign_action', { campaign_id: 'c1', action: 'claim' });
    await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    await new Promise((r) => setTimeout(r, 300));
    // `claim` answers with the view, not the chart; only the feed asks for active states.
    expect(active).not.toHaveBeenCalled();
  });

  it('the server closes promptly with a stream open, ending the stream', async () => {
    const s = await stream();
    await s.next((fr) => fr.event === 'hello');
    const started = Date.now();
    await f.close();
    await s.closed;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(f.held()).toBe(0);
  });
});
