/**
 * The campaign chart's model-based traversal, built once per test file: the chart with every
 * named guard instrumented, the finite alphabet from graph-events.ts, the initial state and
 * the restored roots, and the helpers the invariants read states with.
 */
import { expect } from 'vitest';
import { transition, type ActorLogic, type EventObject, type SnapshotFrom } from 'xstate';
import { adjacencyMapToArray, getAdjacencyMap } from 'xstate/graph';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEvent } from '../../machines/campaign.types.js';
import { eventsFor, K_DONE, restoredRoots, US } from './graph-events.js';
import { instrumentGuards } from './guard-outcomes.js';
import { declaredTransitions, takenTransitions } from './statechart-coverage.js';

export type Snap = SnapshotFrom<typeof campaignMachine>;
// The same chart with every named guard recording its outcome during the traversal.
export const { machine, recorder } = instrumentGuards(campaignMachine);
// maxAttempts 1 so the attempt bound is reached within the traversal.
export const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 1 };
// The graph helpers type emitted events as plain EventObject; the machine's are narrower.
export const graphLogic = machine as unknown as ActorLogic<Snap, CampaignEvent, typeof INPUT>;

/** Only what changes behaviour: guards read nothing else (counters and timestamps excluded). */
export function serializeState(s: Snap): string {
  const c = s.context;
  const paused = s.matches('paused');
  return JSON.stringify({
    value: s.value,
    status: s.status,
    lease: c.lease?.epoch ?? null,
    // The bound guard reads only `attempts < max` (a resolved in-doubt submit may pass max).
    attempts: Math.min(c.attemptsSubmitted, c.maxAttempts),
    intent: c.pendingIntent?.kind ?? null,
    question: c.pendingQuestion?.key ?? null,
    // reviewFreshForEvent compares a verdict's event with this; K_DONE is the only one offered.
    reviewable: c.wakes.lastArgusEventKey === K_DONE,
    // Where RESUME returns to matters only while paused.
    history: paused ? Object.values(s.historyValue).map((nodes) => nodes.map((n) => n.id)) : null,
  });
}

export const serializeEvent = (e: CampaignEvent): string => JSON.stringify(e, (key, value) => (value instanceof Error ? 'Error' : value));
export const options = { input: INPUT, events: (s: Snap) => eventsFor(s), serializeState, serializeEvent };

export const A = 'active.authority';
const value = (path: string): unknown => path.split('.').reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);
export const isIn = (s: Snap, path: string): boolean => s.matches(value(path) as never);
export const inRelaying = (s: Snap) => isIn(s, `${A}.controlling.relaying`);
export const inControlling = (s: Snap) => isIn(s, `${A}.controlling`);
/** The event types a step emits (pure: `transition` returns actions without running them). */
export const emittedBy = (actions: readonly { type: string }[]): string[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a as unknown as { params: { event: EventObject } }).params.event.type);
export const emitted = (s: Snap, e: EventObject): string[] => emittedBy(transition(machine, s, e as CampaignEvent)[1]);

// ---- the traversal (built once at load) --------------------------------------------------

export type Edge = { state: Snap; event: CampaignEvent; nextState: Snap };

const takeSteps = (edges: Edge[], byDefinition: ReturnType<typeof declaredTransitions>['byDefinition']) =>
  edges.map((edge) => ({ ...edge, taken: takenTransitions(machine, byDefinition, edge.state, edge.event) }));

function traverse() {
  const started = performance.now();
  const fromStart = recorder.during(() => getAdjacencyMap(graphLogic, options));
  const fromRestored = restoredRoots(machine, INPUT).map((root) => recorder.during(() => getAdjacencyMap(graphLogic, { ...options, fromState: root as Snap })));
  const edges = adjacencyMapToArray(Object.assign({}, ...fromRestored, fromStart)) as Edge[];
  const { list: declared, byDefinition } = declaredTransitions(machine);
  const steps = takeSteps(edges, byDefinition);
  const reachedStates = new Map(edges.map((e) => [serializeState(e.state), e.state]));
  return { fromStart, edges, declared, declaredBy: byDefinition, steps, reachedStates, guardOutcomes: recorder.seen(), traversalMs: Math.round(performance.now() - started) };
}

let built: ReturnType<typeof traverse> | null = null;
let stepsFor: { test: string | undefined; steps: ReturnType<typeof traverse>['steps'] } | null = null;

/**
 * The traversal, built on first use inside a test (not at import). Each test re-derives the
 * steps (which re-evaluates every guard on every reached edge), so mutation testing sees every
 * test that reads the traversal as covering the guards it depends on, not only the first one.
 */
export function traversal(): ReturnType<typeof traverse> {
  built ??= traverse();
  const test = expect.getState().currentTestName;
  if (stepsFor === null || stepsFor.test !== test) {
    stepsFor = { test, steps: stepsFor === null ? built.steps : takeSteps(built.edges, built.declaredBy) };
  }
  return { ...built, steps: stepsFor.steps };
}
