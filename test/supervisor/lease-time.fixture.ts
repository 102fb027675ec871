/**
 * A supervisor and the loopback simulator sharing one clock the test moves (or real time), for
 * the tests of the heartbeat's time: renewals, the renewal deadline, views past expiry.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { removeScratch } from '../fixtures/scratch.js';

export interface TimeWorld {
  sim: RunningSimulator;
  supervisor: Supervisor;
  /** Moves the shared clock forward (no-op meaning with real time: use real waits). */
  advance(ms: number): void;
  now(): number;
  act(body: Record<string, unknown>): Promise<{ ok: boolean; value?: any; error?: { code: string; message: string } }>;
  view(id: string): Promise<any>;
  renewals(): number;
  close(): Promise<void>;
}

/** TTL 120 s, heartbeat 60 s: the shortest the configuration allows. */
export async function timeWorld(opts: { fakeClock: boolean; heartbeat?: boolean; env?: Record<string, string> }): Promise<TimeWorld> {
  let t = Date.now();
  const clock = opts.fakeClock ? () => t : Date.now;
  const sim = await startSimulator({ port: 0, clock });
  const root = await mkdtemp(join(tmpdir(), 'argus-time-'));
  const config = loadConfig({
    ARGUS_SUPERVISOR_ENABLED: '1',
    OPENTRAINING_A2A_URL: sim.url,
    ARGUS_SUPERVISOR_STATE_ROOT: root,
    ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60',
    ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '120',
    ...opts.env,
  });
  const supervisor = await createSupervisor({ config, logger: captureLogs().logger, now: () => new Date(clock()) });
  await supervisor.start({ heartbeat: opts.heartbeat ?? false, initialSweep: false });
  return {
    sim,
    supervisor,
    advance: (ms) => void (t += ms),
    now: clock,
    act: async (body) => (await supervisor.campaignAction(body)) as never,
    async view(id) {
      const r = (await supervisor.campaigns({ action: 'get', campaign_id: id })) as { ok: true; value: { campaign: unknown } };
      return r.value.campaign;
    },
    renewals: () => sim.stats().requests[CONTROL_METHODS.leaseRenew] ?? 0,
    async close() {
      await supervisor.stop();
      await sim.close();
      await removeScratch(root);
    },
  };
}

/** Creates a campaign (attached to a fresh task unless `task` is false) and claims it; returns the task id or null. */
export async function claimed(w: TimeWorld, id: string, task = true): Promise<string | null> {
  const [taskId] = task ? w.sim.createTasks(1, 'steady') : [undefined];
  const created = await w.supervisor.campaigns({ action: 'create', campaign_id: id, objective: 'fine-tune a model', ...(taskId ? { remote_task_id: taskId } : {}) });
  if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const claim = await w.act({ campaign_id: id, action: 'claim' });
  if (!claim.ok) throw new Error(`claim failed: ${JSON.stringify(claim.error)}`);
  return taskId ?? null;
}

/** The campaign's public CRITICAL events for a lost lease. */
export const controlLost = (w: TimeWorld, id: string) =>
  w.supervisor
    .status()
    .events.filter((e) => e.campaign_id === id && e.kind === 'CRITICAL' && (e.data as { reason?: string } | undefined)?.reason !== undefined)
    .filter((e) => /control/i.test(e.summary));
