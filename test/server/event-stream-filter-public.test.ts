/**
 * Issue 19, item 13 (a planted bug the suite missed): `?campaign_id=` must filter public
 * frames too, not only campaign frames. Here the filtered-out campaign publishes public events
 * (a STAGE_TRANSITION from an observe of a simulator task), an unfiltered stream sees them, and
 * the filtered stream, still live (it gets its own campaign's public event after them), never does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX, createHttpServer, listen } from '../../server/http-server.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, httpCall, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { dataOf, openSse, type SseFrame } from '../cli/sse.js';

const scope = createScope();
afterEach(() => scope.dispose());
const KEY = canary('events-filter-api-key');

const campaignOf = (fr: SseFrame): string | null =>
  fr.event === 'public' ? (dataOf(fr).campaign_id as string) : fr.event === 'campaign' ? (dataOf(fr).campaign.campaign_id as string) : null;

describe('?campaign_id= on the event stream', () => {
  it('keeps another campaign’s public events out, while the unfiltered stream gets them', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { logger } = captureLogs('info');
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url, apiKey: KEY, logger });
    const app = scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger }), (a) => a.close());
    const base = await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 });
    const post = async (route: string, body: unknown) => {
      const a = await httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': KEY } });
      expect(a.status, a.text).toBe(200);
    };
    for (const id of ['c1', 'c2']) {
      const [taskId] = sim.createTasks(1);
      await post('campaigns', { action: 'create', campaign_id: id, objective: `watch ${id}`, remote_task_id: taskId });
      await post('campaign_action', { campaign_id: id, action: 'observe' });
    }
    const open = async (query: string) => scope.defer(await openSse(`${base}${API_PREFIX}/events${query}`, { 'x-api-key': KEY }), (s) => s.close());
    const only2 = await open('?campaign_id=c2');
    const all = await open('');
    await only2.next((fr) => fr.event === 'hello');
    await all.next((fr) => fr.event === 'hello');

    const publicOf = (id: string) => supervisor.status().events.filter((e) => e.campaign_id === id);
    const c1Before = publicOf('c1').length;
    await post('campaign_action', { campaign_id: 'c1', action: 'observe' });
    const c1Events = publicOf('c1').slice(c1Before);
    expect(c1Events.length, 'the filtered-out campaign published a public event').toBeGreaterThan(0);
    await all.next((fr) => fr.event === 'public' && dataOf(fr).id === c1Events[0]!.id);

    const c2Before = publicOf('c2').length;
    await post('campaign_action', { campaign_id: 'c2', action: 'observe' });
    const c2Events = publicOf('c2').slice(c2Before);
    expect(c2Events.length).toBeGreaterThan(0);
    // Frames arrive in order: once c2's public event is here, c1's would have come before it.
    await only2.next((fr) => fr.event === 'public' && dataOf(fr).id === c2Events[0]!.id);

    const foreign = only2.frames.filter((fr) => campaignOf(fr) !== null && campaignOf(fr) !== 'c2');
    expect(foreign.map((fr) => `${fr.event} ${campaignOf(fr)}`)).toEqual([]);
  });
});
