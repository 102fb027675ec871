/**
 * Drives one planned path through the running system and checks it against the model after
 * every command (issue 21 item 2). Two kinds of result, kept apart on purpose:
 *
 * - DISAGREE: the running system did something the model says it must not: the persisted
 *   snapshot is not the model's at its last save point (save-points.ts), the outbox did not gain
 *   the public events the chart emitted, the view's `allowed_actions` is not the model's `can`
 *   set, a remote method was called that no effect the model started may call, or a command
 *   the model says the actor takes never reached it. A test fails on any of these.
 * - UNDRIVEN: the path could not be reproduced (no driver makes that effect answer so, or the
 *   live answer took another branch than the planned one). It is counted, with its reason,
 *   and the baseline ratchet keeps the count from growing.
 *
 * The model follows the live events, not the plan's: the plan says what to do, the model says
 * what each thing that happened must cause. So a command that makes the system send more
 * events than the plan named (RESUME reads the remote again) is still checked event by event.
 */
import { isDeepStrictEqual } from 'node:util';
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import type { AnyEventObject } from 'xstate';
import type { HostEnvironment } from '../../machines/campaign.types.js';
import { explainRefusal } from '../../machines/campaign.rules.js';
import type { CampaignEmitted } from '../../machines/campaign.emitted.js';
import type { PlannedPath, PlannedStep } from './path-plan.js';
import { drivenWorld, type Received } from './driven-world.js';
import { EFFECT_METHODS, expectedDrafts, modelAllowed, modelStep, MUTATING_METHODS, restoreModel } from './path-model.js';
import { arrange, effectOf, isEffectAnswer, perform } from './stimuli.js';
import { argusWorldFor } from './stimuli-decisions.js';
import { SavePoints } from './save-points.js';
import type { StoreChoice } from './driven-store.js';
import type { Snap } from '../machines/campaign-traversal.js';
import { Disagreement, idle, parked, settle, Undriven } from './group-waits.js';

export type PathResult =
  | { status: 'driven'; target: string; taken: string[]; guards: string[]; steps: number }
  | { status: 'undriven'; target: string; reason: string; taken: string[]; guards: string[] }
  | { status: 'disagree'; target: string; problem: string };


/** The planned steps in groups: one performed event, then the effect answers it leads to. */
function groups(steps: readonly PlannedStep[]): PlannedStep[][] {
  const out: PlannedStep[][] = [];
  for (const step of steps) {
    if (isEffectAnswer(step.event) && out.length) out[out.length - 1]!.push(step);
    else out.push([step]);
  }
  return out;
}

/** XState's own lifecycle events are not the chart's steps. */
const LIFECYCLE = new Set(['xstate.init', 'xstate.stop']);
/** What a restart sends an actor before any command: the journal's open intent, in doubt. */
const describe = (e: AnyEventObject) => e.type;

/** The host's answer to a restart, beyond the chart: an open journal intent with no outcome is recorded ambiguous. */
const LEASE_TTL_SECONDS = 600;

export async function runPath(path: PlannedPath, store: StoreChoice = { kind: 'file' }): Promise<PathResult> {
  // Roots `argus` and `argus-restored`: with the SIMULATED Argus and Foreman (stimuli-decisions.ts).
  const world = await drivenWorld({ bound: path.root !== 'unbound', ...argusWorldFor(path), store });
  const taken = new Set<string>();
  const guards = new Set<string>();
  try {
    const host = () => world.supervisor.system!.host('path-1')!;
    const environment = (): HostEnvironment => host().getSnapshot().context.environment;
    world.drain();
    let doc = await world.document();
    let model: Snap = restoreModel(doc.machine.snapshot, new Date(world.now()), environment()).snap;
    // The snapshot the store must hold: the model's at its last save point (save-points.ts).
    let saves = new SavePoints(doc.machine.snapshot, model);
    /** Effects whose first request a group held and no answer has released yet. */
    const heldBefore = new Map<string, { release(): number }>();
    for (const group of groups(path.steps)) {
      for (const answer of group.slice(1)) {
        const arranged = await arrange(world, answer.event);
        if (!arranged.ok) throw new Undriven(arranged.reason);
      }
      // An effect the plan starts but does not let answer within the group is held at the remote.
      const held = heldMethods(group);
      const holds = held.map(([answer, method]) => [answer, world.sim.hold([method])] as const);
      // An answer this group plans to an effect an earlier group held: let it go once the command is in.
      const releasing = group.slice(1).flatMap((a) => {
        const handle = heldBefore.get(effectOf(a.event) ?? '');
        return handle ? [handle] : [];
      });
      const before = world.requests();
      const restartsBefore = world.restarts();
      const performing = perform(world, group[0]!.event);
      if (releasing.length) {
        await world.quiet(50);
        for (const handle of releasing) handle.release();
        for (const [answer, handle] of heldBefore) if (releasing.includes(handle)) heldBefore.delete(answer);
      }
      const holdingBefore = world.sim.holding;
      // With an effect held, the command may wait for it: the group is over once it is parked and the rest has settled.
      const performed = held.length ? await Promise.race([performing, parked(world, holdingBefore + held.length).then(() => idle(world, performing, restartsBefore))]) : await performing;
      if (!performed.ok) throw new Undriven(performed.reason);
      for (const [answer, handle] of holds) heldBefore.set(answer, handle);
      await settle(world, world.sim.holding > 0);
      const received = world.drain().filter((r) => !LIFECYCLE.has(r.event.type));
      // PATHS_DEBUG=1: what the actor received in each group.
      if (process.env.PATHS_DEBUG === "1") console.log(JSON.stringify(received.map((r) => [r.event.type, r.taken])));
      const restarted = performed.restarted === true;
      const invoked: string[] = [];
      // Credited only once every check of the group has passed.
      const groupTaken = new Set<string>();
      const groupGuards = new Set<string>();
      if (restarted) {
        // The actor was rebuilt from the document: the model is too, the way the host does it.
        const restored = restoreModel(doc.machine.snapshot, new Date(world.now()), world.startEnvironment() as HostEnvironment);
        model = restored.snap;
        const restoredEmitted: CampaignEmitted[] = [...restored.emitted];
        // The host's rule at start, beyond the chart: a journaled intent with no outcome is in doubt, said once.
        if (performed.journaled && !performed.journaled.outcomeRecorded) restoredEmitted.push({ type: 'INTENT_AMBIGUOUS', campaignId: 'path-1', requestId: performed.journaled.requestId, kind: performed.journaled.kind as never });
        saves = new SavePoints(doc.machine.snapshot, model, restoredEmitted);
      }
      // Model agreement, event by event, on what really arrived.
      for (const r of received) {
        const step = modelStep(model, r.event);
        if (!isDeepStrictEqual(step.taken, r.taken)) throw new Disagreement(`${describe(r.event)}: the live actor took ${JSON.stringify(r.taken)}, the model ${JSON.stringify(step.taken)}`);
        for (const id of step.taken) groupTaken.add(id);
        for (const g of step.guards) groupGuards.add(g);
        invoked.push(...step.invoked);
        model = step.next;
        saves.step(model, step.emitted);
      }
      // The plan, reproduced: its steps in order among what arrived, each taking what was planned.
      matchPlan(group, received, performed.refused ?? null);
      // A command the API refused was refused by the chart (explainRefusal asks the live snapshot):
      // the guards it evaluated count as driven when the model refuses it with the same code.
      if (performed.refused && !received.length) {
        const event = asSent(group[0]!.event, model, world.now());
        const code = explainRefusal(model, event as never);
        if (code !== performed.refused) throw new Disagreement(`the API refused ${String(event.type)} with ${performed.refused}, the chart's reason is ${code ?? 'none (it takes it)'}`);
        for (const g of modelStep(model, event).guards) groupGuards.add(g);
      }
      const after = await world.document();
      const persisted = after.machine.snapshot as { value: unknown; context: unknown; status: unknown };
      const expected = saves.expected as typeof persisted;
      if (!isDeepStrictEqual(persisted.value, expected.value)) throw new Disagreement(`persisted state ${JSON.stringify(persisted.value)}, the model's ${JSON.stringify(expected.value)}`);
      if (!isDeepStrictEqual(persisted.context, expected.context)) throw new Disagreement(`persisted context differs from the model's: ${firstDifference(persisted.context, expected.context)}`);
      checkOutbox(doc, after, saves.takeSaved(), restarted);
      checkMethods(before, world.requests(), invoked, restarted);
      const view = await world.view();
      const allowed = modelAllowed(model, new Date(world.now()), LEASE_TTL_SECONDS);
      if (!isDeepStrictEqual([...view.allowed_actions].sort(), [...allowed].sort())) throw new Disagreement(`allowed_actions ${JSON.stringify(view.allowed_actions)}, the model can ${JSON.stringify(allowed)}`);
      doc = after;
      for (const id of groupTaken) taken.add(id);
      for (const g of groupGuards) guards.add(g);
    }
    return { status: 'driven', target: path.target, taken: [...taken], guards: [...guards], steps: path.steps.length };
  } catch (error) {
    if (error instanceof Undriven) return { status: 'undriven', target: path.target, reason: error.message, taken: [...taken], guards: [...guards] };
    if (error instanceof Disagreement) return { status: 'disagree', target: path.target, problem: error.message };
    throw error;
  } finally {
    await world.close();
  }
}

/** The states that start an effect, the effect's answer, and the remote method its first request calls. */
const EFFECT_STATES: [state: string, answer: string, method: string][] = [
  ['claiming', 'claimLease', CONTROL_METHODS.leaseClaim],
  ['controlling.renewing', 'renewLease', CONTROL_METHODS.leaseRenew],
  ['controlling.verifying', 'readLease', CONTROL_METHODS.leaseGet],
  ['controlling.rotating', 'readLease', CONTROL_METHODS.leaseGet],
  ['controlling.reclaiming', 'rotateLease', CONTROL_METHODS.leaseClaim],
  ['ambiguous-intent.rotating', 'readLease', CONTROL_METHODS.leaseGet],
  ['ambiguous-intent.reclaiming', 'rotateLease', CONTROL_METHODS.leaseClaim],
  ['ambiguous-intent.resolving', 'readBackIntent', CONTROL_METHODS.requestGet],
];

/** The authority region's state as a dotted path (`controlling.verifying`); the attention region's `idle.verifying` is not it. */
function authorityOf(value: unknown): string {
  let node = (value as { active?: { authority?: unknown } })?.active?.authority;
  const parts: string[] = [];
  while (node && typeof node === 'object') {
    const [key, inner] = Object.entries(node)[0] ?? [];
    if (key === undefined) break;
    parts.push(key);
    node = inner;
  }
  if (typeof node === 'string') parts.push(node);
  return parts.join('.');
}

/** The remote methods to hold for a group: effects it enters whose answers it does not plan. */
function heldMethods(group: readonly PlannedStep[]): [answer: string, method: string][] {
  const states = new Set(group.map((s) => authorityOf(s.value)));
  return EFFECT_STATES.filter(([state, answer]) => states.has(state) && !group.some((s) => String(s.event.type).endsWith(`.actor.${answer}`))).map(([, answer, method]) => [answer, method]);
}

/** The planned operator event as the API built it: this clock, the live lease's epoch, the live question. */
function asSent(planned: Record<string, unknown>, model: Snap, now: number): AnyEventObject {
  const event = { ...planned } as Record<string, any>;
  if ('now' in event) event.now = new Date(now).toISOString();
  if (event.type === 'MUTATE') event.epoch = (model.context.lease?.epoch ?? 0) + (Number(event.epoch) - 7);
  if (event.type === 'OPERATOR_ANSWER' && event.questionKey !== 'not-the-question') event.questionKey = model.context.pendingQuestion?.key ?? '';
  return event as AnyEventObject;
}

/** Operator commands: the API answers them, and may refuse them before the actor hears of them. */
const OPERATOR = new Set(['OBSERVE', 'OPERATOR_CLAIM', 'MUTATE', 'OPERATOR_ANSWER', 'PAUSE', 'RESUME', 'CLOSE', 'RESOLVE_INTENT', 'BIND_MISSION']);

/** `inner`'s items appear in `outer` in the same order (others may come between). */
const inOrder = (inner: readonly string[], outer: readonly string[]): boolean => {
  let at = 0;
  for (const item of outer) if (item === inner[at]) at++;
  return at === inner.length;
};

/**
 * Each planned step of the group arrived, in order, taking every transition the plan named (the
 * live event may take more: a takeover that also changes the task's revision makes the read
 * material too; the model has checked all of it above).
 */
function matchPlan(group: PlannedStep[], received: Received[], refused: string | null): void {
  let at = 0;
  for (const planned of group) {
    if (planned === group[0] && OPERATOR.has(String(planned.event.type)) && !received.some((r) => r.event.type === planned.event.type)) {
      // Not delivered: right only if the API refused it, and only if the chart takes nothing on it.
      if (refused === null) throw new Disagreement(`the API accepted ${String(planned.event.type)} but the campaign actor never received it`);
      if (planned.taken.length) throw new Disagreement(`the API refused ${String(planned.event.type)} (${refused}); the model takes ${JSON.stringify(planned.taken)}`);
      continue;
    }
    while (at < received.length && !(received[at]!.event.type === planned.event.type && inOrder(planned.taken, received[at]!.taken))) at++;
    if (at === received.length) {
      const live = received.filter((r) => r.event.type === planned.event.type).map((r) => r.taken);
      if (live.length === 0 && !isEffectAnswer(planned.event)) throw new Disagreement(`${planned.event.type} was performed but the campaign actor never received it`);
      throw new Undriven(`${planned.event.type}: planned ${JSON.stringify(planned.taken)}, the running system took ${JSON.stringify(live)}`);
    }
    at++;
  }
}

/**
 * Every remote request of a group must be one an effect the model started may make. A restart
 * also fetches the agent card (discovery), which no chart step does.
 */
function checkMethods(before: Record<string, number>, after: Record<string, number>, invoked: readonly string[], restarted: boolean): void {
  const allowed = new Set(invoked.flatMap((id) => EFFECT_METHODS[id] ?? []));
  if (restarted) allowed.add('agentCard');
  for (const [method, count] of Object.entries(after)) {
    const sent = count - (before[method] ?? 0);
    if (sent > 0 && !allowed.has(method)) {
      throw new Disagreement(`the remote received ${sent} ${method} that no effect the model started may send (started: ${JSON.stringify(invoked)})`);
    }
    // A method that changes the remote: at most once per effect the model started that may call it.
    const cap = invoked.filter((id) => EFFECT_METHODS[id]?.includes(method)).length;
    if (MUTATING_METHODS.has(method) && sent > cap) throw new Disagreement(`the remote received ${sent} ${method} where the model started ${cap} effect(s) that may send it once`);
  }
}

function checkOutbox(before: { outbox: { nextSeq: number; publishedKeys: string[] } }, after: { outbox: { events: { seq: number; kind: string; dedupeKey: string }[] } }, emitted: CampaignEmitted[], _restarted: boolean): void {
  const published = new Set(before.outbox.publishedKeys);
  const expected: [string, string][] = [];
  for (const d of expectedDrafts(emitted)) {
    if (published.has(d.dedupeKey)) continue;
    published.add(d.dedupeKey);
    expected.push([d.kind, d.dedupeKey]);
  }
  const gained = after.outbox.events.filter((e) => e.seq >= before.outbox.nextSeq).map((e) => [e.kind, e.dedupeKey]);
  if (!isDeepStrictEqual(gained, expected)) throw new Disagreement(`the outbox gained ${JSON.stringify(gained)}, the chart emitted ${JSON.stringify(expected)}`);
}

function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = (a as Record<string, unknown>)[key];
      const y = (b as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(x, y)) return firstDifference(x, y, `${path}.${key}`);
    }
  }
  return `${path || '(root)'}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}
