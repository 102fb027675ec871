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
  readProposal as readProposalFile,
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
import { withHome } from './argus-home-guard.js';
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

/** The installed runtime/foreman_shim.py, or null when it cannot be located. */
function installedForemanShim(): string | null {
  try {
    return foremanShimPath();
  } catch {
    return null;
  }
}

/**
 * The decision runtimes built from one supervisor's configuration (see the module comment).
 * Construction resolves paths and builds both child environments; no child starts and no
 * model is called until the first Argus call or Foreman assessment.
 */
class ConfiguredDecisionRuntime implements DecisionRuntime {
  readonly argusHome: string | null;
  readonly decisionBudgetMs: number;
  readonly missionDeadlineMs: number;
  private readonly logger: Logger;
  /** Where PATH, the backend's variables and Foreman's credential are read (deps.env, else process.env). */
  private readonly source: Record<string, string | undefined>;
  /** Our API key and the OpenTraining token: refused by both env builders and the bridge, redacted from answers. */
  private readonly secrets: string[];
  private readonly argusSetupFailed: boolean;
  /** Null without a backend or an Argus interpreter, or when the set-up failed. */
  private readonly bridge: ArgusBridge | null;
  private readonly shim: string | null;
  private readonly foremanEnv: Record<string, string> | null;
  private closed = false;
  private recent: { at: number; value: DecisionAvailability } | null = null;

  /** Handed to the Foreman runner and the observation builder: an arrow, so it keeps `this`. */
  private readonly sanitize = (text: string, cap: number): string => sanitizeRemoteText(text, this.secrets, cap);

  constructor(private readonly config: SupervisorConfig, private readonly deps: DecisionRuntimeDeps) {
    this.logger = (deps.logger ?? silentLogger()).child({ component: 'decisions' });
    this.source = deps.env ?? process.env;
    this.secrets = [config.apiKey, config.a2aToken].filter((s): s is string => s !== null && s !== '');
    this.decisionBudgetMs = config.decisionBudgetSeconds * 1000;
    this.missionDeadlineMs = config.missionDeadlineSeconds * 1000;
    const argus = this.setUpArgus();
    this.argusHome = argus.home;
    this.bridge = argus.bridge;
    this.argusSetupFailed = argus.failed;
    this.shim = deps.simulatedForemanShim ?? installedForemanShim();
    this.foremanEnv = this.setUpForemanEnv();
  }

  /** The PATH a child gets: its interpreter's folder first, then ours. */
  private childPath(python: string | null): string {
    return [python ? path.dirname(python) : null, this.source.PATH ?? '/usr/bin:/bin'].filter(Boolean).join(':');
  }

  /** Argus: env and home now (pure), the child only on the first call. A home resolved before a failure is kept. */
  private setUpArgus(): { home: string | null; bridge: ArgusBridge | null; failed: boolean } {
    const { config, deps, secrets } = this;
    let home: string | null = null;
    try {
      home = resolveArgusHome(config.stateRoot, config.argusHome);
      if (config.backend === null || config.argusPython === null) return { home, bridge: null, failed: false };
      const env = buildArgusEnv({ home, path: this.childPath(config.argusPython), backend: config.backend, extra: this.source, secrets });
      const args = deps.simulatedArgusServer !== undefined ? [deps.simulatedArgusServer] : [...ARGUS_MCP_ARGS];
      const created = createArgusBridge({
        command: config.argusPython,
        args,
        env,
        cwd: home,
        callTimeoutMs: this.decisionBudgetMs,
        secrets,
        onModelCall: () => this.onModelCall('argus'),
        log: (line) => this.logger.info({ runtime: 'argus' }, line),
      });
      return { home, bridge: withHome(created, home), failed: false };
    } catch (e) {
      this.logger.warn({ code: errorCode(e) }, 'the Argus runtime cannot be set up; no model decision will run');
      return { home, bridge: null, failed: true };
    }
  }

  /** Foreman: the env now (pure), a child per assessment. Null when it cannot be built. */
  private setUpForemanEnv(): Record<string, string> | null {
    const { config } = this;
    try {
      const extra = { TYPESAFE_API_KEY: this.source.TYPESAFE_API_KEY, ...this.deps.foremanExtraEnv };
      return buildForemanEnv({ home: foremanHome(config.stateRoot), path: this.childPath(config.foremanPython), secrets: this.secrets, extra });
    } catch (e) {
      if (config.foremanEnabled) this.logger.warn({ code: errorCode(e) }, 'the Foreman runtime cannot be set up; no assessment will run');
      return null;
    }
  }

  availability(): DecisionAvailability {
    const { config, deps } = this;
    const argusMissing: ArgusMissing[] = [];
    if (config.backend === null) argusMissing.push('backend');
    if (!executableFile(config.argusPython)) argusMissing.push('argus_python');
    const server =
      deps.simulatedArgusServer !== undefined ? existsSync(deps.simulatedArgusServer) : config.argusPython !== null && installedBeside(config.argusPython, ARGUS_SERVER_FILE);
    if (this.argusSetupFailed || !server) argusMissing.push('argus_runtime');

    const foremanMissing: ForemanMissing[] = [];
    if (!executableFile(config.foremanPython)) foremanMissing.push('foreman_python');
    if (this.shim === null || !existsSync(this.shim)) foremanMissing.push('foreman_shim');
    // The upstream package lives beside the interpreter (whether or not that one is executable).
    const upstream = deps.simulatedForemanShim !== undefined || (config.foremanPython !== null && installedBeside(config.foremanPython, FOREMAN_PACKAGE_FILE));
    if (this.foremanEnv === null || !upstream) foremanMissing.push('foreman_runtime');
    return {
      argus: { available: !this.closed && argusMissing.length === 0, missing: argusMissing },
      foreman: { enabled: config.foremanEnabled, available: !this.closed && config.foremanEnabled && foremanMissing.length === 0, missing: foremanMissing },
    };
  }

  recentAvailability(): DecisionAvailability {
    const nowMs = Date.now();
    if (this.recent === null || nowMs - this.recent.at > AVAILABILITY_TTL_MS) this.recent = { at: nowMs, value: this.availability() };
    return this.recent.value;
  }

  argus(): ArgusBridge | null {
    return this.bridge !== null && this.availability().argus.available ? this.bridge : null;
  }

  decisionEnvelope(input: Parameters<DecisionRuntime['decisionEnvelope']>[0]): string {
    return buildDecisionEnvelope({ ...input, secrets: this.secrets });
  }

  answerEnvelope(input: Parameters<DecisionRuntime['answerEnvelope']>[0]): string {
    return buildOperatorAnswerEnvelope({ ...input, secrets: this.secrets });
  }

  readProposal(campaignId: string, eventKey: string): Promise<ProposalRead> {
    if (this.argusHome === null) return Promise.resolve({ status: 'none' });
    return readProposalFile(campaignWorkdir(this.argusHome, campaignId), eventKey, { secrets: this.secrets });
  }

  ensureWorkdir(campaignId: string): string | null {
    if (this.argusHome === null) return null;
    const dir = campaignWorkdir(this.argusHome, campaignId);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      return null;
    }
  }

  assessForeman(observation: object): Promise<Outcome<ForemanVerdict>> {
    const { config, deps, foremanEnv, shim } = this;
    if (!config.foremanEnabled) return Promise.resolve(notRun('foreman_disabled', 'Foreman is off (ARGUS_SUPERVISOR_FOREMAN_ENABLED).'));
    const now = this.availability().foreman;
    if (!now.available || foremanEnv === null || shim === null || config.foremanPython === null) {
      return Promise.resolve(notRun('foreman_unavailable', `Foreman cannot run here (missing: ${now.missing.join(', ') || 'closed'}).`));
    }
    return runForeman({
      python: config.foremanPython,
      shimPath: shim,
      observation,
      env: foremanEnv,
      ...(deps.foremanTimeoutMs !== undefined ? { timeoutMs: deps.foremanTimeoutMs } : {}),
      onModelCall: () => this.onModelCall('foreman'),
      sanitize: this.sanitize,
      secrets: this.secrets,
      ...(deps.onForemanChild ? { onChild: deps.onForemanChild } : {}),
    });
  }

  assessCampaign(facts: ForemanCampaignFacts): Promise<Outcome<ForemanVerdict>> {
    if (!this.config.foremanEnabled) return this.assessForeman({});
    let observation: object;
    try {
      observation = buildForemanObservation(facts, this.sanitize);
    } catch (e) {
      return Promise.resolve(notRun(errorCode(e), 'The Foreman observation could not be built.'));
    }
    return this.assessForeman(observation);
  }

  onModelCall(runtime: DecisionRuntimeName): void {
    this.deps.metrics.modelCalls.inc({ runtime });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.bridge?.close();
  }
}

export function createDecisionRuntime(config: SupervisorConfig, deps: DecisionRuntimeDeps): DecisionRuntime {
  return new ConfiguredDecisionRuntime(config, deps);
}
