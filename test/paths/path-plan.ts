/**
 * The driven-path plan (issue 21 item 2): one shortest path per declared transition, each from
 * the root a running system can start a campaign at, taken from the model traversal with
 * @xstate/graph's `getShortestPaths`. The plan is data (`plan.json`, committed and checked fresh
 * by the graph test), so the driven-path workers read it instead of building the traversal again.
 *
 * Roots are what an operator's system can really begin with:
 * - `start`: a campaign created on a task, no Argus runtime;
 * - `argus`: the same with the SIMULATED Argus and Foreman available;
 * - `unbound`: a campaign created with no task;
 * - `argus-restored`: an `argus` campaign bound to its mission, then the process restarted
 *   (the restore asks the binding again: the only way into `idle.verifying`).
 */
import { fileURLToPath } from 'node:url';
import { initialTransition, type AnyEventObject } from 'xstate';
import { modelStep } from './path-model.js';
import type { CampaignEvent } from '../../machines/campaign.types.js';
import { machine, INPUT, pureStep, recorder, serializeEvent, memoKeys, serializeState, shortestOver, traversal, emittedBy, type Snap, type Step } from '../machines/campaign-traversal.js';
import { UNBOUND } from '../machines/graph-events.js';
import { decisionInput, decisionRoots } from '../machines/graph-decisions.js';
import { restore } from '../machines/graph-events.js';
import type { DeclaredTransition } from '../machines/statechart-coverage.js';
import { declaredOutcomes, type GuardOutcomeId } from '../machines/guard-outcomes.js';

/** The committed plan (regenerated with ARGUS_WRITE_PLAN=1 by the graph test, which checks it fresh). */
export const PLAN_FILE = fileURLToPath(new URL('./plan.json', import.meta.url));

export const ROOTS = ['start', 'argus', 'unbound', 'argus-restored'] as const;
export type RootName = (typeof ROOTS)[number];

/** One model step as data: the event (JSON), what it took, where it led, what it emitted. */
export interface PlannedStep {
  event: Record<string, unknown>;
  /** Declared transition ids the step took, in the order XState reported them. */
  taken: string[];
  /** The state value after the step. */
  value: unknown;
  /** The types of the events the step emitted, and the public drafts' kinds. */
  emitted: string[];
  drafts: string[];
  /** The guard outcomes the step evaluated (`guard:true|false`). */
  guards: string[];
}

export interface PlannedPath {
  /**
   * What this path is the shortest to: a declared transition's id (its last step takes it), or
   * `guard <outcomes>` (its last step evaluates them, and no transition path does).
   */
  target: string;
  root: RootName;
  /** Foreman runs in this path's world (every read in it says so: Foreman's availability is the process's, not a read's). */
  foreman: boolean;
  steps: PlannedStep[];
}

export interface Plan {
  declared: string[];
  /** Every guard outcome the chart declares, and those the pure traversal evaluated. */
  declaredOutcomes: string[];
  pureOutcomes: string[];
  /** Outcomes the traversal reached only through read answers the reducer never gives (no plannable path). */
  unplannedOutcomes: string[];
  paths: PlannedPath[];
}

const jsonEvent = (e: CampaignEvent): Record<string, unknown> => JSON.parse(serializeEvent(e)) as Record<string, unknown>;

function plannedStep(from: Snap, event: CampaignEvent, step: Step): PlannedStep {
  const [[, actions], guards] = recorder.capture(() => pureStep(from, event));
  const drafts = (actions as { type: string; params?: { event?: { type: string; drafts?: { kind: string }[] } } }[])
    .flatMap((a) => (a.type === 'xstate.emit' && a.params?.event?.type === 'PUBLIC_DRAFTS' ? (a.params.event.drafts ?? []).map((d) => d.kind) : []));
  return { event: jsonEvent(event), taken: step.taken.map((t) => t.id), value: step.nextState.value, emitted: emittedBy(actions), drafts, guards: [...guards].sort() };
}

/** Every arrow the traversal took, by source state key (both alphabets' arrows merged). */
function arrowsByState(steps: readonly Step[]): Map<string, Map<string, Step>> {
  const byState = new Map<string, Map<string, Step>>();
  for (const step of steps) {
    const key = serializeState(step.state);
    let arrows = byState.get(key);
    if (!arrows) byState.set(key, (arrows = new Map()));
    if (!arrows.has(step.key)) arrows.set(step.key, step);
  }
  return byState;
}

/** The roots as snapshots, in the order ties are broken. */
function rootSnapshots(): [RootName, Snap, boolean][] {
  const [start] = initialTransition(machine, INPUT);
  const [argus] = initialTransition(machine, decisionInput(INPUT));
  const [unbound] = initialTransition(machine, { ...INPUT, binding: UNBOUND });
  const [argusRestored] = decisionRoots(machine, INPUT, (p) => restore(machine, p));
  // The Argus roots twice: with Foreman off, then on (the authority alphabet's reads say off).
  return [
    ['start', start, false],
    ['argus', argus, false],
    ['argus', argus, true],
    ['unbound', unbound, false],
    ['argus-restored', argusRestored!, false],
    ['argus-restored', argusRestored!, true],
  ];
}

/**
 * The shortest path to every state reachable from `root` over the traversal's arrows: the
 * library walks a logic that looks each arrow up instead of taking it.
 */
function pathsFrom(root: Snap, arrows: Map<string, Map<string, Step>>, inOrder: boolean, foreman: boolean): Map<string, Step[]> {
  const keyOf = memoKeys();
  const all = (s: Snap) => new Map([...(arrows.get(keyOf(s)) ?? [])].filter(([, step]) => reducible(s, step.event, foreman)));
  // In order: while an effect is in flight (a read included), only effect answers come next.
  const out = (s: Snap): Map<string, Step> => {
    if (!inOrder || !busy(s)) return all(s);
    return new Map([...all(s)].filter(([, step]) => isAnswer(step.event)));
  };
  const found = shortestOver(root, out, (step) => step.nextState, keyOf);
  const byKey = new Map<string, Step[]>();
  for (const { steps } of found) {
    // The library's steps: (state reached, the event that reached it), an `xstate.init` first.
    const path: Step[] = [];
    let at = root;
    for (const { event } of steps.slice(1)) {
      const step = out(at).get(serializeEvent(event as CampaignEvent))!;
      path.push(step);
      at = step.nextState;
    }
    byKey.set(keyOf(at), path);
  }
  return byKey;
}

/**
 * The alphabet offers every read answer in every state; the reducer does not produce them all
 * (services/reducer/reducer.ts): a BLOCKED event only when the task *enters* an interrupted
 * state (not while it already is), ATTEMPT_COMPLETED only when it enters a terminal one (and a
 * terminal state is final, A2A: no later read leaves it), and new
 * evidence (an artifact added) only against a previous view (never on the first read). Paths
 * through such answers could never be driven.
 */
function reducible(s: Snap, e: CampaignEvent, foreman: boolean): boolean {
  if (e.type !== 'READ_DONE' || !e.output.ok || !e.output.observation) return true;
  if (e.output.observation.foremanEnabled !== foreman) return false;
  const events = e.output.observation.events;
  const before = s.context.remote;
  if (events.some((x) => x.class === 'BLOCKED') && before !== null && (before.state === 'input-required' || before.state === 'auth-required')) return false;
  if (events.some((x) => x.reason === 'artifact_added') && before === null) return false;
  // A2A's terminal states are final: a task seen terminal stays so, and completes only once.
  const terminal = before !== null && ['completed', 'failed', 'canceled', 'rejected'].includes(before.state);
  if (terminal && (e.output.observation.view.state !== before.state || events.some((x) => x.class === 'ATTEMPT_COMPLETED'))) return false;
  return true;
}

const isAnswer = (e: CampaignEvent): boolean => /^xstate\.(done|error)\.actor\./.test(e.type) || e.type === 'READ_DONE' || e.type === 'READ_CRASHED';
const busy = (s: Snap): boolean => s.hasTag('effect-in-flight') || s.matches({ active: { heartbeat: 'reading' } } as never);

/**
 * Replays a planned path on the pure chart from its root, concretely: each step must take the
 * transitions and evaluate the guard outcomes the plan recorded. The plan is read off the
 * traversal's arrows, which were taken from one snapshot per state key (serializeState): a key
 * that merges snapshots a guard can tell apart would make a planned step take another branch
 * here, and in the running system (found so: a running attempt and a finished one shared a key).
 * Returns the first disagreement, or null.
 */
export function replayDisagreement(path: PlannedPath): string | null {
  const root = rootSnapshots().find(([name, , foreman]) => name === path.root && foreman === (path.foreman ?? false));
  if (!root) return `no root ${path.root}`;
  let at = root[1];
  for (const [i, step] of path.steps.entries()) {
    const { next, taken, guards } = modelStep(at, step.event as unknown as AnyEventObject);
    if (JSON.stringify(taken) !== JSON.stringify(step.taken)) return `step ${i} (${String(step.event.type)}) took ${JSON.stringify(taken)}, planned ${JSON.stringify(step.taken)}`;
    if (JSON.stringify([...guards].sort()) !== JSON.stringify(step.guards)) return `step ${i} (${String(step.event.type)}) evaluated ${[...guards].sort().join(',')}, planned ${step.guards.join(',')}`;
    at = next;
  }
  return null;
}

/**
 * One shortest path per declared transition, and one per guard outcome not already on one;
 * deterministic: fewest steps, then root order, then traversal order.
 */
export function buildPlan(): Plan {
  const { declared, steps, guardOutcomes } = traversal();
  const arrows = arrowsByState(steps);
  // Paths whose effects answer in the order they were started come first: the running system
  // drives those with one command each. Others (a TICK while a claim is in flight) only where
  // no such path takes the transition.
  type Chosen = { root: RootName; foreman: boolean; path: Step[]; last: Step; length: number };
  // Every root's shortest paths, in order first (see pathsFrom), then any order.
  const walks = [true, false].map((inOrder) => ({ inOrder, roots: rootSnapshots().map(([name, snap, foreman]) => ({ name, snap, foreman, paths: pathsFrom(snap, arrows, inOrder, foreman) })) }));
  /** The arrows out of each reached state, with the path there, shortest first (ties: root order). */
  const sorted = new Map<boolean, { root: (typeof walks)[number]['roots'][number]; stateKey: string; path: Step[] }[]>();
  function* candidates(inOrder: boolean): Generator<{ root: RootName; foreman: boolean; path: Step[]; last: Step }> {
    let all = sorted.get(inOrder);
    if (!all) {
      const walk = walks.find((w) => w.inOrder === inOrder)!;
      all = walk.roots.flatMap((root) => [...root.paths].map(([stateKey, path]) => ({ root, stateKey, path })));
      all.sort((a, b) => a.path.length - b.path.length);
      sorted.set(inOrder, all);
    }
    for (const { root, stateKey, path } of all) {
      const end = path.length ? path[path.length - 1]!.nextState : root.snap;
      for (const last of arrows.get(stateKey)?.values() ?? []) {
        if (inOrder && busy(end) && !isAnswer(last.event)) continue;
        if (!reducible(end, last.event, root.foreman)) continue;
        yield { root: root.name, foreman: root.foreman, path, last };
      }
    }
  }
  // Paths whose effects answer in the order they were started come first: the running system
  // drives those with one command each. Others (a TICK while a claim is in flight) only where
  // no such path takes the transition.
  const best = new Map<string, Chosen>();
  for (const inOrder of [true, false]) {
    const found = new Map<string, Chosen>();
    for (const { root, foreman, path, last } of candidates(inOrder)) {
      for (const t of last.taken) if (!found.has(t.id)) found.set(t.id, { root, foreman, path, last, length: path.length + 1 });
    }
    for (const [id, chosen] of found) if (!best.has(id)) best.set(id, chosen);
  }
  const toPlanned = (target: string, chosen: { root: RootName; foreman: boolean; path: Step[]; last: Step }): PlannedPath => ({
    target,
    root: chosen.root,
    foreman: chosen.foreman,
    steps: [...chosen.path, chosen.last].map((step) => plannedStep(step.state, step.event, step)),
  });
  const paths: PlannedPath[] = [];
  for (const t of declared as DeclaredTransition[]) {
    const chosen = best.get(t.id);
    if (chosen) paths.push(toPlanned(t.id, chosen));
  }
  // Then one path per guard outcome no transition path evaluates: the shortest whose last step does.
  const onPaths = new Set(paths.flatMap((p) => p.steps.flatMap((s) => s.guards)));
  const missing = new Set([...guardOutcomes].filter((o) => !onPaths.has(o)));
  for (const inOrder of [true, false]) {
    for (const candidate of candidates(inOrder)) {
      if (missing.size === 0) break;
      const outcomes = (candidate.last.guards ? candidate.last.guards.split(' ') : []) as GuardOutcomeId[];
      const fresh = outcomes.filter((o) => missing.has(o));
      if (!fresh.length) continue;
      for (const o of outcomes) missing.delete(o);
      paths.push(toPlanned(`guard ${fresh.join(', ')}`, candidate));
    }
  }
  // And the heartbeat from every root: which campaigns a beat ticks (with a task or without,
  // with Argus or not, after a restore) is the scheduler's rule, outside the chart.
  for (const { roots } of walks.slice(0, 1)) {
    for (const root of roots.filter((r) => r.name !== 'start')) {
      const ticked = new Set(paths.filter((p) => p.root === root.name).flatMap((p) => p.steps.flatMap((s) => s.taken)));
      // The first (shortest) candidate from this root for each TICK arrow it has no path through yet.
      const wanted = (declared as DeclaredTransition[]).filter((d) => d.event === 'TICK' && !ticked.has(d.id)).map((d) => d.id);
      const first = new Map<string, { root: RootName; foreman: boolean; path: Step[]; last: Step }>();
      for (const inOrder of [true, false]) {
        for (const c of candidates(inOrder)) {
          if (c.root !== root.name || c.foreman !== root.foreman) continue;
          for (const x of c.last.taken) if (wanted.includes(x.id) && !first.has(x.id)) first.set(x.id, c);
        }
      }
      for (const id of wanted) {
        const found = first.get(id);
        if (!found || ticked.has(id)) continue;
        paths.push(toPlanned(`tick from ${root.name}: ${id}`, found));
        for (const s of paths[paths.length - 1]!.steps) for (const taken of s.taken) ticked.add(taken);
      }
    }
  }
  const planned = new Set(paths.flatMap((p) => p.steps.flatMap((s) => s.guards)));
  const unplannedOutcomes = [...guardOutcomes].filter((o) => !planned.has(o)).sort();
  return { declared: declared.map((d) => d.id), declaredOutcomes: declaredOutcomes(machine), pureOutcomes: [...guardOutcomes].sort(), unplannedOutcomes, paths };
}
