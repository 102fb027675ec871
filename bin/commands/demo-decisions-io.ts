/**
 * What the demo's decision act stands on: its own supervisor wired to the SIMULATED Argus
 * (simulator/argus/fake-argus-main.js as a real stdio child), and the readings its facts are
 * measured from: the campaign's view and document (outbox, wake log, journal, consumed
 * decisions), the proposal file through the product's own reader, and the SIMULATED Argus's
 * record of every tool call and its project store.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeForemanPath, packageRoot } from '../../adapters/foreman/index.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { createMetrics, type SupervisorMetrics } from '../../services/metrics/metrics.js';
import { createDecisionRuntime, type DecisionRuntime } from '../../services/decisions/decision-runtime.js';
import { loadConfig, type SupervisorConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { FakeArgusStore, type FakeProject, type ScriptEntry } from '../../simulator/argus/fake-argus-state.js';
import { DemoFailure } from './demo-failure.js';

export interface DecisionWorld {
  supervisor: Supervisor;
  config: SupervisorConfig;
  metrics: SupervisorMetrics;
  decisions: DecisionRuntime;
  argusHome: string;
  /** Where the SIMULATED Foreman records each run (its argv, environment names and stdin). */
  foremanRecord: string;
}

/** Debian's python3: the SIMULATED Foreman shim needs nothing but the standard library. */
const FOREMAN_PYTHON = '/usr/bin/python3';

/** The view fields the act reads (services/api/read-model.ts). */
export interface DecisionView {
  state: string;
  attention: string;
  remote: { state: string | null; task_id: string | null };
  pending_question: { key: string; text: string; source: string } | null;
  decisions: {
    mission: { project_id: string | null; binding: string };
    last: { event_key: string; outcome: string; decision_id: string | null; kind: string | null; foreman_directive: string | null } | null;
    reviewer_verdict: string | null;
  };
}

/** An `argus_message` the SIMULATED Argus received, as it recorded it. */
export interface ArgusMessage {
  project_id: string;
  text: string;
}

/** dist/simulator/argus/fake-argus-main.js of this package (the same file from source and from dist/). */
export const fakeArgusMain = (): string => join(packageRoot(), 'dist', 'simulator', 'argus', 'fake-argus-main.js');

/**
 * A supervisor on `<demo state root>/decision-act` whose decision runtime runs the SIMULATED
 * Argus. The backend is only named (the fake runs none) and nothing of the caller's
 * environment is read but PATH.
 */
export async function startDecisionWorld(stateRoot: string, url: string): Promise<DecisionWorld> {
  const server = fakeArgusMain();
  if (!existsSync(server)) throw new DemoFailure(`the SIMULATED Argus is not built (${server}): run npm run build`);
  const config = loadConfig({
    ARGUS_SUPERVISOR_ENABLED: '1',
    OPENTRAINING_A2A_URL: url,
    ARGUS_SUPERVISOR_STATE_ROOT: join(stateRoot, 'decision-act'),
    ARGUS_SUPERVISOR_BACKEND: 'codex',
    ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath,
    // The SIMULATED Foreman (simulator/foreman/fake_foreman.py) runs as a real python child.
    ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1',
    ARGUS_SUPERVISOR_FOREMAN_PYTHON: FOREMAN_PYTHON,
  });
  const metrics = createMetrics({ defaultMetrics: false });
  const foremanRecord = join(config.stateRoot, 'fake-foreman-record.jsonl');
  const decisions = createDecisionRuntime(config, {
    metrics,
    env: { PATH: process.env.PATH },
    simulatedArgusServer: server,
    simulatedForemanShim: fakeForemanPath(),
    foremanExtraEnv: { FAKE_FOREMAN_RECORD: foremanRecord },
  });
  if (!decisions.argusHome) throw new DemoFailure('the Argus home could not be resolved');
  const supervisor = await createSupervisor({ config, metrics, decisions });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  return { supervisor, config, metrics, decisions, argusHome: decisions.argusHome, foremanRecord };
}

export function writeFakeScript(argusHome: string, script: Record<string, ScriptEntry>): void {
  mkdirSync(argusHome, { recursive: true, mode: 0o700 });
  writeFileSync(join(argusHome, 'fake-argus-script.json'), JSON.stringify(script));
}

export async function decisionView(supervisor: Supervisor, campaignId: string): Promise<DecisionView> {
  const got = await supervisor.campaigns({ action: 'get', campaign_id: campaignId });
  if (!got.ok) throw new DemoFailure(`${campaignId}: ${got.error.message}`);
  return (got.value as { campaign: DecisionView }).campaign;
}

export async function documentOf(supervisor: Supervisor, campaignId: string): Promise<CampaignDocument> {
  const loaded = await supervisor.store?.load(campaignId);
  if (!loaded?.ok) throw new DemoFailure(`the document of ${campaignId} could not be read${loaded ? ` (${loaded.code})` : ''}`);
  return loaded.doc;
}

/** Public events appended to the outbox after seq `seen`, and the new `seen`. */
export async function publicEventsSince(supervisor: Supervisor, campaignId: string, seen: number) {
  const events = (await documentOf(supervisor, campaignId)).outbox.events.filter((e) => e.seq > seen);
  return { events, seen: events.at(-1)?.seq ?? seen };
}

/** Every `argus_message` to `projectId` the SIMULATED Argus recorded (fake-argus-record.jsonl, kept across runs), in order. */
export function argusMessages(argusHome: string, projectId: string): ArgusMessage[] {
  const file = join(argusHome, 'fake-argus-record.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type?: string; tool?: string; arguments?: ArgusMessage })
    .filter((r) => r.type === 'call' && r.tool === 'argus_message' && r.arguments?.project_id === projectId)
    .map((r) => r.arguments!);
}

/** The SIMULATED Argus's own copy of the project (its backlog items and journal). */
export function argusProject(argusHome: string, projectId: string): FakeProject {
  const project = new FakeArgusStore(argusHome).load(projectId);
  if (!project) throw new DemoFailure(`the SIMULATED Argus has no project ${projectId}`);
  return project;
}

export const eventKeyOf = (message: ArgusMessage): string | null => /^EVENT_KEY: (\S+)$/m.exec(message.text)?.[1] ?? null;

/** The SIMULATED Foreman's runs, as it recorded them (one JSON line per run). */
export function foremanRuns(record: string): { stdin: string }[] {
  if (!existsSync(record)) return [];
  return readFileSync(record, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { stdin: string });
}

export async function modelCalls(metrics: SupervisorMetrics): Promise<{ argus: number; foreman: number }> {
  const values = (await metrics.modelCalls.get()).values;
  const of = (runtime: string) => values.filter((v) => v.labels.runtime === runtime).reduce((sum, v) => sum + v.value, 0);
  return { argus: of('argus'), foreman: of('foreman') };
}
