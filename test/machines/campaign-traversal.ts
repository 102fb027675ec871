/**
 * The campaign chart's model-based traversal, built once per test file: the chart with every
 * named guard instrumented, the finite alphabet from graph-events.ts, the initial state and
 * the restored roots, and the helpers the invariants read states with.
 */
import { createEmptyActor, initialTransition, type ActorLogic, type AnyActorScope, type EventObject, type SnapshotFrom } from 'xstate';
import { adjacencyMapToArray } from 'xstate/graph';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { OPERATOR_RULES, type Rule, type StateProbe } from '../../machines/campaign.rules.js';
import type { CampaignEvent, OperatorEvent } from '../../machines/campaign.types.js';
import { backingOff } from '../../machines/campaign.guards.js';
import { eventsFor, K_DONE, LATER, NOW, restoredRoots, US } from './graph-events.js';
import { instrumentGuards } from './guard-outcomes.js';
import { declaredTransitions, takenTransitions } from './statechart-coverage.js';

export type Snap = SnapshotFrom<typeof campaignMachine>;
export const A = 'active.authority';
// The same chart with every named guard recording its outcome during the traversal.
export const { machine, recorder } = instrumentGuards(campaignMachine);
// maxAttempts 1 so the attempt bound is reached within the traversal.
export const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 1 };
/**
 * One actor scope for every pure step, collecting the actions instead of running them: what
 * `transition()` from xstate does, minus the throwaway actor it creates per call (whose initial
 * context, built without input, throws: 25% of the traversal's time went there).
 */
let collected: { type: string }[] = [];
const emptyActor = createEmptyActor();
const scope = {
  self: emptyActor,
  logger: () => {},
  id: '',
  sessionId: 'graph',
  defer: () => {},
  system: emptyActor.system,
  stopChild: () => {},
  emit: () => {},
  actionExecutor: (action: { type: string }) => void collected.push(action),
} as unknown as AnyActorScope;
/** The next snapshot and the actions of the whole macrostep (not executed). */
export function pureStep(s: Snap, e: CampaignEvent): [Snap, { type: string }[]] {
  collected = [];
  const next = machine.transition(s, e, scope);
  return [next, collected];
}
/** The snapshot after each microstep of a step, and the events it raised (in queue order). */
export function microsteps(s: Snap, e: EventObject): { snapshots: Snap[]; raised: EventObject[] } {
  collected = [];
  const snapshots = machine.microstep(s, e as CampaignEvent, scope);
  const raised = (collected as { type: string; params?: { event?: EventObject; delay?: unknown } }[])
    .filter((a) => a.type === 'xstate.raise' && a.params?.event && a.params.delay === undefined)
    .map((a) => a.params!.event!);
  return { snapshots, raised };
}
// The graph helpers type emitted events as plain EventObject; the machine's are narrower.
export const graphLogic = machine as unknown as ActorLogic<Snap, CampaignEvent, typeof INPUT>;

/** Only what changes behaviour: guards read nothing else (counters and timestamps excluded). */
export function serializeState(s: Snap): string {
  const c = s.context;
  const paused = s.matches('paused');
  const intent = c.pendingIntent;
  return JSON.stringify({
    value: s.value,
    status: s.status,
    // The lease rules read the epoch, expiry, confirmation instant, TTL and context.
    lease: c.lease && [c.lease.epoch, c.lease.expiresAt, c.lease.confirmedAt, c.lease.ttlSeconds, c.lease.contextId],
    // The bound guard reads only `attempts < max` (a resolved in-doubt submit may pass max).
    attempts: Math.min(c.attemptsSubmitted, c.maxAttempts),
    // The readback is read only by the send-margin rule, in journaling.
    intent: intent && [intent.requestId, intent.kind, isIn(s, `${A}.controlling.journaling`) ? intent.readback : null],
    question: c.pendingQuestion && [c.pendingQuestion.key, c.pendingQuestion.source],
    // reviewFreshForEvent compares a verdict's event with this; K_DONE is the only one offered.
    reviewable: c.wakes.lastArgusEventKey === K_DONE,
    // statusUnchanged compares fingerprints and needs no failure streak; readDue reads the backoff.
    remote: c.remote?.fingerprint ?? null,
    failing: c.readFailures.consecutive > 0,
    // readDue compares the backoff with the tick's clock; the alphabet ticks only at NOW and LATER.
    backingOff: [backingOff(c, Date.parse(NOW)), backingOff(c, Date.parse(LATER))],
    // Where RESUME returns to matters only while paused.
    history: paused ? Object.values(s.historyValue).map((nodes) => nodes.map((n) => n.id)) : null,
  });
}

// The alphabet's events are the same objects in every state: serialize each once.
const eventKeys = new WeakMap<object, string>();
export const serializeEvent = (e: CampaignEvent): string => {
  let key = eventKeys.get(e);
  if (key === undefined) eventKeys.set(e, (key = JSON.stringify(e, (_k, value) => (value instanceof Error ? 'Error' : value))));
  return key;
};
export const options = { input: INPUT, events: (s: Snap) => eventsFor(s), serializeState, serializeEvent };

const value = (path: string): unknown => path.split('.').reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);
export const isIn = (s: Snap, path: string): boolean => s.matches(value(path) as never);
export const inRelaying = (s: Snap) => isIn(s, `${A}.controlling.relaying`);
export const inControlling = (s: Snap) => isIn(s, `${A}.controlling`);
/** The event types a step emits (pure: `transition` returns actions without running them). */
export const emittedBy = (actions: readonly { type: string }[]): string[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a as unknown as { params: { event: EventObject } }).params.event.type);
export const emitted = (s: Snap, e: EventObject): string[] => emittedBy(pureStep(s, e as CampaignEvent)[1]);

// ---- the traversal (built once at load) --------------------------------------------------

export type Edge = { state: Snap; event: CampaignEvent; nextState: Snap };
type Adjacency = Record<string, { state: Snap; transitions: Record<string, { event: CampaignEvent; state: Snap }> }>;

/**
 * The adjacency map of `xstate/graph`'s getAdjacencyMap (same shape, same options), walked
 * breadth-first with an index instead of `queue.shift()`: on ~300k edges the library's shift
 * made the walk quadratic (42% of the time). Each state is expanded once, with every event.
 */
function adjacency(from: Snap): Adjacency {
  const adj: Adjacency = {};
  const queue: Snap[] = [from];
  adj[serializeState(from)] = { state: from, transitions: {} };
  for (let i = 0; i < queue.length; i++) {
    const state = queue[i]!;
    const entry = adj[serializeState(state)]!;
    for (const event of options.events(state)) {
      const [next] = pureStep(state, event);
      entry.transitions[serializeEvent(event)] = { event, state: next };
      const key = serializeState(next);
      if (adj[key]) continue;
      adj[key] = { state: next, transitions: {} };
      queue.push(next);
    }
  }
  return adj;
}

const takeSteps = (edges: Edge[], byDefinition: ReturnType<typeof declaredTransitions>['byDefinition']) =>
  edges.map((edge) => ({ ...edge, key: serializeEvent(edge.event), taken: takenTransitions(machine, byDefinition, edge.state, edge.event, microsteps as never) }));
export type Step = ReturnType<typeof takeSteps>[number];

/**
 * The event types a step emits. A step that takes no transition (in any microstep) runs no
 * action, so it emits nothing: only steps that move are replayed.
 */
export const emittedOn = (step: Step): string[] => (step.taken.length === 0 ? [] : emitted(step.state, step.event));

function traverse() {
  const started = performance.now();
  const [initial] = initialTransition(machine, INPUT);
  const fromStart = recorder.during(() => adjacency(initial));
  const fromRestored = restoredRoots(machine, INPUT).map((root) => recorder.during(() => adjacency(root as Snap)));
  const edges = adjacencyMapToArray(Object.assign({}, ...fromRestored, fromStart)) as Edge[];
  const { list: declared, byDefinition } = declaredTransitions(machine);
  const steps = takeSteps(edges, byDefinition);
  const reachedStates = new Map(edges.map((e) => [serializeState(e.state), e.state]));
  const byEvent = new Map<string, Step[]>();
  for (const step of steps) byEvent.set(step.key, [...(byEvent.get(step.key) ?? []), step]);
  return { fromStart, edges, declared, declaredBy: byDefinition, steps, byEvent, reachedStates, guardOutcomes: recorder.seen(), traversalMs: Math.round(performance.now() - started) };
}

let built: ReturnType<typeof traverse> | null = null;

/**
 * The traversal, built on first use inside a test (not at import), once per test file. (The
 * old chart re-derived the steps per test for mutation testing; with the heartbeat region the
 * graph has ~30× the edges, so each test now reads the steps computed once.)
 */
export function traversal(): ReturnType<typeof traverse> {
  built ??= traverse();
  return built;
}

export interface Path {
  state: Snap;
  steps: { event: CampaignEvent; state: Snap }[];
}
let paths: Path[] | null = null;
/**
 * The shortest path (fewest events) to every state reached from the start: a breadth-first walk
 * of the adjacency map the traversal already built (walking the chart again would double the cost).
 */
export function shortestPaths(): Path[] {
  if (paths) return paths;
  const map = traversal().fromStart as Record<string, { state: Snap; transitions: Record<string, { event: CampaignEvent; state: Snap }> }>;
  const [initial] = initialTransition(machine, INPUT);
  const startKey = serializeState(initial);
  const found = new Map<string, Path>([[startKey, { state: initial, steps: [] }]]);
  const queue = [startKey];
  for (let i = 0; i < queue.length; i++) {
    const from = found.get(queue[i]!)!;
    for (const { event, state } of Object.values(map[queue[i]!]?.transitions ?? {})) {
      const key = serializeState(state);
      if (found.has(key)) continue;
      found.set(key, { state, steps: [...from.steps, { event, state }] });
      queue.push(key);
    }
  }
  paths = [...found.values()];
  return paths;
}

// ---- the rule tables, read independently of explainRefusal ---------------------------------

const EFFECT_STATES = ['claiming', 'controlling.renewing', 'controlling.verifying', 'controlling.journaling', 'controlling.relaying', 'ambiguous-intent.resolving'];

const probes = new WeakMap<Snap, StateProbe>();
/** Where a snapshot is, as the `where` rows ask it, derived from the state value (not from stateProbe). */
export function probe(s: Snap): StateProbe {
  let found = probes.get(s);
  if (!found) probes.set(s, (found = probeOnce(s)));
  return found;
}
function probeOnce(s: Snap): StateProbe {
  const closed = s.status === 'done';
  const paused = !closed && s.matches('paused');
  const authorityValue = closed || paused ? null : (s.value as { active: { authority: unknown; attention: unknown; heartbeat: unknown } }).active;
  const authority = closed ? 'closed' : paused ? 'paused' : typeof authorityValue!.authority === 'string' ? (authorityValue!.authority as string) : Object.keys(authorityValue!.authority as object)[0]!;
  const step = authorityValue && typeof authorityValue.authority === 'object' ? (Object.values(authorityValue.authority as object)[0] as string) : null;
  return {
    closed,
    paused,
    authority,
    step,
    attention: authorityValue ? (authorityValue.attention as string) : 'paused',
    heartbeat: authorityValue ? (authorityValue.heartbeat as string) : null,
    effectInFlight: EFFECT_STATES.some((p) => isIn(s, `${A}.${p}`)),
  };
}

export const rowHolds = <E extends OperatorEvent>(rule: Rule<E>, s: Snap, e: E): boolean =>
  'guard' in rule ? rule.holds(s.context, e) : rule.holds(probe(s));
export const rowsOf = (type: OperatorEvent['type']): readonly Rule<OperatorEvent>[] => OPERATOR_RULES[type] as readonly Rule<OperatorEvent>[];
/** The code of the first row of the event's table that fails here, or null when all hold. */
export function firstFailingRow(s: Snap, e: OperatorEvent): string | null {
  for (const rule of rowsOf(e.type)) if (!rowHolds(rule, s, e)) return rule.code;
  return null;
}
export const rowName = (rule: Rule<never>): string => ('guard' in rule ? rule.guard : rule.where);

/** The events a step emits, in full (pure: `transition` returns actions without running them). */
export const emittedEvents = (s: Snap, e: CampaignEvent): EventObject[] =>
  pureStep(s, e)[1]
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a as unknown as { params: { event: EventObject } }).params.event);
