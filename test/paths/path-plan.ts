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
import { initialTransition, type ActorLogic } from 'xstate';
import { getShortestPaths } from '@xstate/graph';
import type { CampaignEvent } from '../../machines/campaign.types.js';
import { machine, INPUT, pureStep, recorder, serializeEvent, serializeState, traversal, emittedBy, type Snap, type Step } from '../machines/campaign-traversal.js';
import { UNBOUND } from '../machines/graph-events.js';
import { decisionInput, decisionRoots } from '../machines/graph-decisions.js';
import { restore } from '../machines/graph-events.js';
import type { DeclaredTransition } from '../machines/statechart-coverage.js';
import { declaredOutcomes } from '../machines/guard-outcomes.js';

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
  /** The declared transition this path is the shortest to (its last step takes it). */
  target: string;
  root: RootName;
  steps: PlannedStep[];
}

export interface Plan {
  declared: string[];
  /** Every guard outcome the chart declares, and those the pure traversal evaluated. */
  declaredOutcomes: string[];
  pureOutcomes: string[];
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
function rootSnapshots(): [RootName, Snap][] {
  const [start] = initialTransition(machine, INPUT);
  const [argus] = initialTransition(machine, decisionInput(INPUT));
  const [unbound] = initialTransition(machine, { ...INPUT, binding: UNBOUND });
  const [argusRestored] = decisionRoots(machine, INPUT, (p) => restore(machine, p));
  return [
    ['start', start],
    ['argus', argus],
    ['unbound', unbound],
    ['argus-restored', argusRestored!],
  ];
}

/**
 * The shortest path to every state reachable from `root` over the traversal's arrows: the
 * library walks a logic that looks each arrow up instead of taking it.
 */
function pathsFrom(root: Snap, arrows: Map<string, Map<string, Step>>, inOrder: boolean): Map<string, Step[]> {
  const keys = new WeakMap<Snap, string>();
  const keyOf = (s: Snap): string => {
    let key = keys.get(s);
    if (key === undefined) keys.set(s, (key = serializeState(s)));
    return key;
  };
  const all = (s: Snap) => arrows.get(keyOf(s)) ?? new Map<string, Step>();
  // In order: while an effect is in flight (a read included), only effect answers come next.
  const out = (s: Snap): Map<string, Step> => {
    if (!inOrder || !busy(s)) return all(s);
    return new Map([...all(s)].filter(([, step]) => isAnswer(step.event)));
  };
  const lookup: ActorLogic<Snap, CampaignEvent> = {
    transition: (s, e) => out(s).get(serializeEvent(e))!.nextState,
    getInitialSnapshot: () => root,
    getPersistedSnapshot: (s) => machine.getPersistedSnapshot(s),
  };
  // Only the first arrow to each other state can be on a shortest path.
  const firstArrows = (s: Snap): CampaignEvent[] => {
    const targets = new Set([keyOf(s)]);
    const events: CampaignEvent[] = [];
    for (const step of out(s).values()) {
      const to = keyOf(step.nextState);
      if (targets.has(to)) continue;
      targets.add(to);
      events.push(step.event);
    }
    return events;
  };
  const found = getShortestPaths(lookup, { fromState: root, events: firstArrows, serializeState: keyOf, serializeEvent });
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

const isAnswer = (e: CampaignEvent): boolean => /^xstate\.(done|error)\.actor\./.test(e.type) || e.type === 'READ_DONE' || e.type === 'READ_CRASHED';
const busy = (s: Snap): boolean => s.hasTag('effect-in-flight') || s.matches({ active: { heartbeat: 'reading' } } as never);

/** One shortest path per declared transition, deterministic: fewest steps, then root order, then traversal order. */
export function buildPlan(): Plan {
  const { declared, steps, guardOutcomes } = traversal();
  const arrows = arrowsByState(steps);
  // Paths whose effects answer in the order they were started come first: the running system
  // drives those with one command each. Others (a TICK while a claim is in flight) only where
  // no such path takes the transition.
  const best = new Map<string, { root: { name: RootName; snap: Snap }; path: Step[]; last: Step; length: number }>();
  for (const inOrder of [true, false]) {
    const found = new Map<string, { root: { name: RootName; snap: Snap }; path: Step[]; last: Step; length: number }>();
    for (const [name, snap] of rootSnapshots()) collect({ name, snap, paths: pathsFrom(snap, arrows, inOrder) }, inOrder, found);
    for (const [id, chosen] of found) if (!best.has(id)) best.set(id, chosen);
  }
  function collect(root: { name: RootName; snap: Snap; paths: Map<string, Step[]> }, inOrder: boolean, best: Map<string, { root: { name: RootName; snap: Snap }; path: Step[]; last: Step; length: number }>): void {
    for (const [stateKey, path] of root.paths) {
      const end = path.length ? path[path.length - 1]!.nextState : root.snap;
      for (const last of arrows.get(stateKey)?.values() ?? []) {
        if (inOrder && busy(end) && !isAnswer(last.event)) continue;
        for (const t of last.taken) {
          const length = path.length + 1;
          const known = best.get(t.id);
          if (!known || length < known.length) best.set(t.id, { root, path, last, length });
        }
      }
    }
  }
  const paths: PlannedPath[] = [];
  for (const t of declared as DeclaredTransition[]) {
    const chosen = best.get(t.id);
    if (!chosen) continue;
    const planned: PlannedStep[] = [];
    for (const step of [...chosen.path, chosen.last]) planned.push(plannedStep(step.state, step.event, step));
    paths.push({ target: t.id, root: chosen.root.name, steps: planned });
  }
  return { declared: declared.map((d) => d.id), declaredOutcomes: declaredOutcomes(machine), pureOutcomes: [...guardOutcomes].sort(), paths };
}
