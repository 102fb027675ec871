/**
 * A whole decision world on loopback: the A2A simulator (real server), a supervisor whose
 * decision runtime runs the SIMULATED Argus MCP server as a real child over real stdio (and,
 * when asked, the SIMULATED Foreman shim as a real python child), and the helpers the flow
 * tests drive it with. Our API key and the OpenTraining token are canaries, set exactly where
 * the supervisor reads them.
 */
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fakeForemanPath } from '../../adapters/foreman/index.js';
import { createMetrics, type SupervisorMetrics } from '../../services/metrics/metrics.js';
import { createDecisionRuntime, type DecisionRuntime } from '../../services/decisions/decision-runtime.js';
import { loadConfig, type SupervisorConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator, type ScenarioName } from '../../simulator/index.js';
import type { ScriptEntry } from '../../simulator/argus/fake-argus-state.js';
import { FAKE_ARGUS_MAIN } from '../argus/fake-argus-fixture.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { envFor, summaryOf, tempStateRoot, type Scope } from '../fixtures/supervisor-harness.js';

export interface DecisionWorld {
  sim: Awaited<ReturnType<typeof startSimulator>>;
  supervisor: Supervisor;
  config: SupervisorConfig;
  metrics: SupervisorMetrics;
  decisions: DecisionRuntime;
  stateRoot: string;
  argusHome: string;
  apiKey: string;
  token: string;
  logs: string[];
  env: Record<string, string>;
  writeScript(script: Record<string, ScriptEntry>): void;
  /** The SIMULATED Foreman's script (FAKE_FOREMAN_SCRIPT; see simulator/foreman/fake_foreman.py). */
  writeForemanScript(script: Record<string, unknown>): void;
  /** Every run the SIMULATED Foreman recorded: its argv, env and stdin. */
  foremanRecords(): { argv: string[]; env: Record<string, string>; stdin: string }[];
  /** Every line of the fake's record (starts with env + argv, and every tool call). */
  records(): { type: string; tool?: string; arguments?: Record<string, unknown>; env?: Record<string, string>; argv?: string[]; at?: string }[];
  modelCalls(runtime: 'argus' | 'foreman'): Promise<number>;
  argusMessages(): { project_id: string; text: string }[];
  /** Sweeps until `done` holds (each sweep TICKs every campaign), at most `max` times. */
  sweepUntil(done: () => boolean, max?: number): Promise<void>;
  act(campaignId: string, body: Record<string, unknown>): ReturnType<Supervisor['campaignAction']>;
}

export interface DecisionWorldOptions {
  extra?: Record<string, string>;
  foreman?: boolean;
  /** Start on this state root (a restart of an earlier world). */
  stateRoot?: string;
  apiKey?: string;
  token?: string;
  /** The remote to supervise instead of the simulator (a hand-written A2A server). */
  url?: string;
  /** The supervisor's clock (the simulator keeps its own). */
  now?: () => Date;
}

export async function decisionWorld(scope: Scope, opts: DecisionWorldOptions = {}): Promise<DecisionWorld> {
  const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 2 }), (s) => s.close());
  const stateRoot = opts.stateRoot ?? (await tempStateRoot(scope));
  const apiKey = opts.apiKey ?? canary('world-api-key');
  const token = opts.token ?? canary('world-ot-token');
  const env = envFor({
    stateRoot,
    url: opts.url ?? sim.url,
    apiKey,
    token,
    extra: {
      ARGUS_SUPERVISOR_BACKEND: 'codex',
      ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath,
      ...(opts.foreman ? { ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: '/usr/bin/python3' } : {}),
      ...opts.extra,
    },
  });
  const config = loadConfig(env);
  const metrics = createMetrics({ defaultMetrics: false });
  const { logger, lines } = captureLogs();
  // The process environment holds both secrets too: nothing of it reaches a child but what it needs.
  const processEnv = { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root' };
  const foremanRecord = path.join(stateRoot, 'fake-foreman-record.jsonl');
  const foremanScript = path.join(stateRoot, 'fake-foreman-script.json');
  // No entry for any run: the shim decides from the observation until a test writes a script.
  const writeForemanScript = (script: Record<string, unknown>) => writeFileSync(foremanScript, JSON.stringify(script));
  if (opts.foreman) writeForemanScript({ byRunId: {} });
  const decisions = createDecisionRuntime(config, {
    metrics,
    logger,
    env: processEnv,
    simulatedArgusServer: FAKE_ARGUS_MAIN,
    ...(opts.foreman ? { simulatedForemanShim: fakeForemanPath(), foremanExtraEnv: { FAKE_FOREMAN_RECORD: foremanRecord, FAKE_FOREMAN_SCRIPT: foremanScript } } : {}),
  });
  const supervisor = await createSupervisor({ config, logger, metrics, decisions, ...(opts.now ? { now: opts.now } : {}) });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  scope.defer(supervisor, (s) => s.stop());
  const argusHome = decisions.argusHome ?? path.join(stateRoot, 'argus-home');
  const recordPath = path.join(argusHome, 'fake-argus-record.jsonl');
  const records = () =>
    existsSync(recordPath)
      ? readFileSync(recordPath, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const world: DecisionWorld = {
    sim,
    supervisor,
    config,
    metrics,
    decisions,
    stateRoot,
    argusHome,
    apiKey,
    token,
    logs: lines,
    env,
    writeScript(script) {
      mkdirSync(argusHome, { recursive: true });
      writeFileSync(path.join(argusHome, 'fake-argus-script.json'), JSON.stringify(script));
    },
    writeForemanScript,
    foremanRecords: () => (existsSync(foremanRecord) ? readFileSync(foremanRecord, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []),
    records,
    async modelCalls(runtime) {
      return (await metrics.modelCalls.get()).values.find((v) => v.labels.runtime === runtime)?.value ?? 0;
    },
    argusMessages: () => records().filter((r) => r.type === 'call' && r.tool === 'argus_message').map((r) => r.arguments as { project_id: string; text: string }),
    async sweepUntil(done, max = 40) {
      for (let i = 0; i < max && !done(); i++) {
        await supervisor.sweep();
        // The decision effects (a turn, a status poll) run beside the heartbeat: let them answer.
        await new Promise((r) => setTimeout(r, 20));
      }
      if (!done()) throw new Error(`not settled after ${max} sweeps: ${JSON.stringify(summaryOf(supervisor, 'c1'))}`);
    },
    act: (campaignId, body) => supervisor.campaignAction({ campaign_id: campaignId, ...body } as never),
  };
  return world;
}

export type { ScenarioName };
