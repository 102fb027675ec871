/**
 * One chaos run: a real supervisor drives one flow against the simulator and is killed with
 * SIGKILL at the run's point; a second one restarts on the same state root, resolves what is
 * in doubt by readback, and the journal is reconciled with the remote's log of the run.
 * @module
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTROL_METHODS } from '../adapters/a2a/control-contract.js';
import { parseCampaignDocument, type MutationIntent } from '../persistence/campaign-document.js';
import { storeLayout } from '../persistence/store-layout.js';
import type { LedgerPage, SimulatorStats } from '../simulator/index.js';
import type { Flow, Pair } from './chaos-plan.js';
import { reconcile, type Reconciled } from './chaos-reconcile.js';
import type { SimChild } from './sim-child.js';
import { spawnSupervisor, type SupervisorChild } from './supervisor-child.js';

export interface RunResult extends Pair, Reconciled {
  index: number;
  /** The first supervisor's exit signal was SIGKILL (a planted SIGTERM, or a clean exit, is not). */
  killed: boolean;
  /** It died at the run's point: by itself at an armed fault point, or by the harness while the remote held its request. */
  diedAtPoint: boolean;
  /** Its request never got an answer (the process was gone). */
  diedMidFlow: boolean;
  exitSignal: string | null;
  seconds: number;
  /** `--replicas N` only: which replica died, whether the flow was relayed, the takeover. */
  replica?: ReplicaOutcome;
}

export interface ReplicaOutcome {
  /** The host (it held the campaign), the replica the flow was sent to, or neither. */
  victim: 'host' | 'entry' | 'bystander';
  /** The flow was sent to a replica that relayed it to the host. */
  relayed: boolean;
  /** From the kill until a survivor held the campaign with a greater fence (host killed only). */
  rehomeMs: number | null;
  /** The host died and no survivor took the campaign over in time. */
  rehomeFailed: boolean;
  /** The host lived and answered every command relayed to it in time. */
  settled: boolean;
  /** 404 campaign_not_found answers for the campaign after the takeover, before its new owner had loaded it (asked again). */
  notFoundAfterTakeover: number;
  /** Answers 409 effect_in_flight (the takeover's epoch rotation still running), asked again. */
  busyAfterTakeover?: number;
}

/** The remote holds a claim (or its lease readback) this long; the harness kills well before. */
export const HOLD_MS = 5_000;
const WAIT_STEP_MS = 5;
const SELF_EXIT_GRACE_MS = 3_000;

export async function admin<T>(sim: SimChild, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<T> {
  const res = await fetch(`${sim.origin}/_sim/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export const requestsOf = async (sim: SimChild, method: string) => (await admin<SimulatorStats>(sim, 'stats')).requests[method] ?? 0;

/** Waits (bounded) until the remote has received one more `method` request than `before`. */
export async function arrived(sim: SimChild, method: string, before: number): Promise<boolean> {
  for (let waited = 0; waited < HOLD_MS - 1000; waited += WAIT_STEP_MS) {
    if ((await requestsOf(sim, method)) > before) return true;
    await sleep(WAIT_STEP_MS);
  }
  return false;
}

async function journalOf(root: string, campaignId: string): Promise<MutationIntent[]> {
  const raw: unknown = JSON.parse(await readFile(storeLayout(root).documentPath(campaignId), 'utf8'));
  const parsed = parseCampaignDocument(raw, campaignId);
  if (!parsed.ok) throw new Error(`campaign ${campaignId}: ${parsed.code}: ${parsed.reason}`);
  return parsed.doc.intents;
}

/**
 * One attempt at a time: a submit is only allowed once the bound task has finished.
 * An answer needs the remote to ask: the blocker scenario waits in input-required once advanced.
 */
export const scenarioFor = (flow: Flow) => (flow === 'submit' ? 'failed' : flow === 'answer' ? 'blocker' : 'steady');

/** The flow's command, fenced with the epoch the claim returned. */
export function flowBody(flow: Exclude<Flow, 'claim'>, campaignId: string, epoch: number): Record<string, unknown> {
  const body: Record<string, unknown> = { campaign_id: campaignId, action: flow, epoch };
  if (flow === 'submit') body.text = 'next attempt';
  if (flow === 'intervene') body.instruction = 'save a checkpoint';
  if (flow === 'cancel') body.reason = 'chaos';
  if (flow === 'answer') {
    delete body.epoch; // the chart fences an answer with the lease it holds
    body.text = 'use the cleaned dataset';
  }
  return body;
}

const exitWithin = (child: SupervisorChild, ms: number) =>
  Promise.race([child.exited.then(() => true), sleep(ms).then(() => false)]);

export async function oneRun(sim: SimChild, pair: Pair, random: () => number, index: number): Promise<RunResult> {
  const { flow, point } = pair;
  const started = Date.now();
  const root = await mkdtemp(join(tmpdir(), 'argus-chaos-'));
  const campaignId = `chaos-${index}`;
  let first: SupervisorChild | null = null;
  let second: SupervisorChild | null = null;
  let harnessKilled = false;
  const crash = async (child: SupervisorChild) => {
    harnessKilled ||= child.process.exitCode === null && child.process.signalCode === null;
    await child.kill('SIGKILL');
  };
  try {
    const scenario = scenarioFor(flow);
    const { ids } = await admin<{ ids: string[] }>(sim, 'tasks', { count: 1, scenario });
    if (flow === 'submit' || flow === 'answer') await admin(sim, 'advance', { taskId: ids[0], times: 20 });
    const selfKill = flow !== 'claim' && point !== 'random' ? point : undefined;
    first = await spawnSupervisor({ stateRoot: root, remoteUrl: sim.url, ...(selfKill ? { faultPoint: selfKill } : {}) });
    const child = first;
    await child.call('campaigns', { action: 'create', campaign_id: campaignId, objective: 'chaos', remote_task_id: ids[0], max_attempts: 5 });
    await child.call('campaign_action', { campaign_id: campaignId, action: 'observe' });
    const since = (await admin<LedgerPage>(sim, 'ledger')).nextSeq;

    let answered: unknown = undefined;
    let heldAndKilled = false;
    const randomKill = () => setTimeout(() => void crash(child), Math.floor(random() * 25));
    if (flow === 'claim') {
      const claim = () => child.call('campaign_action', { campaign_id: campaignId, action: 'claim' });
      if (point === 'random') {
        randomKill();
        answered = await claim();
      } else {
        // after_send: the remote holds the claim itself; after_response: the claim is applied
        // and answered, and the remote holds the supervisor's lease readback that follows it.
        const method = point === 'after_send' ? CONTROL_METHODS.leaseClaim : CONTROL_METHODS.leaseGet;
        const before = await requestsOf(sim, method);
        await admin(sim, 'faults', { kind: 'slow', delayMs: HOLD_MS, methods: [method], count: 1 });
        const pending = claim();
        if (await arrived(sim, method, before)) {
          await crash(child);
          heldAndKilled = true;
        }
        answered = await pending;
        await admin(sim, 'faults', undefined, 'DELETE');
      }
    } else {
      const claimed = await child.call('campaign_action', { campaign_id: campaignId, action: 'claim' });
      const epoch = claimed?.body?.lease?.epoch as number;
      const body = flowBody(flow, campaignId, epoch);
      if (point === 'random') randomKill();
      answered = await child.call('campaign_action', body);
    }
    const diedMidFlow = answered === null;
    // A process that killed itself may close its socket a moment before its exit is seen.
    if (diedMidFlow) await exitWithin(child, SELF_EXIT_GRACE_MS);
    const selfExited = !harnessKilled && (child.process.exitCode !== null || child.process.signalCode !== null);
    await crash(child);
    const exit = await child.exited;
    const killed = exit.signal === 'SIGKILL';
    const diedAtPoint = selfKill ? diedMidFlow && selfExited : flow === 'claim' && point !== 'random' ? heldAndKilled && diedMidFlow : true;
    if (selfKill && !diedAtPoint) process.stderr.write(`run ${index}: ${flow} answered before ${selfKill}: ${JSON.stringify(answered).slice(0, 300)}\n`);
    const journalAtKill = await journalOf(root, campaignId);
    // The dead process's last bytes were on the loopback before its exit was seen; two admin
    // round trips later the simulator has logged them, so what comes next is the restart's.
    await admin(sim, 'stats');
    const restartSeq = (await admin<LedgerPage>(sim, 'ledger?since=999999999')).nextSeq;

    // Restart on the same root, no fault point: it must re-read and resolve, never replay.
    second = await spawnSupervisor({ stateRoot: root, remoteUrl: sim.url });
    const got = await second.call('campaigns', { action: 'get', campaign_id: campaignId });
    const campaign = got?.body?.campaign;
    if (campaign?.state === 'ambiguous-intent' || campaign?.open_intent) {
      await second.call('campaign_action', { campaign_id: campaignId, action: 'resolve_intent' });
    }
    await second.call('campaign_action', { campaign_id: campaignId, action: 'observe' });
    await second.kill('SIGTERM');

    const ledger = (await admin<LedgerPage>(sim, `ledger?since=${since}`)).entries;
    const counts = reconcile({ flow, journalAtKill, journalFinal: await journalOf(root, campaignId), ledger, restartSeq });
    return { index, flow, point, ...counts, killed, diedAtPoint, diedMidFlow, exitSignal: exit.signal, seconds: (Date.now() - started) / 1000 };
  } finally {
    await first?.kill('SIGKILL');
    await second?.kill('SIGKILL');
    // Under a test run the run folder is scanned for canaries before it is removed.
    if (!process.env.ARGUS_TEST_RUN_DIR) await rm(root, { recursive: true, force: true });
  }
}
