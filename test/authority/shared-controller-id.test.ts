/**
 * Two installations (two state roots) that share the default controller id supervise the same
 * remote task. Holder ids cannot tell them apart, so only the epoch can: every claim is a new
 * grant with a strictly greater epoch, the one claimed over sees a different epoch on its next
 * readback and goes control-lost with one CRITICAL, and its old token is refused by the remote.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../adapters/a2a/index.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { attached, authorityWorld, type AuthorityWorld } from './authority-fixture.js';
import { removeScratch } from '../fixtures/scratch.js';

let world: AuthorityWorld | null = null;
let second: Supervisor | null = null;
let secondRoot: string | null = null;
afterEach(async () => {
  await second?.stop();
  await world?.close();
  if (secondRoot) await removeScratch(secondRoot);
  world = second = secondRoot = null;
});

const criticals = (s: Supervisor, id: string) => s.status().events.filter((e) => e.campaign_id === id && e.kind === 'CRITICAL').length;

describe('every grant is a new epoch', () => {
  it('a second installation with the same controller id takes a greater epoch; the first loses control once and its token is refused', async () => {
    world = await authorityWorld();
    const taskId = await attached(world, 'c1');
    const first = world.supervisor;
    const claimedA = await world.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimedA.ok).toBe(true);
    const epochA = claimedA.value.lease.epoch as number;

    secondRoot = await mkdtemp(join(tmpdir(), 'argus-authority-b-'));
    second = await createSupervisor({
      config: loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: world.sim.url, ARGUS_SUPERVISOR_STATE_ROOT: secondRoot, ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60' }),
    });
    await second.start({ heartbeat: false, initialSweep: false });
    expect((await second.campaigns({ action: 'create', campaign_id: 'c1', objective: 'same task', remote_task_id: taskId })).ok).toBe(true);
    expect((await second.observe('c1')).ok).toBe(true);
    // A's lease is ours as far as the remote can tell (same holder id), so B's claim is a re-claim.
    const claimedB = (await second.campaignAction({ campaign_id: 'c1', action: 'claim' })) as { ok: boolean; value: any };
    expect(claimedB.ok).toBe(true);
    expect(claimedB.value.lease.epoch).toBeGreaterThan(epochA);

    // A's next read (observe runs the tick's read and lease check) sees B's epoch: control
    // lost, said once, and once only.
    expect(criticals(first, 'c1')).toBe(0);
    expect((await world.campaign('c1')).state).toBe('controlling');
    await world.act({ campaign_id: 'c1', action: 'observe' });
    expect((await world.campaign('c1')).state).toBe('control-lost');
    expect(criticals(first, 'c1')).toBe(1);
    await world.act({ campaign_id: 'c1', action: 'observe' });
    expect(criticals(first, 'c1')).toBe(1);
    // B still holds it.
    expect(((await second.campaigns({ action: 'get', campaign_id: 'c1' })) as { value: any }).value.campaign.state).toBe('controlling');

    // What A would send had it not noticed: its controller id and old epoch. The remote refuses.
    const contextId = (await world.campaign('c1')).remote.context_id as string;
    const raw = createA2AClient({ baseUrl: world.sim.url, connections: 1 });
    try {
      const stale = await raw.submit({ text: 'attempt from the first installation', contextId, authority: { controllerId: 'argus-openoperator', epoch: epochA, requestId: 'stale-from-a' } });
      expect(stale.ok).toBe(false);
    } finally {
      await raw.close();
    }
    const stats = world.sim.stats();
    expect(stats.staleMutationsApplied).toBe(0);
    expect(stats.mutationsApplied.submit).toBe(0);
    expect(stats.staleMutationsRejected).toBeGreaterThanOrEqual(1);
  });

  it('a fenced mutation the first installation tries before its next tick is refused on the fresh readback: nothing sent, control lost once', async () => {
    world = await authorityWorld();
    const taskId = await attached(world, 'c1');
    const claimedA = await world.act({ campaign_id: 'c1', action: 'claim' });
    const epochA = claimedA.value.lease.epoch as number;

    secondRoot = await mkdtemp(join(tmpdir(), 'argus-authority-b-'));
    second = await createSupervisor({
      config: loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: world.sim.url, ARGUS_SUPERVISOR_STATE_ROOT: secondRoot, ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60' }),
    });
    await second.start({ heartbeat: false, initialSweep: false });
    await second.campaigns({ action: 'create', campaign_id: 'c1', objective: 'same task', remote_task_id: taskId });
    await second.observe('c1');
    expect(((await second.campaignAction({ campaign_id: 'c1', action: 'claim' })) as { ok: boolean }).ok).toBe(true);

    // A has not read since: it still believes it controls. Its pre-send readback shows B's epoch.
    const intervened = await world.act({ campaign_id: 'c1', action: 'intervene', epoch: epochA, instruction: 'lower the learning rate' });
    expect(intervened.error?.code).toBe('lease_not_held');
    const stats = world.sim.stats();
    expect(stats.mutationsApplied.intervene).toBe(0);
    expect(stats.staleMutationsApplied).toBe(0);
    expect((await world.campaign('c1')).state).toBe('control-lost');
    expect(criticals(world.supervisor, 'c1')).toBe(1);
    await world.act({ campaign_id: 'c1', action: 'observe' });
    expect(criticals(world.supervisor, 'c1')).toBe(1);
  });
});
