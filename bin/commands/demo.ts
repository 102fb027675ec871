/**
 * `argus-supervisor demo [--state-root DIR]`: the product's first impression. It starts the
 * bundled simulator in-process, prints what the probe sees, then supervises two campaigns
 * end to end (a `training` task and a `blocker` task), narrating only the public events, and
 * finally lets the SIMULATED Argus decide a third one (demo-decisions.ts): proposal, Reviewer
 * approval, fenced relay, and a question the operator answers. Routine progress stays silent;
 * a one-line tally at the end shows how silent.
 *
 * The demo is a list of acts over one shared stage (`DEMO_ACTS`); nothing else needs to move
 * when one is added.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { answerBlocker, claimAndSubmit } from './demo-authority.js';
import { decideWithArgus } from './demo-decisions.js';
import { startDecisionWorld, type DecisionWorld } from './demo-decisions-io.js';
import { keepSweeping, servePage, untilSignal, type ServedPage } from './demo-page.js';
import { leaveRunning } from './demo-keep.js';
import { mutationRequestsSince, remoteCounters, type DemoFact } from './demo-facts.js';
import {
  DemoFailure,
  freshCampaignId,
  poll,
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

export { DemoFailure, answerBlocker, claimAndSubmit, decideWithArgus };
export type { DemoAct, DemoCampaign, DemoFact, DemoIo, DemoResult, DemoStage, DemoTally };

export interface DemoOptions {
  /** Keep the campaign documents here (kept afterwards); default: a temp dir, removed at the end. */
  stateRoot?: string;
  /** Upper bound of reads per campaign before the demo gives up (default 20). */
  maxPolls?: number;
  /** Stay up after the story (a campaign left for the person) until SIGINT/SIGTERM. */
  keep?: boolean;
  /** The page's port on 127.0.0.1 (default: a free one; 7860 with `keep`, the CLI client's default). */
  port?: number;
}

const DEFAULT_MAX_POLLS = 20;
/** With --keep the page listens where the CLI client looks by default (ARGUS_SUPERVISOR_URL). */
const KEEP_PORT = 7860;

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

/** The acts, in order. */
export const DEMO_ACTS: readonly DemoAct[] = [showProbe, attachCampaigns, observeUntilSettled, answerBlocker, claimAndSubmit, decideWithArgus];

// ---- helpers -----------------------------------------------------------------------------------

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
  let world: DecisionWorld | null = null;
  let page: ServedPage | null = null;
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
    // The decided campaign's supervisor is the one the page serves (demo-page.ts).
    world = await startDecisionWorld(stateRoot, sim.url);
    page = await servePage(world.supervisor, world.config, opts.port ?? (opts.keep ? KEEP_PORT : 0));
    io.out(`Page: ${page.url}/ (log in with the API key in ${page.keyFile}: generated for this demo, mode 0600, never printed)`);
    io.out('');
    const stage: DemoStage = {
      io,
      sim,
      supervisor,
      stateRoot: config.stateRoot,
      maxPolls: opts.maxPolls ?? DEFAULT_MAX_POLLS,
      campaigns: new Map(),
      tally,
      facts,
      world,
      page,
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
        `(no Argus mission is bound to the observed campaigns, so ${tally.modelCalls} model calls for them; the decision act counted its own above)`,
    );
    if (opts.keep) {
      await leaveRunning(stage);
      const stopSweeping = keepSweeping(world.supervisor);
      const signal = await untilSignal();
      stopSweeping();
      io.out(`${signal}: stopping.`);
    }
  } catch (error) {
    exitCode = 1;
    io.err(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await page?.close().catch(() => undefined);
    await world?.supervisor.stop().catch(() => undefined);
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

function portNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return n;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Supervise three simulated campaigns end to end (a training task, a blocker the operator answers, one the simulated Argus decides) and narrate only what a person needs to see.')
    .option('--state-root <dir>', 'keep the campaign documents in this folder (default: a temp folder, removed at the end)')
    .option('--max-polls <n>', 'reads per campaign before giving up', positiveInt, DEFAULT_MAX_POLLS)
    .option('--json', 'print only one JSON report {exitCode, tally, facts} on stdout (narration goes to stderr)')
    .option('--keep', 'stay up after the story with a campaign left for you on the page, until Ctrl-C')
    .option('--port <n>', 'the page\'s port on 127.0.0.1 (default: a free one; 7860 with --keep)', portNumber)
    .action(async (opts: { stateRoot?: string; maxPolls: number; json?: boolean; keep?: boolean; port?: number }) => {
      const narrate = opts.json ? process.stderr : process.stdout;
      const result = await runDemo(
        { maxPolls: opts.maxPolls, ...(opts.stateRoot ? { stateRoot: opts.stateRoot } : {}), ...(opts.keep ? { keep: true } : {}), ...(opts.port !== undefined ? { port: opts.port } : {}) },
        { out: (line) => narrate.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) },
      );
      if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exitCode = result.exitCode;
    });
}
