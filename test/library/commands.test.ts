/**
 * The library's commands take the HTTP API's path: an idempotency key replays the kept answer
 * and sends nothing twice, a malformed key is refused before anything runs, refusals carry the
 * API's codes, and views and events reach subscribers as copies (editing one changes nothing)
 * while a throwing listener breaks nothing.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

type Lib = typeof import('../../index.js');

let scratch: string;
let sim: RunningSimulator;
let lib: Lib;

beforeAll(async () => {
  scratch = await scratchDir('library-commands-');
  sim = await startSimulator({ port: 0, scenario: 'blocker', pollsPerStage: 1 });
  lib = (await import(pathToFileURL(path.join(REPO_ROOT, 'dist/index.js')).href)) as Lib;
});

afterAll(async () => {
  await sim?.close();
  if (scratch) await removeScratch(scratch);
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('library commands', () => {
  it('replay by idempotency key, refuse like the API, and hand out copies', async () => {
    const [taskId] = sim.createTasks(1, 'blocker');
    const config = lib.loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: path.join(scratch, 'state') });
    const supervisor = lib.createSupervisor({ config });
    const views: string[] = [];
    const kinds: string[] = [];
    const handle = supervisor.campaign('c1');
    // Subscribing before start is allowed; a listener that throws is logged and ignored.
    handle.subscribe((view) => {
      views.push(view.state);
      view.state = 'forged';
      throw new Error('listener bug');
    });
    supervisor.events.subscribe((event) => {
      kinds.push(event.kind);
      event.summary = 'forged';
    });
    expect(await handle.request({ action: 'observe' })).toEqual({ ok: false, error: { code: 'invalid_request', message: 'The supervisor is not started.' } });
    await supervisor.start();
    try {
      expect((await supervisor.campaigns.create({ campaign_id: 'c1', objective: 'o', remote_task_id: taskId! }, { idempotencyKey: 'create-1' })).ok).toBe(true);
      expect((await handle.request({ action: 'observe' })).ok).toBe(true);

      expect(await handle.request({ action: 'claim' }, { idempotencyKey: ' padded ' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      const first = await handle.request({ action: 'claim' }, { idempotencyKey: 'claim-1' });
      expect(first.ok && first.value.lease.epoch).toBe(1);
      const again = await handle.request({ action: 'claim' }, { idempotencyKey: 'claim-1' });
      expect(again).toMatchObject({ ok: true, replayed: true, value: { lease: { epoch: 1 } } });
      expect(sim.stats().mutationsApplied.claim).toBe(1);
      // The same key for another request is refused, as over HTTP.
      expect(await handle.request({ action: 'pause' }, { idempotencyKey: 'claim-1' })).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });

      // The chart's refusals carry their rule's code; nothing is sent.
      expect(await handle.request({ action: 'release', epoch: 2 })).toMatchObject({ ok: false, error: { code: 'lease_stale_epoch' } });
      expect(await handle.request({ action: 'claim' })).toMatchObject({ ok: false, error: { code: 'already_controlling' } });
      expect(sim.stats().mutationsApplied.release).toBe(0);

      // Copies: editing an answer or a delivered view leaves the supervisor's view as it was.
      if (first.ok) first.value.campaign.state = 'forged';
      await settle();
      expect(views).toContain('controlling');
      const detail = await handle.view();
      expect(detail.ok && detail.value.campaign.state).toBe('controlling');
      expect(detail.ok && detail.value.chart.active).toContain('campaign.active.authority.controlling');
      for (let i = 0; i < 5 && !kinds.includes('NEEDS_YOU'); i++) await handle.request({ action: 'observe' });
      await settle();
      expect(kinds).toContain('NEEDS_YOU');
      const after = await handle.view();
      expect(after.ok && after.value.events.map((e) => e.summary)).not.toContain('forged');
      expect(await supervisor.campaign('nope').request({ action: 'observe' })).toMatchObject({ ok: false, error: { code: 'campaign_not_found' } });
    } finally {
      await supervisor.stop();
    }
  });
});
