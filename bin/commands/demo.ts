/**
 * `argus-supervisor demo [--state-root DIR]`: the product's first impression. It starts the
 * bundled simulator in-process, prints what the probe sees, then supervises two campaigns
 * end to end (a `training` task and a `blocker` task), narrating only the public events.
 * Routine progress stays silent; a one-line tally at the end shows how silent.
 *
 * The demo is a list of acts over one shared stage (`DEMO_ACTS`). Later issues add acts
 * (lease claim, submit) between attaching and observing; nothing else needs to move.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../services/runtime/config.js';
import type { PublicEventView } from '../../services/api/read-model.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { claimAndSubmit } from './demo-authority.js';
import { mutationRequestsSince, remoteCounters, type DemoFact } from './demo-facts.js';
import {
  DemoFailure,
  requireCampaign,
  narrateFact,
  summaryOf,
  type DemoAct,
  type DemoCampaign,
  type DemoIo,
  type DemoResult,
  type DemoStage,
  type DemoTally,
} from './demo-stage.js';
import { runProbe } from './probe.js';

export { DemoFailure, claimAndSubmit };
export type { DemoAct, DemoCampaign, DemoFact, DemoIo, DemoResult, DemoStage, DemoTally };

export interface DemoOptions {
  /** Keep the campaign documents here (kept afterwards); default: a temp dir, removed at the end. */
  stateRoot?: string;
  /** Upper bound of reads per campaign before the demo gives up (default 20). */
  maxPolls?: number;
}

const DEFAULT_MAX_POLLS = 20;
const ANSWER = 'Yes: lower the learning rate to 1e-4 and resume from the last good checkpoint.';

// ---- the acts ----------------------------------------------------------------------------------

export const showProbe: DemoAct = async ({ io, sim }) => {
  const probe = await runProbe({ url: sim.url });
  if (probe.exitCode !== 0) throw new DemoFailure(probe.stderr.trim());
  io.out('Probe sees:');
  for (const line of probe.stdout.trimEnd().split('\n')) io.out(line);
  io.out('');
};

export const attachCampaigns: DemoAct = async (stage) => {
  const { io, sim, supervisor, campaigns } = stage;
  const before = remoteCounters(sim);
  io.out('Attached in observer mode:');
  for (const scenario of ['training', 'blocker'] as const) {
    const [taskId] = sim.createTasks(1, scenario);
    const id = await freshCampaignId(supervisor, `demo-${scenario}`);
    const created = await supervisor.campaigns({
      action: 'create',
      campaign_id: id,
      objective: scenario === 'training' ? 'Fine-tune the baseline to completion' : 'Train until the remote asks a question',
      remote_task_id: taskId,
    });
    if (!created.ok) throw new DemoFailure(`could not create ${id}: ${created.error.message}`);
    campaigns.set(scenario, { id, taskId: taskId!, scenario, polls: 0 });
    io.out(`  ${id.padEnd(15)} -> ${taskId} (${scenario} scenario)`);
  }
  const sent = mutationRequestsSince(sim, before).length;
  narrateFact(
    stage,
    { claim: 'attach_sends_no_mutation', holds: sent === 0, measured: { mutation_requests: sent } },
    `  nothing submitted, nothing claimed (remote mutation requests during attach: ${sent})`,
    `  attaching sent ${sent} mutation requests to the remote`,
  );
};

/** Reads both campaigns round by round until training completed and the blocker needs you. */
export const observeUntilSettled: DemoAct = async (stage) => {
  const { io, supervisor, maxPolls } = stage;
  const training = requireCampaign(stage, 'training');
  const blocker = requireCampaign(stage, 'blocker');
  io.out('Observing poll by poll; only public events are printed:');
  let trainingDone = false;
  let blockerAsks = false;
  while (!(trainingDone && blockerAsks)) {
    if (training.polls >= maxPolls) throw new DemoFailure(`the campaigns did not settle within ${maxPolls} polls`);
    for (const campaign of [training, blocker]) {
      const events = await poll(stage, campaign);
      for (const e of events) io.out(`  poll ${String(campaign.polls).padEnd(3)} ${e.kind.padEnd(18)} ${campaign.id.padEnd(15)} ${e.summary}`);
    }
    trainingDone = (await summaryOf(supervisor, training.id)).remote.state === 'completed';
    blockerAsks = (await summaryOf(supervisor, blocker.id)).pending_question !== null;
  }
};

export const answerBlocker: DemoAct = async (stage) => {
  const { io, sim, supervisor } = stage;
  const blocker = requireCampaign(stage, 'blocker');
  const before = await summaryOf(supervisor, blocker.id);
  const remoteBefore = remoteCounters(sim);
  io.out(`Answering ${blocker.id}: "${ANSWER}"`);
  const answered = await supervisor.campaignAction({ campaign_id: blocker.id, action: 'answer', text: ANSWER });
  if (!answered.ok) throw new DemoFailure(`the answer was refused: ${answered.error.message}`);
  // Re-read the remote once: the NEEDS_YOU must not come back (it is deduplicated durably).
  const again = await poll(stage, blocker);
  const after = await summaryOf(supervisor, blocker.id);
  if (after.pending_question !== null || again.some((e) => e.kind === 'NEEDS_YOU')) throw new DemoFailure('the NEEDS_YOU did not clear');
  io.out(`  NEEDS_YOU cleared: attention ${before.attention} -> ${after.attention}, no pending question; a re-read stays quiet`);
  const sent = mutationRequestsSince(sim, remoteBefore).length;
  narrateFact(
    stage,
    { claim: 'answer_not_sent_without_lease', holds: sent === 0, measured: { mutation_requests: sent } },
    `  the answer is recorded for Argus; without a lease nothing went to the remote (mutation requests: ${sent})`,
    `  the answer sent ${sent} mutation requests to the remote without a lease`,
  );
};

/** The acts, in order. */
export const DEMO_ACTS: readonly DemoAct[] = [showProbe, attachCampaigns, observeUntilSettled, answerBlocker, claimAndSubmit];

// ---- helpers -----------------------------------------------------------------------------------

/** One `observe`; returns the public events it appended and tallies a silent routine change. */
async function poll(stage: DemoStage, campaign: DemoCampaign): Promise<PublicEventView[]> {
  const revision = stage.sim.task(campaign.taskId)?.revision;
  const result = await stage.supervisor.campaignAction({ campaign_id: campaign.id, action: 'observe' });
  if (!result.ok) throw new DemoFailure(`observing ${campaign.id} failed: ${result.error.message}`);
  campaign.polls++;
  stage.tally.polls++;
  const value = result.value as { events: PublicEventView[]; read_error?: { code: string } };
  if (value.read_error) throw new DemoFailure(`reading ${campaign.taskId} failed: ${value.read_error.code}`);
  const moved = stage.sim.task(campaign.taskId)?.revision !== revision;
  if (moved && value.events.length === 0) stage.tally.routineSuppressed++;
  return value.events;
}

/** `base`, or `base-2`, `base-3`... when a kept state root already has one from an earlier run. */
async function freshCampaignId(supervisor: Supervisor, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!(await supervisor.campaigns({ action: 'get', campaign_id: id })).ok) return id;
  }
}

async function counterTotal(counter: { get(): Promise<{ values: { value: number }[] }> }): Promise<number> {
  return (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);
}

// ---- the run -----------------------------------------------------------------------------------

/** Runs the whole demo in-process; the CLI action only maps the exit code. */
export async function runDemo(opts: DemoOptions, io: DemoIo, acts: readonly DemoAct[] = DEMO_ACTS): Promise<DemoResult> {
  const tally: DemoTally = { polls: 0, routineSuppressed: 0, publicEvents: 0, storeWrites: 0, modelCalls: 0, wakeRequests: 0 };
  const facts: DemoFact[] = [];
  const tempRoot = opts.stateRoot ? null : await mkdtemp(join(tmpdir(), 'argus-demo-'));
  const stateRoot = opts.stateRoot ?? tempRoot!;
  let sim: RunningSimulator | null = null;
  let supervisor: Supervisor | null = null;
  let exitCode: 0 | 1 = 0;
  try {
    io.out('argus-supervisor demo: a simulated OpenTraining remote, supervised end to end');
    io.out('');
    sim = await startSimulator({ protocol: '1.0' });
    io.out(`Simulator (in-process): ${sim.url}`);
    // An isolated configuration: the demo never reads the caller's remote or token.
    const config = loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: stateRoot });
    supervisor = await createSupervisor({ config });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    const stage: DemoStage = {
      io,
      sim,
      supervisor,
      stateRoot: config.stateRoot,
      maxPolls: opts.maxPolls ?? DEFAULT_MAX_POLLS,
      campaigns: new Map(),
      tally,
      facts,
    };
    for (const act of acts) await act(stage);

    const m = supervisor.metrics;
    tally.publicEvents = await counterTotal(m.publicEvents);
    tally.storeWrites = await counterTotal(m.storeWrites);
    tally.modelCalls = await counterTotal(m.modelCalls);
    tally.wakeRequests = await counterTotal(m.wakeRequests);
    io.out('');
    io.out(
      `Tally: ${tally.polls} polls, ${tally.routineSuppressed} routine changes suppressed, ${tally.publicEvents} public events, ` +
        `${tally.storeWrites} store writes, ${tally.wakeRequests} wake requests recorded for Argus/Foreman ` +
        `(no model runtime is connected in this build, so ${tally.modelCalls} model calls)`,
    );
  } catch (error) {
    exitCode = 1;
    io.err(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await supervisor?.stop().catch(() => undefined);
    await sim?.close();
    if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
  }
  if (exitCode === 0) io.out(tempRoot ? 'Done: simulator closed, temp state removed.' : `Done: simulator closed, state kept in ${stateRoot}.`);
  return { exitCode, tally, facts };
}

function positiveInt(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('expected an integer from 1 to 1000');
  return n;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Supervise two simulated training campaigns end to end and narrate only what a person needs to see.')
    .option('--state-root <dir>', 'keep the campaign documents in this folder (default: a temp folder, removed at the end)')
    .option('--max-polls <n>', 'reads per campaign before giving up', positiveInt, DEFAULT_MAX_POLLS)
    .option('--json', 'print only one JSON report {exitCode, tally, facts} on stdout (narration goes to stderr)')
    .action(async (opts: { stateRoot?: string; maxPolls: number; json?: boolean }) => {
      const narrate = opts.json ? process.stderr : process.stdout;
      const result = await runDemo(
        { maxPolls: opts.maxPolls, ...(opts.stateRoot ? { stateRoot: opts.stateRoot } : {}) },
        { out: (line) => narrate.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) },
      );
      if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exitCode = result.exitCode;
    });
}
