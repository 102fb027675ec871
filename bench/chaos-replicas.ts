/**
 * One chaos run on N replicas (`chaos --replicas N`): N real `serve` processes share a fresh
 * PostgreSQL schema with a short ownership TTL. One of them (the host, chosen at random)
 * creates the campaign, so it holds the campaign's right; the flow is sent to a random replica
 * (relayed to the host through the database when it is not the host). One replica dies by
 * SIGKILL inside the flow:
 *
 * - at a crash point (ARGUS_SUPERVISOR_FAULT_POINT armed in the host only), or while the
 *   remote holds the host's claim: the host dies mid-effect;
 * - at a random moment (0–40 ms into the flow): a random replica, host or not, dies.
 *
 * When the host died, a survivor must take the campaign over (a live right with a greater
 * fence) within TTL + TTL/6 + slack; the run waits for it. When another replica died, the run
 * waits until the host has answered every relayed command it may still run. Then the flow's
 * outcome is resolved through a random survivor (read back, resolve_intent, observe, never
 * resent), and the journal in the database is reconciled with the remote's ledger exactly as
 * in the one-process runs (chaos-reconcile.ts).
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTROL_METHODS } from '../adapters/a2a/control-contract.js';
import type { LedgerPage } from '../simulator/index.js';
import { CHAOS_DATABASE_URL, openChaosSchema, pidOfReplica, type ChaosSchema } from './chaos-db.js';
import type { Pair } from './chaos-plan.js';
import { reconcile } from './chaos-reconcile.js';
import { admin, arrived, flowBody, HOLD_MS, requestsOf, scenarioFor, type RunResult } from './chaos-run.js';
import type { SimChild } from './sim-child.js';
import { spawnSupervisor, type SupervisorChild } from './supervisor-child.js';

export interface ReplicaRunOptions {
  replicas: number;
  ttlSeconds: number;
}

/** After the host is gone, how long a relayed request may still bring the host's answer. */
const ANSWER_GRACE_MS = 500;
const SELF_EXIT_GRACE_MS = 3_000;
/** Three processes start at once on a busy machine: more than the one-process default. */
const READY_MS = 60_000;
const POLL_MS = 50;
const SETTLE_MS = 10_000;
/** A command refused 503 (no live owner yet) is asked again for at most this long. */
const RETRY_503_MS = 10_000;

type Answer = Awaited<ReturnType<SupervisorChild['call']>>;

const alive = (c: SupervisorChild) => c.process.exitCode === null && c.process.signalCode === null;

async function until(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(POLL_MS)) if (await what()) return true;
  return what();
}

/**
 * A read-back or resolve command through a survivor, asked again (bounded) while the takeover
 * is not finished: 503 (no live owner yet) and 404 `campaign_not_found`. The new owner claims
 * the row first and loads the campaign after, and in between it (and a replica relaying to it)
 * answers 404 for a campaign that exists; each such answer is counted in `notFound`. And 409
 * `effect_in_flight`, as an operator would ask again: a campaign taken over in doubt first
 * rotates its epoch (readback, claim), and `resolve_intent` waits for that; counted in `busy`.
 */
async function viaSurvivor(child: SupervisorChild, route: 'campaigns' | 'campaign_action', body: unknown, seen: { notFound: number; busy: number }): Promise<Answer> {
  let answer: Answer = null;
  for (const end = Date.now() + RETRY_503_MS; Date.now() < end; await sleep(200)) {
    answer = await child.call(route, body);
    const notFound = answer?.status === 404 && answer.body?.error?.code === 'campaign_not_found';
    const busy = answer?.status === 409 && answer.body?.error?.code === 'effect_in_flight';
    if (notFound) seen.notFound++;
    if (busy) seen.busy++;
    if (answer?.status !== 503 && !notFound && !busy) return answer;
  }
  return answer;
}

export async function oneReplicaRun(sim: SimChild, pair: Pair, random: () => number, index: number, opts: ReplicaRunOptions): Promise<RunResult> {
  const { flow, point } = pair;
  const started = Date.now();
  const campaignId = `chaos-${index}`;
  const roots: string[] = [];
  const children: SupervisorChild[] = [];
  const harnessKilled = new Set<SupervisorChild>();
  let db: ChaosSchema | null = null;
  const crash = async (child: SupervisorChild) => {
    if (alive(child)) harnessKilled.add(child);
    await child.kill('SIGKILL');
  };
  try {
    // CHAOS_PHASES=1: when each phase of the run ended, for finding where a slow run spends its time.
    const T = (l: string) => process.env.CHAOS_PHASES && process.stderr.write(`    ${l} ${Date.now() - started} ms\n`);
    db = await openChaosSchema(index);
    T("schema");
    const env = {
      ARGUS_SUPERVISOR_DATABASE_URL: CHAOS_DATABASE_URL,
      ARGUS_SUPERVISOR_DATABASE_SCHEMA: db.schema,
      ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS: String(opts.ttlSeconds),
      ARGUS_SUPERVISOR_CONTROLLER_ID: 'argus-chaos-replicas',
    };
    const scenario = scenarioFor(flow);
    const { ids } = await admin<{ ids: string[] }>(sim, 'tasks', { count: 1, scenario });
    if (flow === 'submit' || flow === 'answer') await admin(sim, 'advance', { taskId: ids[0], times: 20 });
    const selfKill = flow !== 'claim' && point !== 'random' ? point : undefined;
    const hostIndex = Math.floor(random() * opts.replicas);
    for (let i = 0; i < opts.replicas; i++) roots.push(await mkdtemp(join(tmpdir(), 'argus-chaos-r-')));
    // The fault point is armed in the host only: the survivors that take over must not die at it.
    const spawned = await Promise.allSettled(
      roots.map((root, i) =>
        spawnSupervisor({ stateRoot: root, remoteUrl: sim.url, env, readyTimeoutMs: READY_MS, ...(i === hostIndex && selfKill ? { faultPoint: selfKill } : {}) }),
      ),
    );
    for (const s of spawned) if (s.status === 'fulfilled') children.push(s.value);
    const failed = spawned.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    T('spawned');
    const host = children[hostIndex]!;
    // A create claims first: the replica that creates the campaign hosts it.
    const created = await host.call('campaigns', { action: 'create', campaign_id: campaignId, objective: 'chaos', remote_task_id: ids[0], max_attempts: 5 });
    if (created?.status !== 200 && created?.status !== 201) throw new Error(`run ${index}: create answered ${JSON.stringify(created).slice(0, 300)}`);
    const ownerBefore = await db.owner(campaignId);
    if (!ownerBefore?.live || pidOfReplica(ownerBefore.holder) !== host.process.pid) throw new Error(`run ${index}: the creating replica does not hold the campaign: ${JSON.stringify(ownerBefore)}`);
    await host.call('campaign_action', { campaign_id: campaignId, action: 'observe' });
    T('observed');
    const since = (await admin<LedgerPage>(sim, 'ledger')).nextSeq;

    const entryIndex = Math.floor(random() * opts.replicas);
    const entry = children[entryIndex]!;
    const victimIndex = selfKill || (flow === 'claim' && point !== 'random') ? hostIndex : Math.floor(random() * opts.replicas);
    const victim = children[victimIndex]!;
    const hostDies = victimIndex === hostIndex;

    /**
     * Sends one command to the entry replica. A relayed command whose host died would wait the
     * relay's 30 s for `owner_unavailable`: once the host is gone it gets a short grace for an
     * answer already on its way, then the harness stops waiting (the command's fate is then
     * settled by readback, like a dead process's).
     */
    const ask = async (body: Record<string, unknown>): Promise<Answer> => {
      const abort = new AbortController();
      const pending = entry.call('campaign_action', body, abort.signal);
      if (entry === host || !hostDies) return pending;
      const gone = host.exited.then(() => sleep(ANSWER_GRACE_MS)).then(() => 'gone' as const);
      const first = await Promise.race([pending, gone]);
      if (first !== 'gone') return first;
      abort.abort();
      return null;
    };

    let answered: Answer = null;
    let heldAndKilled = false;
    const randomKill = () => setTimeout(() => void crash(victim), Math.floor(random() * 40));
    if (flow === 'claim') {
      const body = { campaign_id: campaignId, action: 'claim' };
      if (point === 'random') {
        randomKill();
        answered = await ask(body);
      } else {
        const method = point === 'after_send' ? CONTROL_METHODS.leaseClaim : CONTROL_METHODS.leaseGet;
        const before = await requestsOf(sim, method);
        await admin(sim, 'faults', { kind: 'slow', delayMs: HOLD_MS, methods: [method], count: 1 });
        const pending = ask(body);
        if (await arrived(sim, method, before)) {
          await crash(host);
          heldAndKilled = true;
        }
        answered = await pending;
        await admin(sim, 'faults', undefined, 'DELETE');
      }
    } else {
      const claimed = await host.call('campaign_action', { campaign_id: campaignId, action: 'claim' });
      const epoch = claimed?.body?.lease?.epoch as number;
      const body = flowBody(flow, campaignId, epoch);
      if (point === 'random') randomKill();
      answered = await ask(body);
    }
    T('flow');
    const diedMidFlow = answered === null;
    if (diedMidFlow && hostDies) await Promise.race([host.exited, sleep(SELF_EXIT_GRACE_MS)]);
    const selfExited = !harnessKilled.has(victim) && !alive(victim);
    await crash(victim);
    const exit = await victim.exited;
    const killed = exit.signal === 'SIGKILL';
    const diedAtPoint = selfKill ? diedMidFlow && selfExited : flow === 'claim' && point !== 'random' ? heldAndKilled && diedMidFlow : true;
    if (selfKill && !diedAtPoint) process.stderr.write(`run ${index}: ${flow} answered before ${selfKill}: ${JSON.stringify(answered).slice(0, 300)}\n`);
    T('killed');
    const killedAt = Date.now();

    // The host lives on when another replica died: whatever it was relayed it may still run,
    // as the first and only sender. Wait until it answered all of it (bounded).
    const settled = hostDies || (await sleep(200).then(() => until(async () => (await db!.inFlight(campaignId, ownerBefore.holder!)) === 0, SETTLE_MS)));
    T('settled');
    const journalAtKill = await db.journal(campaignId);
    await admin(sim, 'stats');
    const restartSeq = (await admin<LedgerPage>(sim, 'ledger?since=999999999')).nextSeq;

    // The host died: a survivor must take the campaign over, with a greater fence, within a TTL
    // after its last renewal plus a rebalance period (TTL / 6), plus slack for a loaded machine.
    let rehomeMs: number | null = null;
    let rehomed = !hostDies;
    if (hostDies) {
      const bound = opts.ttlSeconds * 1000 + (opts.ttlSeconds * 1000) / 6 + 3_000;
      rehomed = await until(async () => {
        const row = await db!.owner(campaignId);
        const ok = !!row?.live && row.holder !== ownerBefore.holder && row.fence > ownerBefore.fence && children.some((c) => alive(c) && c.process.pid === pidOfReplica(row.holder));
        return ok;
      }, bound);
      rehomeMs = rehomed ? Date.now() - killedAt : null;
    }

    T('rehomed');
    // Resolve through a random survivor (relayed when it is not the new owner): read back, never resend.
    const survivors = children.filter((c) => c !== victim);
    const via = survivors[Math.floor(random() * survivors.length)]!;
    const seen = { notFound: 0, busy: 0 };
    const got = await viaSurvivor(via, 'campaigns', { action: 'get', campaign_id: campaignId }, seen);
    const campaign = got?.body?.campaign;
    if (campaign?.state === 'ambiguous-intent' || campaign?.open_intent) {
      await viaSurvivor(via, 'campaign_action', { campaign_id: campaignId, action: 'resolve_intent' }, seen);
    }
    await viaSurvivor(via, 'campaign_action', { campaign_id: campaignId, action: 'observe' }, seen);
    T('resolved');
    await Promise.all(survivors.map((c) => c.kill('SIGTERM')));

    T('stopped');
    const ledger = (await admin<LedgerPage>(sim, `ledger?since=${since}`)).entries;
    const counts = reconcile({ flow, journalAtKill, journalFinal: await db.journal(campaignId), ledger, restartSeq });
    const role = hostDies ? 'host' : victim === entry ? 'entry' : 'bystander';
    return {
      index,
      flow,
      point,
      ...counts,
      killed,
      diedAtPoint,
      diedMidFlow,
      exitSignal: exit.signal,
      seconds: (Date.now() - started) / 1000,
      replica: { victim: role, relayed: entry !== host, rehomeMs, rehomeFailed: !rehomed, settled, notFoundAfterTakeover: seen.notFound, busyAfterTakeover: seen.busy },
    };
  } finally {
    await Promise.all(children.map((c) => c.kill('SIGKILL')));
    await db?.drop().catch(() => undefined);
    if (!process.env.ARGUS_TEST_RUN_DIR) await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  }
}
