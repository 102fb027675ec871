/**
 * The decision side of a driven world (roots `argus` and `argus-restored`): the supervisor's
 * decision runtime runs the SIMULATED Argus MCP server (simulator/argus, `node
 * dist/simulator/argus/fake-argus-main.js`) as a real child over real stdio, and, when the
 * path needs it, the SIMULATED Foreman (simulator/foreman/fake_foreman.py) as a real python
 * child per assessment. Nothing here is Argus or Foreman: both are deterministic scripts that
 * speak the real protocols (tool names, result shapes, the shim's stdin/stdout contract).
 *
 * The levers a driver pulls, all on the simulated side:
 * - the fake Argus's script (`fake-argus-script.json`: reply kind, verdict, proposal, hang, …)
 *   and its clock (`fake-argus-clock.json`, kept on the world's clock, so a journal entry is
 *   "after the wake" on the same time line the supervisor judges it by);
 * - the fake Foreman's script (one directive, or a failing exit);
 * - DEFECTS: one call at a port (a bridge method, the Foreman runner) made to THROW, which
 *   neither fake can do through its protocol (the adapters turn every protocol failure into a
 *   coded outcome). This is the only way an effect's `xstate.error.actor.*` arises here, and
 *   it is injected explicitly, at the port, never in product code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fakeForemanPath } from '../../adapters/foreman/index.js';
import type { ArgusBridge } from '../../adapters/argus/index.js';
import type { Logger } from '../../adapters/logger.js';
import { createMetrics } from '../../services/metrics/metrics.js';
import type { SupervisorConfig } from '../../services/config/config.js';
import { createDecisionRuntime, type DecisionRuntime } from '../../services/decisions/decision-runtime.js';
import type { ScriptEntry } from '../../simulator/argus/fake-argus-state.js';
import { FAKE_ARGUS_MAIN } from '../argus/fake-argus-fixture.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import type { DrivenWorld, Received } from './driven-world.js';
import { AnswerOrder, type Port } from './answer-order.js';

export interface ArgusWorldOptions {
  /** Foreman enabled (`ARGUS_SUPERVISOR_FOREMAN_ENABLED`): the reads then say `foremanEnabled`. */
  foreman: boolean;
  /** Bind the campaign's mission, then restart the process (root `argus-restored`). */
  restored: boolean;
}

/** The decision effects (their invoke ids): while one runs, the campaign has not settled. */
export const DECISION_EFFECTS = ['argusTurn', 'argusCheck', 'foremanAssess', 'bindMission', 'verifyBinding'] as const;

/** Where a defect can be injected: a bridge method, or the Foreman runner. */
export type DefectPort = 'argus.status' | 'argus.createProject' | 'argus.message' | 'foreman.assess';

/** The configuration the decision runtime reads: a backend, the interpreters, Foreman on or off. */
export function argusEnv(opts: ArgusWorldOptions): Record<string, string> {
  return {
    ARGUS_SUPERVISOR_BACKEND: 'codex',
    // The SIMULATED server is a node script: node is its "python" (decision-runtime.ts simulatedArgusServer).
    ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath,
    // The smallest budget the configuration allows: a turn past it takes this long to time out.
    ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '10',
    // The model's mission deadline: 290 s after the turn (graph-decisions.ts WOKE_AT → DEADLINE).
    ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: '290',
    ...(opts.foreman ? { ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: '/usr/bin/python3' } : {}),
  };
}

export class DrivenArgus {
  private home: string | null = null;
  private clockMs: number;
  private readonly defects = new Set<DefectPort>();
  private readonly foremanScript: string;
  private readonly scripted: Record<string, ScriptEntry> = { '': {}, '*': {} };
  private peek: () => readonly Received[] = () => [];
  /** The planned order of the current group's answers (answer-order.ts). */
  readonly order = new AnswerOrder(() => this.peek());

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
    clockMs: number,
  ) {
    this.clockMs = clockMs;
    this.foremanScript = path.join(root, 'fake-foreman-script.json');
    // No entry for any run: the fake decides from the observation until a driver scripts it.
    this.writeForemanScript({ byRunId: {} });
  }

  /** A fresh runtime for each supervisor (a stopped supervisor closes its own). */
  runtime(config: SupervisorConfig): DecisionRuntime {
    const inner = createDecisionRuntime(config, {
      metrics: createMetrics({ defaultMetrics: false }),
      logger: this.logger,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.root },
      simulatedArgusServer: FAKE_ARGUS_MAIN,
      simulatedForemanShim: fakeForemanPath(),
      foremanExtraEnv: { FAKE_FOREMAN_RECORD: path.join(this.root, 'fake-foreman-record.jsonl'), FAKE_FOREMAN_SCRIPT: this.foremanScript },
      onForemanChild: (child) => void recordChildOutput(child, 'paths-fake-foreman'),
    });
    this.home = inner.argusHome;
    this.setClock(this.clockMs);
    return withDefects(inner, this.defects, this.order);
  }

  private file(name: string): string {
    if (this.home === null) throw new Error('the decision runtime has no Argus home');
    mkdirSync(this.home, { recursive: true });
    return path.join(this.home, name);
  }

  /** The fake Argus's clock follows the world's. */
  setClock(ms: number): void {
    this.clockMs = ms;
    if (this.home !== null) writeFileSync(this.file('fake-argus-clock.json'), JSON.stringify({ ms }));
  }

  /**
   * Changes the fake Argus's script (fake-argus-state.ts ScriptEntry): `events` is the entry
   * every event's turn and mission read (the empty prefix), `runtime` the `*` entry the
   * status reads and project creation read (they name no event).
   */
  script(which: 'events' | 'runtime', patch: ScriptEntry): void {
    const key = which === 'events' ? '' : '*';
    this.scripted[key] = { ...this.scripted[key], ...patch };
    writeFileSync(this.file('fake-argus-script.json'), JSON.stringify(this.scripted));
  }

  /** The fake Foreman's script (simulator/foreman/fake_foreman.py: a directive, or an exit code). */
  writeForemanScript(script: Record<string, unknown>): void {
    writeFileSync(this.foremanScript, JSON.stringify(script));
  }

  /** The next call at `port` throws (a DEFECT, see the module comment); once. */
  arm(port: DefectPort): void {
    this.defects.add(port);
  }

  /**
   * Whether a decision effect of this campaign actor is still running: one waiting for a turn
   * this group does not plan is not; one whose planned answer this group still expects is.
   */
  busy(actor: { getSnapshot(): { children: unknown } }): boolean {
    const children = actor.getSnapshot().children as Record<string, unknown>;
    return DECISION_EFFECTS.some((id) => id in children) && (!this.order.holding || this.order.expecting);
  }

  /** The runner takes over: decision calls wait for their planned turn from now on. */
  begin(world: DrivenWorld): void {
    this.peek = () => world.peek();
    this.order.start();
  }

  close(): void {
    this.order.stop(false);
  }
}

/**
 * The runtime with its ports ordered (answer-order.ts) and the armed defects: each throws at
 * its port once, then the port is itself again.
 */
function withDefects(inner: DecisionRuntime, defects: Set<DefectPort>, order: AnswerOrder): DecisionRuntime {
  /** Waits for the call's turn, then throws if a defect is armed there. */
  const at = async (port: Port, defect: DefectPort) => {
    await order.gate(port);
    if (defects.delete(defect)) throw new Error(`DEFECT injected by the driven-path harness at ${defect}`);
  };
  const bridge = (b: ArgusBridge): ArgusBridge => ({
    createProject: async (workdir, name) => (await at('createProject', 'argus.createProject'), b.createProject(workdir, name)),
    message: async (projectId, text) => (await at('message', 'argus.message'), b.message(projectId, text)),
    status: async (projectId) => (await at('status', 'argus.status'), b.status(projectId)),
    stop: (projectId, force) => b.stop(projectId, force),
    close: () => b.close(),
  });
  return {
    availability: () => inner.availability(),
    argus: () => {
      const b = inner.argus();
      return b === null ? null : bridge(b);
    },
    get argusHome() {
      return inner.argusHome;
    },
    get decisionBudgetMs() {
      return inner.decisionBudgetMs;
    },
    get missionDeadlineMs() {
      return inner.missionDeadlineMs;
    },
    assessForeman: (observation) => inner.assessForeman(observation),
    assessCampaign: async (facts) => (await at('assess', 'foreman.assess'), inner.assessCampaign(facts)),
    recentAvailability: () => inner.recentAvailability(),
    decisionEnvelope: (input) => inner.decisionEnvelope(input),
    answerEnvelope: (input) => inner.answerEnvelope(input),
    readProposal: (campaignId, eventKey) => inner.readProposal(campaignId, eventKey),
    ensureWorkdir: (campaignId) => inner.ensureWorkdir(campaignId),
    onModelCall: (runtime) => inner.onModelCall(runtime),
    close: () => inner.close(),
  };
}

/**
 * Root `argus-restored`: the campaign's mission bound (the `mission` command, answered by the
 * fake Argus creating the project), then the process restarted on the same state root: the
 * restore asks the binding again before any turn (campaign.restore.ts).
 */
export async function prepareArgusRoot(world: DrivenWorld, opts: ArgusWorldOptions): Promise<void> {
  if (opts.restored) {
    const bound = await world.command({ action: 'mission' } as never);
    if (!bound.ok) throw new Error(`the mission was not bound: ${JSON.stringify(bound.error)}`);
    await world.restart();
  }
  world.argus!.begin(world);
}
