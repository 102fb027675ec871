/**
 * Regressions found in an independent review of the authority path, each as a scenario against
 * the real loopback simulator. The remote is wrapped only where a test must shape timing or a
 * single failure; every request still reaches the simulator.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { removeScratch } from '../fixtures/scratch.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(wrap: (real: A2AClient) => A2AClient = (r) => r, opts: { now?: () => Date; pollsPerStage?: number } = {}) {
  const sim: RunningSimulator = await startSimulator({ port: 0, ...(opts.pollsPerStage ? { pollsPerStage: opts.pollsPerStage } : {}) });
  const root = await mkdtemp(join(tmpdir(), 'argus-review-'));
  const real = createA2AClient({ baseUrl: sim.url });
  const config = loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60' });
  const supervisor: Supervisor = await createSupervisor({ config, remote: wrap(real), ...(opts.now ? { now: opts.now } : {}) });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  cleanups.push(async () => {
    await supervisor.stop();
    await sim.close();
    await removeScratch(root);
  });
  const get = async (id: string) => ((await supervisor.campaigns({ action: 'get', campaign_id: id })) as { ok: true; value: any }).value;
  const act = (body: Record<string, unknown>) => supervisor.campaignAction(body) as Promise<any>;
  const attach = async (id: string, scenario = 'steady') => {
    const [taskId] = sim.createTasks(1, scenario as never);
    await supervisor.campaigns({ action: 'create', campaign_id: id, objective: 'x', remote_task_id: taskId });
    return taskId!;
  };
  const criticals = async (id: string) => (await get(id)).events.filter((e: { kind: string }) => e.kind === 'CRITICAL').length;
  return { sim, supervisor, get, act, attach, criticals };
}

describe('authority regressions', () => {
  it('a claim before the first read leases the attached task’s own context, not a new one', async () => {
    const w = await world();
    const taskId = await w.attach('c1');
    const claimed = await w.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok).toBe(true);
    expect((await w.get('c1')).campaign.remote.context_id).toBe(w.sim.task(taskId)!.contextId);
    await w.act({ campaign_id: 'c1', action: 'observe' });
    const c = await w.get('c1');
    expect(c.campaign.state).toBe('controlling');
    expect(await w.criticals('c1')).toBe(0);
  });

  it('a second loss of control at the same epoch is announced again (one CRITICAL per hold)', async () => {
    let failRenew = true;
    let offset = 0;
    const w = await world(
      (real) => ({
        ...real,
        control: {
          ...real.control,
          async leaseRenew(req) {
            if (failRenew) {
              failRenew = false;
              return { ok: false, error: { code: 'remote_timeout', message: 'timed out', outcome: 'ambiguous' } };
            }
            return real.control.leaseRenew(req);
          },
        },
      }),
      { now: () => new Date(Date.now() + offset) },
    );
    await w.attach('c1');
    await w.act({ campaign_id: 'c1', action: 'observe' });
    expect((await w.act({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);
    offset = 310_000; // renewal due: the heartbeat's tick renews (an operator's observe only reads), it fails → control-lost
    await w.supervisor.sweep();
    offset = 0;
    expect((await w.get('c1')).campaign.state).toBe('control-lost');
    expect(await w.criticals('c1')).toBe(1);
    // The remote still shows our unexpired hold; the re-claim is a new grant (a greater epoch).
    expect((await w.act({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);
    w.sim.takeover((await w.get('c1')).campaign.remote.context_id, 'rival-controller');
    await w.act({ campaign_id: 'c1', action: 'observe' });
    expect((await w.get('c1')).campaign.state).toBe('control-lost');
    expect(await w.criticals('c1')).toBe(2);
  });

  it('losing the lease keeps a pending NEEDS_YOU question', async () => {
    const w = await world();
    await w.attach('c1', 'blocker');
    for (let i = 0; i < 12 && (await w.get('c1')).campaign.pending_question === null; i++) await w.act({ campaign_id: 'c1', action: 'observe' });
    expect((await w.get('c1')).campaign.attention).toBe('needs-you');
    const epoch = (await w.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    w.sim.takeover((await w.get('c1')).campaign.remote.context_id, 'rival-controller');
    const refused = await w.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'x' });
    expect(refused.error.code).toBe('lease_not_held');
    const c = (await w.get('c1')).campaign;
    expect(c.state).toBe('control-lost');
    expect(c.attention).toBe('needs-you');
    expect(c.pending_question).not.toBeNull();
  });

  it('a heartbeat read taken before a claim does not judge the new lease', async () => {
    let gate: Promise<void> | null = null;
    let held!: () => void;
    const readHeld = new Promise<void>((r) => (held = r));
    let heldReads = 0;
    const w = await world((real) => ({
      ...real,
      async getTask(id) {
        const read = await real.getTask(id);
        const waitFor = gate;
        if (waitFor) {
          // Answered before the claim, delivered after it.
          gate = null;
          heldReads++;
          held();
          await waitFor;
        }
        return read;
      },
    }), { pollsPerStage: 1 });
    // One poll per stage: the held read carries a stage change, so it reaches the commit path.
    await w.attach('c1', 'training');
    await w.act({ campaign_id: 'c1', action: 'observe' });
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const sweeping = w.supervisor.sweep();
    await readHeld;
    expect((await w.act({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);
    release();
    await sweeping;
    expect(heldReads).toBe(1);
    expect((await w.get('c1')).campaign.state).toBe('controlling');
    expect(await w.criticals('c1')).toBe(0);
  });

  it('discovery that failed at start-up is retried when an operator acts', async () => {
    let first = true;
    const w = await world((real) => ({
      ...real,
      async discover() {
        if (first) {
          first = false;
          return { ok: false, error: { code: 'remote_unreachable', message: 'down', outcome: 'not_sent' } };
        }
        return real.discover();
      },
    }));
    expect(w.supervisor.health().remote.protocol_version).toBeNull();
    await w.attach('c1');
    expect((await w.act({ campaign_id: 'c1', action: 'claim' })).ok).toBe(true);
    expect(w.supervisor.health().remote.mutations_enabled).toBe(true);
  });

  it('refuses to close while holding the lease or with a mutation in doubt', async () => {
    const w = await world();
    await w.attach('c1');
    const epoch = (await w.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch;
    expect((await w.act({ campaign_id: 'c1', action: 'close' })).error.code).toBe('release_before_close');
    w.sim.injectFaults({ kind: 'lost-response', methods: ['opentraining.control/intervene'] });
    await w.act({ campaign_id: 'c1', action: 'intervene', epoch, instruction: 'x' });
    expect((await w.act({ campaign_id: 'c1', action: 'close' })).error.code).toBe('intent_unresolved');
    expect((await w.act({ campaign_id: 'c1', action: 'resolve_intent' })).ok).toBe(true);
    expect((await w.act({ campaign_id: 'c1', action: 'close' })).ok).toBe(true);
    expect((await w.get('c1')).campaign.state).toBe('closed');
  });
});
