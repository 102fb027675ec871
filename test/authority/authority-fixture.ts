/**
 * A supervisor against a real loopback simulator, driven only through the operator API, for
 * the authority tests. Nothing here is timing-dependent: sweeps and observations are explicit.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { isTerminal } from '../../simulator/world/scenarios.js';
import type { A2AClient } from '../../adapters/a2a/index.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { removeScratch } from '../fixtures/scratch.js';

export interface AuthorityWorld {
  sim: RunningSimulator;
  supervisor: Supervisor;
  root: string;
  act(body: Record<string, unknown>): Promise<{ ok: boolean; value?: any; error?: { code: string; message: string } }>;
  campaign(id: string): Promise<any>;
  publicKinds(id: string): string[];
  restart(): Promise<Supervisor>;
  close(): Promise<void>;
}

export async function authorityWorld(
  simOptions: SimulatorOptions = {},
  env: Record<string, string> = {},
  opts: { remote?: (url: string) => A2AClient } = {},
): Promise<AuthorityWorld> {
  const sim = await startSimulator({ port: 0, ...simOptions });
  let root: string;
  try {
    root = await mkdtemp(join(tmpdir(), 'argus-authority-'));
  } catch (error) {
    await sim.close();
    throw error;
  }
  const config = () =>
    loadConfig({
      ARGUS_SUPERVISOR_ENABLED: '1',
      OPENTRAINING_A2A_URL: sim.url,
      ARGUS_SUPERVISOR_STATE_ROOT: root,
      ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60',
      ...env,
    });
  // The supervisor's log lines are recorded for the end-of-run canary scan.
  const { logger } = captureLogs();
  const make = () => createSupervisor({ config: config(), logger, ...(opts.remote ? { remote: opts.remote(sim.url) } : {}) });
  let supervisor: Supervisor;
  try {
    supervisor = await make();
    await supervisor.start({ heartbeat: false, initialSweep: false });
  } catch (error) {
    await sim.close();
    await removeScratch(root);
    throw error;
  }
  const world: AuthorityWorld = {
    sim,
    root,
    get supervisor() {
      return supervisor;
    },
    act: async (body) => (await supervisor.campaignAction(body)) as never,
    async campaign(id) {
      const r = (await supervisor.campaigns({ action: 'get', campaign_id: id })) as { ok: true; value: { campaign: unknown } };
      return r.value.campaign;
    },
    publicKinds(id) {
      return supervisor.status().events.filter((e) => e.campaign_id === id).map((e) => e.kind);
    },
    async restart() {
      await supervisor.stop();
      supervisor = await make();
      await supervisor.start({ heartbeat: false, initialSweep: false });
      return supervisor;
    },
    async close() {
      await supervisor.stop();
      await sim.close();
      await removeScratch(root);
    },
  } as AuthorityWorld;
  return world;
}

/** Creates a campaign attached to a fresh simulator task and observes it once. */
export async function attached(world: AuthorityWorld, id: string, scenario = 'steady', maxAttempts?: number): Promise<string> {
  const [taskId] = world.sim.createTasks(1, scenario as never);
  const created = await world.supervisor.campaigns({
    action: 'create',
    campaign_id: id,
    objective: 'fine-tune a model',
    remote_task_id: taskId,
    ...(maxAttempts ? { max_attempts: maxAttempts } : {}),
  });
  if (!created.ok) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const observed = await world.act({ campaign_id: id, action: 'observe' });
  if (!observed.ok) throw new Error(`observe failed: ${JSON.stringify(observed.error)}`);
  return taskId!;
}


/** Moves a remote task to its end (bounded), then observes it, so no attempt is running. */
export async function finishAttempt(world: AuthorityWorld, campaignId: string, taskId: string): Promise<void> {
  const finished = () => isTerminal(world.sim.task(taskId)!.state);
  for (let i = 0; i < 50 && !finished(); i++) world.sim.advance(taskId);
  if (!finished()) throw new Error(`task ${taskId} did not finish`);
  const observed = await world.act({ campaign_id: campaignId, action: 'observe' });
  if (!observed.ok) throw new Error(`observe failed: ${JSON.stringify(observed.error)}`);
}

/** A campaign attached to a remote task that has already finished: a submit may start the next attempt. */
export async function attachedFinished(world: AuthorityWorld, id: string, maxAttempts?: number): Promise<string> {
  const taskId = await attached(world, id, 'failed', maxAttempts);
  await finishAttempt(world, id, taskId);
  return taskId;
}
