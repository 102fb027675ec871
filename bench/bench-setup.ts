/**
 * What the heartbeat benchmark sets up before it measures anything, shared by the in-process
 * run and the restart child so both build the supervisor the same way: the config, the
 * injected remote, the counters read off `supervisor.metrics`, the steady tasks and the N
 * campaigns. Uses only the supervisor's public API (`createSupervisor`, `start`, `sweep`,
 * `stop`, `metrics`, `campaigns`), so it survives a rewrite of the supervisor's inside.
 * @module
 */
import pLimit from 'p-limit';
import { request } from 'undici';
import { createA2AClient, type A2AClient } from '../adapters/a2a/index.js';
import { loadConfig, type SupervisorConfig } from '../services/config/config.js';
import { createSupervisor, type Supervisor, type WakeHandler } from '../services/runtime/supervisor.js';

/** Parallel campaign creations during setup (each writes one document). */
export const CREATE_CONCURRENCY = 32;

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round3 = (n: number) => Math.round(n * 1000) / 1000;
export const mb = (bytes: number) => round1(bytes / (1024 * 1024));

/** The one config every benchmark supervisor runs with (in-process and restarted alike). */
export function benchConfig(simUrl: string, stateRoot: string): SupervisorConfig {
  return loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: simUrl, ARGUS_SUPERVISOR_STATE_ROOT: stateRoot });
}

export interface BenchSupervisor {
  supervisor: Supervisor;
  remote: A2AClient;
  /** Wake requests handed to the (counting) bridges so far. */
  wakes(): number;
}

/**
 * A supervisor on `stateRoot` with the client it would build itself, but with as many sockets
 * as reads in flight, and counting bridges in place of Argus and Foreman. Not started.
 */
export async function createBenchSupervisor(simUrl: string, stateRoot: string, concurrency: number): Promise<BenchSupervisor> {
  let wakes = 0;
  const countWake: WakeHandler = async () => {
    wakes++;
  };
  const remote = createA2AClient({ baseUrl: simUrl, connections: concurrency });
  const supervisor = await createSupervisor({
    config: benchConfig(simUrl, stateRoot),
    remote,
    concurrency,
    wakeHandlers: { argus: countWake, foreman: countWake },
  });
  return { supervisor, remote, wakes: () => wakes };
}

export async function counterTotal(counter: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);
}

export async function unchangedTicks(supervisor: Supervisor): Promise<number> {
  return (await supervisor.metrics.ticks.get()).values.find((v) => v.labels.result === 'unchanged')?.value ?? 0;
}

export async function createSteadyTasks(origin: string, count: number): Promise<string[]> {
  const res = await request(`${origin}/_sim/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count, scenario: 'steady' }),
  });
  const body = (await res.body.json()) as { ids?: string[] };
  if (res.statusCode !== 200 || !Array.isArray(body.ids) || body.ids.length !== count) {
    throw new Error(`the simulator admin API answered ${res.statusCode} to POST /_sim/tasks`);
  }
  return body.ids;
}

export async function createCampaigns(supervisor: Supervisor, taskIds: readonly string[]): Promise<void> {
  const limit = pLimit(CREATE_CONCURRENCY);
  let done = 0;
  const step = Math.max(1000, Math.ceil(taskIds.length / 10));
  await Promise.all(
    taskIds.map((taskId, i) =>
      limit(async () => {
        const campaignId = `bench-${String(i).padStart(6, '0')}`;
        const created = await supervisor.campaigns({ action: 'create', campaign_id: campaignId, objective: 'heartbeat benchmark', remote_task_id: taskId });
        if (!created.ok) throw new Error(`creating ${campaignId} failed: ${created.error.code}`);
        if (++done % step === 0) log(`created ${done}/${taskIds.length} campaigns`);
      }),
    ),
  );
}
