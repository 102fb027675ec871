/**
 * Crash qualification: `npm run chaos -- --runs N [--workers W] [--seed S]`.
 *
 * Each run drives a REAL supervisor process against the simulator (in its own process) through
 * claim, then one of submit / intervene / cancel / release, and kills it with SIGKILL at a
 * point of the flow (after the intent is written, after the request is sent, after the remote
 * applied it, before the outcome is written, or at a random moment). It restarts the
 * supervisor on the same state root, resolves what is in doubt, and counts:
 *   D duplicate remote effects (a mutation applied twice, or re-sent at all),
 *   L lost intents (a mutation the remote applied that the journal does not hold),
 *   U unresolved intents (still in doubt after resolve_intent).
 * Prints `chaos: N runs, D duplicate remote effects, L lost intents, U unresolved` and exits
 * non-zero if D or L is not 0.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSimulator, type SimChild } from './sim-child.js';
import { spawnSupervisor, type SupervisorChild } from './supervisor-child.js';

const FLOWS = ['claim', 'submit', 'intervene', 'cancel', 'release'] as const;
const POINTS = ['after_intent_write', 'after_send', 'after_response', 'before_outcome_write', 'random'] as const;
type Flow = (typeof FLOWS)[number];
type Point = (typeof POINTS)[number];

interface RunResult {
  flow: Flow;
  point: Point;
  duplicates: number;
  lost: number;
  unresolved: number;
  resolved: number;
  killed: boolean;
  /** The supervisor was already dead when the flow's request returned (it died mid-flow). */
  diedMidFlow: boolean;
  /** A fault point was armed for this run (every such run must die at it). */
  armed: boolean;
  appliedRemote: number;
}

interface SimStats {
  mutationsApplied: Record<string, number>;
  appliedByRequestId: Record<string, number>;
  duplicateRequestIdHits: number;
  tasksCreated: number;
}

function parseArgs(argv: string[]) {
  const args = { runs: 20, workers: 2, seed: Date.now() % 100_000 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = Number(argv[i + 1]);
    if ((key === '--runs' || key === '--workers' || key === '--seed') && Number.isInteger(value) && value >= 0) {
      args[key.slice(2) as 'runs' | 'workers' | 'seed'] = value;
      i++;
    } else {
      process.stderr.write(`usage: chaos [--runs N] [--workers W] [--seed S]\n`);
      process.exit(2);
    }
  }
  args.workers = Math.max(1, Math.min(args.workers, args.runs || 1));
  return args;
}

/** A small deterministic PRNG so a failing run can be replayed with --seed. */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

async function admin<T>(sim: SimChild, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.origin}/_sim/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`admin ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** Reads back which action a request id was (the remote's ledger is authoritative). */
async function actionOf(sim: SimChild, requestId: string): Promise<string | null> {
  const res = await fetch(`${sim.url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': 'urn:opentraining:a2a:control:v1' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'opentraining.control/request.get', params: { requestId } }),
  });
  const body = (await res.json()) as { result?: { action?: string } };
  return body.result?.action ?? null;
}

async function oneRun(sim: SimChild, flow: Flow, point: Point, random: () => number, index: number): Promise<RunResult> {
  const root = await mkdtemp(join(tmpdir(), 'argus-chaos-'));
  const campaignId = `chaos-${index}`;
  const result: RunResult = { flow, point, duplicates: 0, lost: 0, unresolved: 0, resolved: 0, killed: false, diedMidFlow: false, armed: false, appliedRemote: 0 };
  let first: SupervisorChild | null = null;
  let second: SupervisorChild | null = null;
  try {
    // One attempt at a time: a submit is only allowed once the bound task has finished.
    const { ids } = await admin<{ ids: string[] }>(sim, 'tasks', { count: 1, scenario: flow === 'submit' ? 'failed' : 'steady' });
    if (flow === 'submit') await admin(sim, 'advance', { taskId: ids[0], times: 20 });
    const before = await admin<SimStats>(sim, 'stats');

    const armed = flow !== 'claim' && point !== 'random' ? point : undefined;
    result.armed = armed !== undefined;
    first = await spawnSupervisor({ stateRoot: root, remoteUrl: sim.url, ...(armed ? { faultPoint: armed } : {}) });
    await first.call('campaigns', { action: 'create', campaign_id: campaignId, objective: 'chaos', remote_task_id: ids[0], max_attempts: 5 });
    await first.call('campaign_action', { campaign_id: campaignId, action: 'observe' });

    const randomKill = () => {
      const delay = Math.floor(random() * 25);
      setTimeout(() => void first?.kill('SIGKILL'), delay);
    };
    if (flow === 'claim') {
      randomKill();
      await first.call('campaign_action', { campaign_id: campaignId, action: 'claim' });
    } else {
      const claimed = await first.call('campaign_action', { campaign_id: campaignId, action: 'claim' });
      const epoch = claimed?.body?.lease?.epoch as number;
      const body: Record<string, unknown> = { campaign_id: campaignId, action: flow, epoch };
      if (flow === 'submit') body.text = 'next attempt';
      if (flow === 'intervene') body.instruction = 'save a checkpoint';
      if (flow === 'cancel') body.reason = 'chaos';
      if (point === 'random') randomKill();
      const answered = await first.call('campaign_action', body);
      // No answer means the connection died with the process, inside the flow.
      if (answered === null) result.diedMidFlow = true;
      else if (armed) process.stderr.write(`run ${index}: ${flow} answered before ${armed}: ${JSON.stringify(answered.body).slice(0, 300)}\n`);
    }
    // Did the process die inside the flow (at its fault point or by the random kill)?
    result.diedMidFlow ||= first.process.exitCode !== null || first.process.signalCode !== null;
    await first.kill('SIGKILL');
    result.killed = first.process.signalCode === 'SIGKILL';

    // Restart on the same root: no fault point. It must re-read, never replay.
    second = await spawnSupervisor({ stateRoot: root, remoteUrl: sim.url });
    const got = await second.call('campaigns', { action: 'get', campaign_id: campaignId });
    if (got?.body?.campaign?.state === 'ambiguous-intent') {
      const resolved = await second.call('campaign_action', { campaign_id: campaignId, action: 'resolve_intent' });
      if (resolved?.body?.ok) result.resolved++;
    }
    await second.call('campaign_action', { campaign_id: campaignId, action: 'observe' });
    await second.kill('SIGTERM');

    // Count against the remote's own ledger.
    const after = await admin<SimStats>(sim, 'stats');
    const doc = JSON.parse(await readFile(join(root, 'campaigns', `${campaignId}.json`), 'utf8')) as {
      intents: { requestId: string; action: string; outcome: { status: string } | null }[];
    };
    const journaled = new Set(doc.intents.map((i) => i.requestId));
    for (const [requestId, count] of Object.entries(after.appliedByRequestId)) {
      const was = before.appliedByRequestId[requestId] ?? 0;
      if (count === was) continue;
      if (count > 1) result.duplicates += count - 1;
      const action = await actionOf(sim, requestId);
      if (action === 'claim' || action === 'renew') continue;
      result.appliedRemote++;
      if (!journaled.has(requestId)) result.lost++;
    }
    // A re-send of the same request id is a replay even if the remote deduplicated it.
    result.duplicates += after.duplicateRequestIdHits - before.duplicateRequestIdHits;
    // Two effects of the intended kind in one run is a duplicate whatever the ids say.
    if (flow !== 'claim') {
      const delta = (after.mutationsApplied[flow] ?? 0) - (before.mutationsApplied[flow] ?? 0);
      if (delta > 1) result.duplicates += delta - 1;
    }
    result.unresolved = doc.intents.filter((i) => i.outcome === null || i.outcome.status === 'ambiguous').length;
  } finally {
    await first?.kill('SIGKILL');
    await second?.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
  return result;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const random = prng(args.seed);
  const plan = Array.from({ length: args.runs }, (_, i) => ({
    index: i,
    flow: FLOWS[Math.floor(random() * FLOWS.length)]!,
    point: POINTS[Math.floor(random() * POINTS.length)]!,
  }));
  const started = Date.now();
  process.stderr.write(`chaos: ${args.runs} runs, ${args.workers} workers, seed ${args.seed}\n`);
  const results: RunResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: args.workers }, async () => {
      // One simulator per worker, so each run's counts are its own.
      const sim = await spawnSimulator({ scenario: 'steady' });
      try {
        while (next < plan.length) {
          const run = plan[next++]!;
          const r = await oneRun(sim, run.flow, run.point, random, run.index);
          results.push(r);
          if (r.duplicates || r.lost) process.stderr.write(`VIOLATION run ${run.index}: ${JSON.stringify(r)}\n`);
          if (results.length % 25 === 0) process.stderr.write(`  ${results.length}/${args.runs}\n`);
        }
      } finally {
        await sim.stop();
      }
    }),
  );
  const sum = (k: keyof RunResult) => results.reduce((n, r) => n + (typeof r[k] === 'number' ? (r[k] as number) : 0), 0);
  const D = sum('duplicates');
  const L = sum('lost');
  const U = sum('unresolved');
  const byPoint = Object.fromEntries(POINTS.map((p) => [p, results.filter((r) => r.point === p).length]));
  const byFlow = Object.fromEntries(FLOWS.map((f) => [f, results.filter((r) => r.flow === f).length]));
  const armedAlive = results.filter((r) => r.armed && !r.diedMidFlow).length;
  process.stderr.write(
    `  seconds ${((Date.now() - started) / 1000).toFixed(1)}, died mid-flow ${results.filter((r) => r.diedMidFlow).length}, ` +
      `armed runs that did not die at their point: ${armedAlive}, remote mutations applied ${sum('appliedRemote')}, ` +
      `intents resolved by readback ${sum('resolved')}\n  by flow ${JSON.stringify(byFlow)}\n  by point ${JSON.stringify(byPoint)}\n`,
  );
  process.stdout.write(`chaos: ${results.length} runs, ${D} duplicate remote effects, ${L} lost intents, ${U} unresolved\n`);
  // An armed point that was never reached means the run proved nothing: that fails too.
  process.exit(D === 0 && L === 0 && armedAlive === 0 && results.length === args.runs ? 0 : 1);
}

await main();
