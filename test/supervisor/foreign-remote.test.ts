/**
 * The "done when" scenario against a server this project did not write: a stock @a2a-js/sdk
 * 1.3.0 agent without the control extension whose task streams routine progress (working, with
 * a status line that changes every frame) and then completes. Attached and observed through the
 * HTTP API, it yields exactly one public ATTEMPT_COMPLETED and nothing else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../adapters/a2a/index.js';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { silentLogger } from '../../adapters/logger.js';
import {
  createScope,
  httpCall,
  metricValue,
  startStreamingForeignServer,
  startTestSupervisor,
  storeWrites,
  tempStateRoot,
  until,
} from '../fixtures/supervisor-harness.js';
import { canary } from '../fixtures/canary.js';

const scope = createScope();
afterEach(() => scope.dispose());

const KEY = canary('foreign-api-key');
const FRAMES = 6;

describe('a plain @a2a-js/sdk remote streaming progress', () => {
  it('attached over HTTP and observed to the end: one ATTEMPT_COMPLETED, nothing else', async () => {
    const foreign = scope.defer(await startStreamingForeignServer(FRAMES), (f) => f.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor, wakes } = await startTestSupervisor(scope, { stateRoot, url: foreign.base, apiKey: KEY });
    const app = scope.defer(createHttpServer({ supervisor, apiKey: KEY, logger: silentLogger() }), (a) => a.close());
    const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    const post = (route: string, body: unknown) => httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { authorization: `Bearer ${KEY}` } });

    // An independent reader, only to know when the foreign store holds the next frame.
    const reader = scope.defer(createA2AClient({ baseUrl: foreign.base }), (c) => c.close());
    const remoteText = async (taskId: string) => {
      const r = await reader.getTask(taskId);
      return r.ok ? `${r.value.state}|${r.value.latestAgentMessageExcerpt ?? ''}` : 'error';
    };

    const taskId = await foreign.createTask('fine-tune the model');
    const created = await post('campaigns', { action: 'create', campaign_id: 'foreign-1', objective: 'watch it', remote_task_id: taskId });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ ok: true, campaign: { campaign_id: 'foreign-1', remote: { task_id: taskId } } });

    const health = await post('health', {});
    expect(health.json).toMatchObject({ remote: { protocol_version: '1.0', control_extension: false, mutations_enabled: false } });

    const observeOnce = async () => {
      const r = await post('campaign_action', { campaign_id: 'foreign-1', action: 'observe' });
      expect(r.status).toBe(200);
      expect(r.json.ok).toBe(true);
      return r.json as { changed: boolean; events: { kind: string }[] };
    };

    const seen = new Set<string>();
    let writesDuringProgress = 0;
    for (let frame = 1; frame <= FRAMES; frame++) {
      const before = await remoteText(taskId);
      foreign.release(taskId);
      await until(async () => (await remoteText(taskId)) !== before, `frame ${frame}`);
      const text = await remoteText(taskId);
      expect(text).toMatch(new RegExp(`^working\\|step ${frame * 100}/`));
      seen.add(text);
      const writes = await storeWrites(supervisor);
      // Each frame read several times: the first sight is the only write of the whole run-up.
      for (let i = 0; i < 3; i++) expect((await observeOnce()).events).toEqual([]);
      writesDuringProgress += (await storeWrites(supervisor)) - writes;
    }
    expect(seen.size).toBe(FRAMES); // the status line really changed every frame
    expect(writesDuringProgress).toBe(1);
    expect(wakes.argus).toHaveLength(0);

    foreign.release(taskId);
    await until(async () => (await remoteText(taskId)).startsWith('completed'), 'completion');
    const completion = await observeOnce();
    expect(completion.events.map((e) => e.kind)).toEqual(['ATTEMPT_COMPLETED']);
    for (let i = 0; i < 5; i++) expect((await observeOnce()).events).toEqual([]);

    const status = await post('status', {});
    const events = status.json.events as { kind: string; summary: string; data: Record<string, unknown> }[];
    expect(events.map((e) => e.kind)).toEqual(['ATTEMPT_COMPLETED']);
    expect(events[0]!.summary).toBe('The remote task completed');
    expect(events[0]!.data).toMatchObject({ outcome: 'completed', taskId });
    expect(JSON.stringify(status.json)).not.toMatch(/step \d|loss|stdout|training finished/);
    expect(wakes.argus).toHaveLength(1);
    expect(await metricValue(supervisor, 'argus_supervisor_public_events_total')).toBe(1);
  });
});
