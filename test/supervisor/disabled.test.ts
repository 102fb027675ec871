/**
 * Until ARGUS_SUPERVISOR_ENABLED=1 the supervisor contacts no remote: campaigns can be created
 * and listed, but nothing is read, claimed or sent, and every remote action says why.
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

describe('ARGUS_SUPERVISOR_ENABLED', () => {
  it('when not 1, no request ever reaches the remote and remote actions are refused with supervisor_disabled', async () => {
    const sim = await startSimulator({ port: 0 });
    cleanups.push(() => sim.close());
    const root = await mkdtemp(join(tmpdir(), 'argus-disabled-'));
    cleanups.push(() => removeScratch(root));
    const supervisor = await createSupervisor({ config: loadConfig({ OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: root }) });
    cleanups.push(() => supervisor.stop());
    await supervisor.start({ heartbeat: false, initialSweep: true });

    const [taskId] = sim.createTasks(1, 'training');
    expect((await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'x', remote_task_id: taskId })).ok).toBe(true);
    await supervisor.sweep();
    for (const body of [{ action: 'observe' }, { action: 'claim' }, { action: 'submit', epoch: 1, text: 'x' }]) {
      const r = await supervisor.campaignAction({ campaign_id: 'c1', ...body });
      expect(r.ok ? null : r.error.code).toBe('supervisor_disabled');
    }
    expect(sim.stats().requests).toEqual({});
    expect(supervisor.health()).toMatchObject({ enabled: false, remote: { reachable: null } });
    expect(supervisor.status().campaigns.map((c) => c.campaign_id)).toEqual(['c1']);
  });
});
