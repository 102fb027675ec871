/**
 * The decision runtimes of one supervisor, composed from its configuration: the Argus bridge
 * (one MCP child, started lazily on the first call) and the Foreman runner (one short child per
 * assessment). Building it starts nothing and calls no model; it only resolves paths, builds
 * the two child environments and reports, from the file system, what is missing
 * (availability.ts). Neither child ever receives our API key or the OpenTraining token: both
 * are passed as `secrets`, so the environment builders refuse them and the bridge refuses any
 * tool argument that contains one and redacts them from everything Argus sends back.
 *
 * `argus_supervisor_model_calls_total{runtime}` is counted here and only here: once per
 * `argus_message` the bridge sends and once per Foreman child that starts. Status reads,
 * project creation and stops are not model calls.
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import {
  ARGUS_MCP_ARGS,
  buildArgusEnv,
  buildDecisionEnvelope,
  buildOperatorAnswerEnvelope,
  campaignWorkdir,
  createArgusBridge,
  readProposal,
  resolveArgusHome,
  type ArgusBridge,
  type ProposalRead,
} from '../../adapters/argus/index.js';
import type { DecisionEvent } from '../../adapters/argus/envelope.js';
import {
  buildForemanEnv,
  buildForemanObservation,
  foremanHome,
  foremanShimPath,
  runForeman,
  type ForemanCampaignFacts,
  type ForemanVerdict,
  type Outcome,
} from '../../adapters/foreman/index.js';
import { silentLogger, type Logger } from '../../adapters/logger.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { SupervisorConfig } from '../config/config.js';
import { ARGUS_SERVER_FILE, executableFile, FOREMAN_PACKAGE_FILE, installedBeside, type ArgusMissing, type DecisionAvailability, type ForemanMissing } from './availability.js';

export type { DecisionAvailability } from './availability.js';
export type DecisionRuntimeName = 'argus' | 'foreman';

export interface DecisionRuntimeDeps {
  metrics: Pick<SupervisorMetrics, 'modelCalls'>;
  logger?: Logger;
  /** Where PATH, `ARGUS_SKILL_*` knobs, the backend's own variables and Foreman's credential come from (default process.env). */
  env?: Record<string, string | undefined>;
  /** SIMULATED seam (tests, demo): run `<argus python> <this script>` instead of `-m argus_skill.plugin.mcp_server`. */
  simulatedArgusServer?: string;
  /** SIMULATED seam (tests, demo): this shim instead of runtime/foreman_shim.py. */
  simulatedForemanShim?: string;
  /** Extra Foreman child variables from the adapter's allow-list (the fake's script and record files). */
  foremanExtraEnv?: Record<string, string | undefined>;
  /** Sees each Foreman child once spawned (tests record its output). */
  onForemanChild?: (child: ChildProcess) => void;
  foremanTimeoutMs?: number;
}

export interface DecisionRuntime {
  /** Recomputed on each call (a few `stat`s): an interpreter installed later is seen. */
  availability(): DecisionAvailability;
  /** The bridge while Argus is available, else null: no autonomous proposal runs then. */
  argus(): ArgusBridge | null;
  /** `ARGUS_SKILL_HOME` (under the state root); null when it could not be resolved. */
  readonly argusHome: string | null;
  /** One Argus call's budget and the mission deadline (config), for the chart. */
  readonly decisionBudgetMs: number;
  readonly missionDeadlineMs: number;
  /** One Foreman assessment; without Foreman a failed outcome at once and no child. */
  assessForeman(observation: object): Promise<Outcome<ForemanVerdict>>;
  /** The same, from campaign facts: the observation is built (sanitized, bounded) here. */
  assessCampaign(facts: ForemanCampaignFacts): Promise<Outcome<ForemanVerdict>>;
  /** `availability()` at most every few seconds: material reads ask it for the chart's facts. */
  recentAvailability(): DecisionAvailability;
  /** The text of one `argus_message` (our secrets redacted from every field). @throws ArgusEnvelopeError */
  decisionEnvelope(input: { campaignId: string; objective: string; eventKey: string; event: DecisionEvent }): string;
  answerEnvelope(input: { itemId: string | null; answer: string; eventKey: string; notice: string }): string;
  /** The campaign's proposal file for this event (never throws; see adapters/argus/proposal-file.ts). */
  readProposal(campaignId: string, eventKey: string): Promise<ProposalRead>;
  /** Creates `<argus home>/workspaces/<campaign id>` (0700) and returns it; null without a home. */
  ensureWorkdir(campaignId: string): string | null;
  /** Counts one model call of `runtime` (wired into both runtimes; exposed for the metric's tests). */
  onModelCall(runtime: DecisionRuntimeName): void;
  /** Stops the Argus child (Argus's own daemon, a separate process, is left running). */
  close(): Promise<void>;
}

/** How long a recent availability answer is reused (a few `stat`s each time it is not). */
const AVAILABILITY_TTL_MS = 5_000;

/** A runtime outcome (the adapters' codes), never an API answer: the chart maps it to a reason. */
const notRun = <T>(code: string, message: string): Outcome<T> => ({ ok: false, error: { code, message } });
const errorCode = (e: unknown): string => (e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : 'unexpected');

/** Creates the Argus HOME (`<home>/home`, 0700) before the first call, not at construction. */
function withHome(bridge: ArgusBridge, home: string): ArgusBridge {
  let made = false;
  const guard = <T>(call: () => Promise<Outcome<T>>): Promise<Outcome<T>> => {
    if (!made) {
      try {
        mkdirSync(path.join(home, 'home'), { recursive: true, mode: 0o700 });
        made = true;
      } catch {
        return Promise.resolve(notRun('argus_unavailable', 'The Argus home folder could not be created.'));
      }
    }
    return call();
  };
  return {
    createProject: (workdir, name) => guard(() => bridge.createProject(workdir, name)),
    message: (projectId, text) => guard(() => bridge.message(projectId, text)),
    status: (projectId) => guard(() => bridge.status(projectId)),
    stop: (projectId, force) => guard(() => bridge.stop(projectId, force)),
    close: () => bridge.close(),
  };
}

export function createDecisionRuntime(config: SupervisorConfig, deps: DecisionRuntimeDeps): DecisionRuntime {
  const logger = (deps.logger ?? silentLogger()).child({ component: 'decisions' });
  const source = deps.env ?? process.env;
  const secrets = [config.apiKey, config.a2aToken].filter((s): s is string => s !== null && s !== '');
  const onModelCall = (runtime: DecisionRuntimeName) => deps.metrics.modelCalls.inc({ runtime });
  const childPath = (python: string | null) => [python ? path.dirname(python) : null, source.PATH ?? '/usr/bin:/bin'].filter(Boolean).join(':');
  const budgetMs = config.decisionBudgetSeconds * 1000;

  // ---- Argus: env and home now (pure), the child only on the first call.
  let argusHome: string | null = null;
  let argusSetupFailed = false;
  let bridge: ArgusBridge | null = null;
  try {
    argusHome = resolveArgusHome(config.stateRoot, config.argusHome);
    if (config.backend !== null && config.argusPython !== null) {
      const env = buildArgusEnv({ home: argusHome, path: childPath(config.argusPython), backend: config.backend, extra: source, secrets });
      const args = deps.simulatedArgusServer !== undefined ? [deps.simulatedArgusServer] : [...ARGUS_MCP_ARGS];
      const created = createArgusBridge({
        command: config.argusPython,
        args,
        env,
        cwd: argusHome,
        callTimeoutMs: budgetMs,
        secrets,
        onModelCall: () => onModelCall('argus'),
        log: (line) => logger.info({ runtime: 'argus' }, line),
      });
      bridge = withHome(created, argusHome);
    }
  } catch (e) {
    argusSetupFailed = true;
    logger.warn({ code: errorCode(e) }, 'the Argus runtime cannot be set up; no model decision will run');
  }

  // ---- Foreman: the env now (pure), a child per assessment.
  let shim: string | null = deps.simulatedForemanShim ?? null;
  if (shim === null) {
    try {
      shim = foremanShimPath();
    } catch {
      shim = null;
    }
  }
  let foremanEnv: Record<string, string> | null = null;
  try {
    foremanEnv = buildForemanEnv({ home: foremanHome(config.stateRoot), path: childPath(config.foremanPython), secrets, extra: { TYPESAFE_API_KEY: source.TYPESAFE_API_KEY, ...deps.foremanExtraEnv } });
  } catch (e) {
    if (config.foremanEnabled) logger.warn({ code: errorCode(e) }, 'the Foreman runtime cannot be set up; no assessment will run');
  }

  let closed = false;
  function availability(): DecisionAvailability {
    const argusMissing: ArgusMissing[] = [];
    if (config.backend === null) argusMissing.push('backend');
    if (!executableFile(config.argusPython)) argusMissing.push('argus_python');
    const server =
      deps.simulatedArgusServer !== undefined ? existsSync(deps.simulatedArgusServer) : config.argusPython !== null && installedBeside(config.argusPython, ARGUS_SERVER_FILE);
    if (argusSetupFailed || !server) argusMissing.push('argus_runtime');

    const foremanMissing: ForemanMissing[] = [];
    if (!executableFile(config.foremanPython)) foremanMissing.push('foreman_python');
    if (shim === null || !existsSync(shim)) foremanMissing.push('foreman_shim');
    // The upstream package lives beside the interpreter (whether or not that one is executable).
    const upstream = deps.simulatedForemanShim !== undefined || (config.foremanPython !== null && installedBeside(config.foremanPython, FOREMAN_PACKAGE_FILE));
    if (foremanEnv === null || !upstream) foremanMissing.push('foreman_runtime');
    return {
      argus: { available: !closed && argusMissing.length === 0, missing: argusMissing },
      foreman: { enabled: config.foremanEnabled, available: !closed && config.foremanEnabled && foremanMissing.length === 0, missing: foremanMissing },
    };
  }

  const sanitize = (text: string, cap: number) => sanitizeRemoteText(text, secrets, cap);
  let recent: { at: number; value: DecisionAvailability } | null = null;
  const assessForeman = (observation: object): Promise<Outcome<ForemanVerdict>> => {
    if (!config.foremanEnabled) return Promise.resolve(notRun('foreman_disabled', 'Foreman is off (ARGUS_SUPERVISOR_FOREMAN_ENABLED).'));
    const now = availability().foreman;
    if (!now.available || foremanEnv === null || shim === null || config.foremanPython === null) {
      return Promise.resolve(notRun('foreman_unavailable', `Foreman cannot run here (missing: ${now.missing.join(', ') || 'closed'}).`));
    }
    return runForeman({
      python: config.foremanPython,
      shimPath: shim,
      observation,
      env: foremanEnv,
      ...(deps.foremanTimeoutMs !== undefined ? { timeoutMs: deps.foremanTimeoutMs } : {}),
      onModelCall: () => onModelCall('foreman'),
      sanitize,
      secrets,
      ...(deps.onForemanChild ? { onChild: deps.onForemanChild } : {}),
    });
  };

  return {
    availability,
    recentAvailability() {
      const nowMs = Date.now();
      if (recent === null || nowMs - recent.at > AVAILABILITY_TTL_MS) recent = { at: nowMs, value: availability() };
      return recent.value;
    },
    decisionEnvelope: (input) => buildDecisionEnvelope({ ...input, secrets }),
    answerEnvelope: (input) => buildOperatorAnswerEnvelope({ ...input, secrets }),
    readProposal: (campaignId, eventKey) =>
      argusHome === null ? Promise.resolve({ status: 'none' as const }) : readProposal(campaignWorkdir(argusHome, campaignId), eventKey, { secrets }),
    ensureWorkdir(campaignId) {
      if (argusHome === null) return null;
      const dir = campaignWorkdir(argusHome, campaignId);
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        return dir;
      } catch {
        return null;
      }
    },
    assessCampaign(facts) {
      if (!config.foremanEnabled) return assessForeman({});
      let observation: object;
      try {
        observation = buildForemanObservation(facts, sanitize);
      } catch (e) {
        return Promise.resolve(notRun(errorCode(e), 'The Foreman observation could not be built.'));
      }
      return assessForeman(observation);
    },
    argus: () => (bridge !== null && availability().argus.available ? bridge : null),
    argusHome,
    decisionBudgetMs: budgetMs,
    missionDeadlineMs: config.missionDeadlineSeconds * 1000,
    onModelCall,
    assessForeman,
    async close() {
      closed = true;
      await bridge?.close();
    },
  };
}
