/**
 * The policy at API level: every quiescent state the chart traversal reaches (only those are
 * ever persisted) is written as a v2 document bound to a real simulator task, restored by a real
 * supervisor, and asked for its view's `allowed_actions`; then every operator action of the API
 * runs through `campaignAction` on its own copy of that campaign. An allowed action must not be
 * refused by a rule; every other one must answer HTTP 409 with the code of the first rule it
 * breaks, recomputed here from the OPERATOR_RULES rows (test/machines/campaign-traversal.ts reads
 * them without explainRefusal) for the event this file builds from the body and the facts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { backingOff, boundTaskState, leaseUnexpiredAt, mutationTarget } from '../../machines/campaign.guards.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { REFUSAL_CODES } from '../../machines/campaign.rules.js';
import type { CampaignContext, HostEnvironment, OperatorEvent } from '../../machines/campaign.types.js';
import { CAMPAIGN_MACHINE_VERSION, isQuiescent } from '../../machines/campaign.version.js';
import { newCampaignDocument } from '../../persistence/campaign-document.js';
import { API_ERROR_STATUS } from '../../services/contract/api-errors.js';
import { settleInterrupted, withEnvironment } from '../../machines/campaign.restore.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { CONTEXT, FULL, NOW, TASK, US } from '../machines/graph-events.js';
import { traversal, type Snap } from '../machines/campaign-traversal.js';
import { firstFailingRow, probe } from '../machines/rule-rows.js';
import { createScope, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const ACTIONS = ['claim', 'release', 'submit', 'intervene', 'cancel', 'resolve_intent', 'answer', 'mission', 'pause', 'resume', 'close', 'observe'] as const;
type Action = (typeof ACTIONS)[number];
const HEARTBEAT_SECONDS = 60;
const LEASE_TTL = 600;
/**
 * The test supervisor's environment once discovery has answered (every claim and mutation waits
 * for it): the simulator's full capabilities, no Argus runtime, its heartbeat. The host puts it in
 * every restored context, so the expected answers are computed on a snapshot holding it too.
 */
const SUPERVISOR_ENV: HostEnvironment = { capabilities: FULL, argusAvailable: false, cadenceMs: HEARTBEAT_SECONDS * 1000 };

/** What an operator action's answer can depend on: the state and the context facts rules read. */
function classKey(s: Snap): string {
  const c = s.context;
  const nowMs = Date.parse(NOW);
  return JSON.stringify({
    value: s.value,
    status: s.status,
    lease: c.lease && { epoch: c.lease.epoch, unexpired: leaseUnexpiredAt(c.lease, NOW) },
    intent: c.pendingIntent && c.pendingIntent.kind,
    question: c.pendingQuestion && c.pendingQuestion.source,
    attemptsLeft: c.attemptsSubmitted < c.maxAttempts,
    // The bound task's last observed state (attempt_running) and whether it is the bound task.
    remote: c.remote && [c.remote.taskId === TASK, c.remote.state],
    // What the chart derives from its binding: the bound task's state, where a mutation would act.
    bound: boundTaskState(c),
    target: [mutationTarget(c).taskId !== null, mutationTarget(c).contextId !== null],
    backingOff: backingOff(c, nowMs),
  });
}

/**
 * The task an applied submit binds in the traversal (graph-events.ts's relay and readback
 * outputs): since campaign@6 the chart's binding names it, so it must be a real task too.
 */
const SUBMITTED_TASK = 'task-2';

/** The traversal's clock (NOW) moved onto the real one, and its tasks/context onto the simulator's. */
function rebase(persisted: unknown, taskId: string, submittedTaskId: string, contextId: string): unknown {
  const shift = Date.now() - Date.parse(NOW);
  const text = JSON.stringify(persisted, (_k, v) => {
    if (typeof v !== 'string') return v;
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v)) return new Date(Date.parse(v) + shift).toISOString();
    // One pass: a simulator id may itself look like one of the traversal's.
    const to: Record<string, string> = { [TASK]: taskId, [SUBMITTED_TASK]: submittedTaskId, [CONTEXT]: contextId };
    return v.replace(new RegExp(`\\b(${Object.keys(to).join('|')})\\b`, 'g'), (id) => to[id]!);
  });
  return JSON.parse(text);
}

/** The body an operator sends for each action, with the epoch the campaign holds. */
function bodyFor(action: Action, campaignId: string, s: Snap): Record<string, unknown> {
  const epoch = s.context.lease?.epoch ?? 0;
  const base = { campaign_id: campaignId, action };
  switch (action) {
    case 'submit':
      return { ...base, epoch, text: 'train v2' };
    case 'intervene':
      return { ...base, epoch, instruction: 'lower lr' };
    case 'cancel':
      return { ...base, epoch, reason: 'diverged' };
    case 'release':
      return { ...base, epoch };
    case 'answer':
      return { ...base, text: 'use v2' };
    default:
      return base;
  }
}

/**
 * The operator event the body stands for, built here from the body (not by the API's code): it
 * carries what the operator said; every fact the rows read is in the snapshot's context.
 */
function eventFor(action: Exclude<Action, 'observe'>, s: Snap): OperatorEvent {
  const now = new Date().toISOString();
  const c = s.context;
  const mutate = (mutation: Extract<OperatorEvent, { type: 'MUTATE' }>['mutation']): OperatorEvent => ({
    type: 'MUTATE',
    mutation,
    requestId: 'r',
    epoch: c.lease?.epoch ?? 0,
    approval: { kind: 'operator', principal: 'api-key' },
    now,
  });
  switch (action) {
    case 'claim':
      return { type: 'OPERATOR_CLAIM', ttlSeconds: LEASE_TTL, now };
    case 'release':
      return mutate({ kind: 'release' });
    case 'submit':
      return mutate({ kind: 'submit', text: 'train v2' });
    case 'intervene':
      return mutate({ kind: 'intervene', instruction: 'lower lr' });
    case 'cancel':
      return mutate({ kind: 'cancel', reason: 'diverged' });
    case 'resolve_intent':
      return { type: 'RESOLVE_INTENT' };
    case 'answer':
      // The test supervisor has no Argus runtime: an answer to Argus is refused argus_unavailable.
      return {
        type: 'OPERATOR_ANSWER',
        questionKey: c.pendingQuestion?.key ?? '',
        answer: 'use v2',
        now,
        requestId: 'r',
      };
    case 'mission':
      return { type: 'BIND_MISSION' };
    case 'pause':
      return { type: 'PAUSE' };
    case 'resume':
      return { type: 'RESUME', now };
    case 'close':
      return { type: 'CLOSE' };
  }
}

/** Why a forced status read cannot start (closed, paused, nothing bound, a read or effect running). */
function observeRefusal(s: Snap): string | null {
  const p = probe(s);
  if (p.closed) return 'campaign_closed';
  if (p.paused) return 'campaign_paused';
  // The binding is the chart's (a campaign created with no task has none): nothing to read.
  if (s.context.binding.taskId === null) return 'no_task_bound';
  if (p.effectInFlight || p.heartbeat !== 'idle') return 'effect_in_flight';
  return null;
}

const CHART_CODES = new Set(REFUSAL_CODES);
const sim = { current: null as RunningSimulator | null };
const scope = createScope();
beforeAll(async () => {
  sim.current = scope.defer(await startSimulator({ port: 0, pollsPerStage: 100 }), (s) => s.close());
});
afterAll(() => scope.dispose());

describe('operator policy through the supervisor API, in every quiescent reachable state', { timeout: 300_000 }, () => {
  it('allowed_actions are never refused by a rule; every other action answers 409 with the first failing row', async () => {
    const started = performance.now();
    const states = [...traversal().reachedStates.values()];
    const quiescent = states.filter((s) => isQuiescent(s));
    // A status read in flight is not tagged as an effect (re-running a read is harmless), so such
    // a snapshot may be saved; restored, it re-runs the read at start and is no longer the state
    // the document holds when the action arrives. Its authority and attention are those of the
    // same state with an idle heartbeat, which is covered.
    const restorable = quiescent.filter((s) => s.status !== 'active' || probe(s).heartbeat !== 'reading');
    const classes = new Map<string, Snap>();
    for (const s of restorable) if (!classes.has(classKey(s))) classes.set(classKey(s), s);

    const disagreements: string[] = [];
    const seen = { allowed: 0, refused: 0, byCode: new Map<string, number>() };
    const runClass = async (key: string, s: Snap, index: number): Promise<void> => {
      const stateRoot = await tempStateRoot(scope);
      await mkdir(path.join(stateRoot, 'campaigns'), { recursive: true, mode: 0o700 });
      const persisted = campaignMachine.getPersistedSnapshot(s);
      const restored = new Map<Action, Snap>();
      for (const action of ACTIONS) {
        const { ids, contextIds } = sim.current!.createTasksDetailed(1, 'steady');
        const binding = { taskId: ids[0]!, contextId: contextIds[0]! };
        const lease = s.context.lease;
        // The remote grants our controller the lease at the snapshot's epoch, so an allowed
        // mutation's readback and fence agree with what the campaign believes it holds.
        if (lease) while (sim.current!.takeover(binding.contextId, US, LEASE_TTL).epoch < lease.epoch);
        // The attempt a submit would have started: a second task in the same context.
        const submitted = sim.current!.createTasks(1, 'steady', binding.contextId)[0]!;
        const snapshot = rebase(persisted, binding.taskId, submitted, binding.contextId);
        // As the host restores it: a decision in flight is settled first (a turn: "interrupted"),
        // and the context takes the process's environment (never the one it was saved with).
        const asHosted = withEnvironment(settleInterrupted(snapshot, new Date().toISOString()).snapshot, SUPERVISOR_ENV);
        restored.set(action, createActor(campaignMachine, { snapshot: asHosted as never, input: { campaignId: `p${index}-${action}` } as never }).getSnapshot() as Snap);
        const id = `p${index}-${action}`;
        // The document's binding is a copy of the chart's (every save writes it so).
        const charted = (snapshot as { context: CampaignContext }).context.binding;
        const doc = newCampaignDocument({
          campaignId: id,
          objective: 'policy',
          createdAt: new Date(),
          machine: { version: CAMPAIGN_MACHINE_VERSION, snapshot: { ...(snapshot as object), context: { ...(snapshot as { context: CampaignContext }).context, campaignId: id } } },
          remote: { ...charted, attached: charted.taskId !== null },
        });
        await writeFile(path.join(stateRoot, 'campaigns', `${id}.json`), JSON.stringify(doc), { mode: 0o600 });
      }
      const { supervisor } = await startTestSupervisor(scope, {
        stateRoot,
        url: sim.current!.url,
        extra: { ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS), ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: String(LEASE_TTL) },
      });
      for (const action of ACTIONS) {
        const id = `p${index}-${action}`;
        const snap = restored.get(action)!;
        const got = (await supervisor.campaigns({ action: 'get', campaign_id: id })) as { ok: boolean; value?: { campaign: { allowed_actions: string[] } }; error?: unknown };
        if (!got.ok) {
          disagreements.push(`${key} ${action}: get failed ${JSON.stringify(got.error)}`);
          continue;
        }
        const allowed = got.value!.campaign.allowed_actions;
        const expected = action === 'observe' ? observeRefusal(snap) : firstFailingRow(snap, eventFor(action, snap));
        const answer = (await supervisor.campaignAction(bodyFor(action, id, snap))) as { ok: boolean; error?: { code: string; message: string } };
        const line = (what: string) => disagreements.push(`${key} ${action}: ${what} (allowed ${JSON.stringify(allowed)}, expected ${expected}, answer ${JSON.stringify(answer.error ?? 'ok')})`);
        if (allowed.includes(action) !== (expected === null)) line('allowed_actions disagrees with the rows');
        if (expected === null) {
          seen.allowed++;
          // A later remote/effect failure is an answer of its own, never a rule's refusal.
          if (!answer.ok && CHART_CODES.has(answer.error!.code) && API_ERROR_STATUS[answer.error!.code as keyof typeof API_ERROR_STATUS] === 409) line('allowed but refused by a rule');
        } else {
          seen.refused++;
          seen.byCode.set(`${action}:${expected}`, (seen.byCode.get(`${action}:${expected}`) ?? 0) + 1);
          const status = answer.ok ? 200 : API_ERROR_STATUS[answer.error!.code as keyof typeof API_ERROR_STATUS];
          // A rule's refusal is 409, except the two that say a runtime is missing (remote_unavailable, argus_unavailable: 503).
          const wantStatus = API_ERROR_STATUS[expected as keyof typeof API_ERROR_STATUS] ?? 409;
          if (answer.ok || answer.error!.code !== expected || status !== wantStatus || (status !== 409 && status !== 503)) line(`refused with the wrong answer (HTTP ${status})`);
        }
      }
      await supervisor.stop();
    };
    // A few classes at a time (each its own state root and supervisor): the box has two cores.
    const queue = [...classes].map(([key, s], index) => ({ key, s, index }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await runClass(next.key, next.s, next.index);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const ms = Math.round(performance.now() - started);
    console.log(
      `api policy: ${states.length} reachable states, ${quiescent.length} quiescent, ${restorable.length} restorable without a read in flight, ${classes.size} classes × ${ACTIONS.length} actions = ${seen.allowed + seen.refused} checks (${seen.allowed} allowed, ${seen.refused} refused) in ${ms} ms`,
    );
    console.log(`refusal codes seen: ${[...seen.byCode.keys()].sort().join(' ')}`);
    expect(disagreements.slice(0, 10), `${disagreements.length} disagreements`).toEqual([]);
    // Each action was both allowed somewhere and refused somewhere (the walk is not vacuous).
    for (const action of ACTIONS) expect([...seen.byCode.keys()].some((k) => k.startsWith(`${action}:`)), `${action} refused somewhere`).toBe(true);
    expect(seen.allowed).toBeGreaterThan(0);
  });
});
