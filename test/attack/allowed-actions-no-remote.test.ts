/**
 * Attack on `allowed_actions`: the view must list exactly what the API accepts. With no remote
 * to talk to (ARGUS_SUPERVISOR_ENABLED unset), `observe` is refused with supervisor_disabled, so
 * a view that still offers it disagrees with the API.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';
import { removeScratch } from '../fixtures/scratch.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A well-formed body per action (the schema refuses fields an action does not take). */
const BODY: Record<string, Record<string, unknown>> = {
  observe: {},
  claim: {},
  release: { epoch: 1 },
  submit: { epoch: 1, text: 'x' },
  intervene: { epoch: 1, instruction: 'x' },
  cancel: { epoch: 1, reason: 'x' },
};

describe('allowed_actions without a remote', () => {
  it('offers no action the API refuses for want of a remote', async () => {
    const sim = await startSimulator({ port: 0 });
    cleanups.push(() => sim.close());
    const root = await mkdtemp(join(tmpdir(), 'argus-allowed-'));
    cleanups.push(() => removeScratch(root));
    const supervisor = await createSupervisor({ config: loadConfig({ OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: root }) });
    cleanups.push(() => supervisor.stop());
    await supervisor.start({ heartbeat: false, initialSweep: false });
    const [taskId] = sim.createTasks(1, 'training');
    expect((await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'x', remote_task_id: taskId })).ok).toBe(true);

    const got = (await supervisor.campaigns({ action: 'get', campaign_id: 'c1' })) as { ok: true; value: { campaign: { allowed_actions: string[] } } };
    const allowed = got.value.campaign.allowed_actions;
    expect(allowed.length).toBeGreaterThan(0);
    const refusedForNoRemote: string[] = [];
    for (const action of allowed) {
      // Only the actions that need the remote: the others (pause, close) would change the campaign.
      if (!['observe', 'claim', 'release', 'submit', 'intervene', 'cancel'].includes(action)) continue;
      const r = await supervisor.campaignAction({ campaign_id: 'c1', action, ...BODY[action] });
      expect(r.ok || r.error.code !== 'invalid_request', JSON.stringify(r)).toBe(true);
      if (!r.ok && r.error.code === 'supervisor_disabled') refusedForNoRemote.push(action);
    }
    expect(refusedForNoRemote).toEqual([]);
    expect(sim.stats().requests).toEqual({});
  });
});
