/**
 * The history over HTTP (issue 20, item 3): `GET …/history?campaign_id=ID` with the key (a read:
 * no CSRF token) and the `history` action of `campaigns` answer the same; an unknown campaign is
 * `404 campaign_not_found`, a missing or malformed id `400 invalid_request`, no key `401`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { attach, createScope, httpCall, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { NO_BACKOFF } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('history-api-key');

async function world() {
  const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const { logger } = captureLogs('info');
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url, apiKey: KEY, logger });
  const app = scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger, authThrottle: NO_BACKOFF }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  return { sim, supervisor, base };
}

describe('GET /api/plugins/argus_supervisor/history', () => {
  it('answers the campaign’s state changes with the key, the same as the campaigns history action', async () => {
    const { sim, supervisor, base } = await world();
    const [taskId] = sim.createTasks(1, 'steady');
    await attach(supervisor, 'api-h', taskId!);
    const claimed = await httpCall(`${base}${API_PREFIX}/campaign_action`, { body: { campaign_id: 'api-h', action: 'claim' }, headers: { 'x-api-key': KEY } });
    expect(claimed.status, claimed.text).toBe(200);

    const got = await httpCall(`${base}${API_PREFIX}/history?campaign_id=api-h`, { headers: { 'x-api-key': KEY } });
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({
      ok: true,
      campaign_id: 'api-h',
      current: { state: 'controlling', attention: 'idle' },
      history: [
        { from: null, to: { state: 'observing', attention: 'idle' }, cause: 'operator', detail: 'create' },
        { from: { state: 'observing', attention: 'idle' }, to: { state: 'controlling', attention: 'idle' }, cause: 'operator', detail: 'claim' },
      ],
    });
    const history = got.json.history as { at: string }[];
    expect((got.json.current as { since: string }).since).toBe(history[1]!.at);
    expect(got.json.created_at).toBe(history[0]!.at);

    const posted = await httpCall(`${base}${API_PREFIX}/campaigns`, { body: { action: 'history', campaign_id: 'api-h' }, headers: { 'x-api-key': KEY } });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.json).toEqual(got.json);
  });

  it('refuses an unknown campaign (404), a missing or malformed id (400) and a request without the key (401)', async () => {
    const { base } = await world();
    const call = (query: string, headers: Record<string, string> = { 'x-api-key': KEY }) => httpCall(`${base}${API_PREFIX}/history${query}`, { headers });
    const unknown = await call('?campaign_id=nope');
    expect([unknown.status, unknown.json.error?.code]).toEqual([404, 'campaign_not_found']);
    for (const query of ['', '?campaign_id=', '?campaign_id=a%20b', '?campaign_id=a&campaign_id=b']) {
      const bad = await call(query);
      expect([query, bad.status, bad.json.error?.code]).toEqual([query, 400, 'invalid_request']);
    }
    const anonymous = await call('?campaign_id=nope', {});
    expect(anonymous.status).toBe(401);
  });
});
