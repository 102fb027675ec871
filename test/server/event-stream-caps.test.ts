/**
 * Issue 19, defect 3: no one client holds every event stream. Streams opened with the key are
 * capped together (32) and each page session on its own (4), under the global 64; a stream
 * opened with the key ends after its lifetime with `event: reconnect`, and a client that comes
 * back with `Last-Event-ID` gets the public events it missed first. `events --follow` reconnects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import type { EventStreamOptions } from '../../server/event-stream.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { spawnStreamingCli } from '../fixtures/cli-stream.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, httpCall, startTestSupervisor, tempStateRoot, until } from '../fixtures/supervisor-harness.js';
import { dataOf, openSse, type SseStream } from '../cli/sse.js';
import { login, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('stream-caps-api-key');

async function world(eventStream: EventStreamOptions = {}) {
  const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const started = await startTestSupervisor(scope, { stateRoot, url: sim.url, apiKey: KEY, logger });
  const app = scope.defer(createHttpServer({ supervisor: started.supervisor, apiKey: KEY, logger, eventStream }), (a) => a.close());
  const base = await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 });
  const post = async (route: string, body: unknown) => {
    const a = await httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': KEY } });
    expect(a.status, a.text).toBe(200);
  };
  const open = async (headers: Record<string, string>, query = ''): Promise<SseStream> => scope.defer(await openSse(`${base}${API_PREFIX}/events${query}`, headers), (s) => s.close());
  const session = () => login({ base, key: KEY } as SessionWorld);
  return { ...started, sim, base, post, open, session };
}

/** Opens streams until one is refused (at most `limit`); returns how many opened and the refusal. */
async function fill(open: () => Promise<SseStream>, limit: number): Promise<{ opened: number; refusal: { status: number; code: string } | null }> {
  for (let i = 0; i < limit; i++) {
    const s = await open();
    if (s.status !== 200) return { opened: i, refusal: { status: s.status, code: JSON.parse(await s.body).error.code } };
  }
  return { opened: limit, refusal: null };
}

describe('event stream limits', () => {
  it('the key opens at most 32 streams; a page session still opens one, and 4 at most per session', async () => {
    const w = await world();
    expect(await fill(() => w.open({ 'x-api-key': KEY }), 64)).toEqual({ opened: 32, refusal: { status: 503, code: 'too_many_streams' } });
    const a = await w.session();
    expect(await fill(() => w.open({ cookie: a.cookie }), 10)).toEqual({ opened: 4, refusal: { status: 503, code: 'too_many_streams' } });
    const b = await w.session();
    const other = await w.open({ cookie: b.cookie });
    expect(other.status).toBe(200);
    // A closed stream frees its place.
    other.close();
    await other.closed;
    await until(async () => (await w.open({ cookie: b.cookie })).status === 200, 'a place is free again', 100);
  });

  it('a key stream ends after its lifetime with event: reconnect; a session stream does not; Last-Event-ID resends what was missed', async () => {
    const w = await world({ keyStreamLifetimeMs: 300 });
    const [taskId] = w.sim.createTasks(1);
    await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId });
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    expect(w.supervisor.status().events.length, 'a public event the client has seen').toBeGreaterThan(0);
    const { cookie } = await w.session();
    const page = await w.open({ cookie });
    const key = await w.open({ 'x-api-key': KEY });
    await key.next((fr) => fr.event === 'reconnect', 3000);
    await key.closed;
    // Missed while disconnected: public events after the one the client saw last.
    const before = w.supervisor.status().events.length;
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const all = w.supervisor.status().events;
    const missed = all.slice(before);
    expect(missed.length).toBeGreaterThan(0);
    const lastSeen = all[before - 1]!;
    const again = await w.open({ 'x-api-key': KEY, 'last-event-id': lastSeen.id });
    await again.next((fr) => fr.event === 'public' && dataOf(fr).id === missed.at(-1)!.id, 2000);
    expect(again.frames.filter((fr) => fr.event === 'public').map((fr) => dataOf(fr).id)).toEqual(missed.map((e) => e.id));
    expect(again.frames.filter((fr) => fr.event === 'public').map((fr) => fr.id)).toEqual(missed.map((e) => e.id));
    // The page's stream outlived the key's lifetime.
    expect(page.frames.some((fr) => fr.event === 'reconnect')).toBe(false);
    await page.next((fr) => fr.event === 'public' && dataOf(fr).id === missed.at(-1)!.id, 2000);
  });

  it('events --follow reconnects after a lifetime end and keeps printing', async () => {
    const w = await world({ keyStreamLifetimeMs: 300 });
    const [taskId] = w.sim.createTasks(1);
    await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId });
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const follow = spawnStreamingCli(scope, ['events', '--follow', '--json'], { ARGUS_SUPERVISOR_URL: w.base, ARGUS_SUPERVISOR_API_KEY: KEY }, 'cli-events-reconnect');
    await until(() => follow.out.includes('"hello"'), 'the stream is open', 500);
    // Three lifetimes later it is still there, and prints a new public event.
    await new Promise((r) => setTimeout(r, 1000));
    expect(follow.child.exitCode, follow.err).toBeNull();
    const before = w.supervisor.status().events.length;
    await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const fresh = w.supervisor.status().events.slice(before);
    expect(fresh.length).toBeGreaterThan(0);
    await until(() => follow.out.includes(fresh[0]!.id), 'the new event was printed', 500);
    expect(follow.out.split('\n').filter((l) => l.includes('"hello"'))).toHaveLength(1);
    await follow.stop();
  });
});
