/**
 * The campaign chart's model-based traversal, built once per test file: the chart with every
 * named guard instrumented, two finite alphabets (graph-events.ts: the authority region with no
 * decision runtime; graph-decisions.ts: the decision boundaries with a small authority
 * alphabet), each walked by @xstate/graph from the initial state and from its restored roots
 * (docs/decisions.md, "@xstate/graph builds the traversal"), and the helpers
 * the invariants read states with. Walking the product of both alphabets at once would cost
 * the size of one times the other; each alternative alphabet exercises what the other
 * region does to it, and the coverage and invariants read the union.
 */
import { createEmptyActor, initialTransition, type ActorLogic, type AnyActorScope, type EventObject, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignContext, CampaignEvent } from '../../machines/campaign.types.js';
import { attemptRunning, backingOff } from '../../machines/campaign.guards.js';
import { eventsFor, FACTS, K_DONE, LATER, NOW, restore, restoredRoots, US } from './graph-events.js';
import { decisionInput, decisionRoots, eventsForDecisions } from './graph-decisions.js';
import { instrumentGuards } from './guard-outcomes.js';
import { declaredTransitions, namedTransitions, type DeclaredTransition } from './statechart-coverage.js';

export type Snap = SnapshotFrom<typeof campaignMachine>;
export const A = 'active.authority';
/**
 * The remote is discovered and fences by epoch (the good path's capabilities): the states the
 * ENV_VARIANTS did not change, where a code from a capability row cannot come first.
 */
export const discovered = (s: { context: CampaignContext }): boolean => s.context.environment.capabilities?.epochEnforced === true;
export const ATT = 'active.attention';
// The same chart with every named guard recording its outcome during the traversal.
export const { machine, recorder } = instrumentGuards(campaignMachine);
// maxAttempts 1 so the attempt bound is reached within the traversal; created on TASK, with the
// good path's environment (the alphabets' ENVIRONMENT events and roots vary it).
export const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 1, ...FACTS };
/**
 * One actor scope for every pure step, collecting the actions instead of running them: what
 * `transition()` from xstate does, minus the throwaway actor it creates per call (whose initial
 * context, built without input, throws: 25% of the traversal's time went there). Its system
 * reports each microstep's transitions (`@xstate.microstep`): that is how a step's taken
 * arrows, eventless and raised ones included, are named without replaying it.
 */
let collected: { type: string }[] = [];
let microTransitions: unknown[] = [];
const emptyActor = createEmptyActor();
emptyActor.system.inspect((ev) => {
  if (ev.type === '@xstate.microstep') microTransitions.push(...((ev as unknown as { _transitions: unknown[] })._transitions ?? []));
});
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
  microTransitions = [];
  const next = machine.transition(s, e, scope);
  return [next, collected];
}
/** The events a step raised to the chart itself (in queue order), from its actions. */
export const raisedBy = (actions: readonly { type: string }[]): EventObject[] =>
  (actions as { type: string; params?: { event?: EventObject; delay?: unknown } }[])
    .filter((a) => a.type === 'xstate.raise' && a.params?.event && a.params.delay === undefined)
    .map((a) => a.params!.event!);
export const raised = (s: Snap, e: CampaignEvent): EventObject[] => raisedBy(pureStep(s, e)[1]);
let declaredByDefinition: ReturnType<typeof declaredTransitions>['byDefinition'] | null = null;
/** The declared transitions the last `pureStep` took (ids), eventless and raised ones included. */
export const lastTaken = (): string[] => namedTransitions((declaredByDefinition ??= declaredTransitions(machine).byDefinition), microTransitions).map((t) => t.id);
// The graph helpers type emitted events as plain EventObject; the machine's are narrower.
export const graphLogic = machine as unknown as ActorLogic<Snap, CampaignEvent, typeof INPUT>;

/**
 * The chart numbers the keys of the questions it holds (`<receipt kind>-<n>`, `argus-<item>-<n>`,
 * `argus-q<n>`), n a counter: no later key can equal an earlier one, and every such question is
 * answered alike (to Argus, with the operator's words), so one name stands for each kind.
 */
const NUMBERED = /^(answer:)?(?:(interrupted|timeout|failed|unsettled|apply|refused|escalated)-\d+|argus-q\d+|argus-(.+)-\d+)$/;
const norm = (key: string | null | undefined): string | null =>
  key == null ? null : key.replace(NUMBERED, (_m, answer: string | undefined, receipt: string | undefined, item: string | undefined) => `${answer ?? ''}${receipt ? 'receipt' : `argus:${item ?? '-'}`}`);

/**
 * The decision memory, as the guards read it: which slots are set, their kinds, and which of
 * them name the same event (turnAlreadySent, assessmentAlreadyStarted and the verdict's
 * "latest event" compare keys, never read them). Receipt counters and records are left out.
 */
function decisionSignature(c: CampaignContext): unknown {
  const a = c.argus;
  const slots = [a.wake?.dedupeKey, a.queued?.dedupeKey, a.sentFor, a.assessedFor, a.mission?.dedupeKey, c.wakes.lastArgusEventKey, c.pendingQuestion && `answer:${c.pendingQuestion.key}`];
  const same: number[] = [];
  for (let i = 0; i < slots.length; i++) for (let j = i + 1; j < slots.length; j++) if (slots[i] != null && slots[i] === slots[j]) same.push(i * 10 + j);
  return [
    a.projectId !== null,
    a.bindingVerified,
    a.bindingLost,
    a.wake && [norm(a.wake.dedupeKey), a.wake.target, a.wake.argusReady],
    a.queued && [norm(a.queued.dedupeKey), a.queued.target, a.queued.argusReady],
    norm(a.sentFor),
    norm(a.assessedFor),
    a.mission && [norm(a.mission.dedupeKey), a.mission.itemId, a.mission.deadlineAt],
    a.held !== null,
    same,
  ];
}

/** Only what changes behaviour: guards read nothing else (counters and timestamps excluded). */
export function serializeState(s: Snap): string {
  // A closed campaign takes no event, whatever it remembers; the only row any table reads before
  // `notClosed` is the answer's first (which holds unless the question is the remote's).
  if (s.status === 'done') return JSON.stringify({ value: 'closed', question: s.context.pendingQuestion?.source ?? null });
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
    // The readback is read only by the send-margin rule, in journaling; the decision id by the journal.
    // An approved proposal's intent: only a submit counts an attempt (its other kinds relay alike).
    intent: intent && [intent.requestId, intent.decisionId && intent.kind !== 'submit' ? 'review' : intent.kind, isIn(s, `${A}.controlling.journaling`) ? intent.readback : null, intent.decisionId ?? null],
    question: c.pendingQuestion && [norm(c.pendingQuestion.key), c.pendingQuestion.source],
    // reviewFreshForEvent compares an operator-fed verdict's event with this; K_DONE is the only
    // one the authority alphabet offers (it binds no mission). A bound campaign's review is the
    // chart's own, compared with the mission's event (in `decisions`).
    reviewable: c.argus.projectId === null ? c.wakes.lastArgusEventKey === K_DONE : null,
    decisions: decisionSignature(c),
    // statusUnchanged compares fingerprints and needs no failure streak; readDue reads the backoff.
    // The attempt rule reads whether the bound task is still running: the alphabet's reads share
    // fingerprints across task states, so the fingerprint alone merged a running attempt with a
    // finished one (found by replaying the driven-path plan: a planned refusal became a relay).
    remote: c.remote?.fingerprint ?? null,
    running: attemptRunning(c),
    failing: c.readFailures.consecutive > 0,
    // readDue compares the backoff with the tick's clock; the alphabet ticks only at NOW and LATER.
    backingOff: [backingOff(c, Date.parse(NOW)), backingOff(c, Date.parse(LATER))],
    // The binding and the environment are what the capability, binding and attempt rows read.
    binding: [c.binding.taskId, c.binding.contextId],
    environment: [c.environment.capabilities && Object.values(c.environment.capabilities).join(''), c.environment.argusAvailable, c.environment.cadenceMs],
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
const emittedEventsOf = (actions: readonly { type: string }[]): EventObject[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a as unknown as { params: { event: EventObject } }).params.event);

// ---- the traversal (built once, on first use) -------------------------------------------

export type Edge = { state: Snap; event: CampaignEvent; nextState: Snap };
/** An arrow as taken: where it led, and what it took, emitted and raised on the way. */
type Arrow = { event: CampaignEvent; state: Snap; taken: DeclaredTransition[]; emitted: EventObject[]; raises: EventObject[]; guards: string };
type Entry = { state: Snap; transitions: Map<string, Arrow> };
type Adjacency = Map<string, Entry>;
type ByDefinition = ReturnType<typeof declaredTransitions>['byDefinition'];
/** Each expanded snapshot's arrows, by serialized event: the library's adjacency keeps only where they lead. */
type Arrows = WeakMap<Snap, Map<string, Arrow>>;

/**
 * The chart as logic @xstate/graph walks: its `transition` is the instrumented pure step in this
 * file's scope (not the mock scope the library passes, whose action executor drops the actions
 * and whose system nobody inspects), noting each arrow under its source snapshot. Every walk
 * starts from a given root, never from an initial snapshot.
 */
function noting(byDefinition: ByDefinition, arrows: Arrows): ActorLogic<Snap, CampaignEvent> {
  return {
    transition: (state, event) => {
      const [[next, actions], outcomes] = recorder.capture(() => pureStep(state, event));
      let out = arrows.get(state);
      if (!out) arrows.set(state, (out = new Map()));
      const guards = [...outcomes].sort().join(' ');
      out.set(serializeEvent(event), { event, state: next, taken: namedTransitions(byDefinition, microTransitions), emitted: emittedEventsOf(actions), raises: raisedBy(actions), guards });
      return next;
    },
    getInitialSnapshot: () => {
      throw new Error('the traversal walks from given roots');
    },
    getPersistedSnapshot: (s) => machine.getPersistedSnapshot(s),
  };
}

/**
 * The states @xstate/graph reaches from `root` (breadth first, each expanded once with its
 * alphabet), with their arrows, added to `known`: a state `known` already has is not expanded
 * again (`stopWhen`), which is how several roots share one walk. Returns what was new.
 */
function walkFrom(root: Snap, events: (s: Snap) => CampaignEvent[], logic: ActorLogic<Snap, CampaignEvent>, arrows: Arrows, known: Adjacency): Adjacency {
  const adjacency = getAdjacencyMap(logic, { fromState: root, events, serializeState, serializeEvent, stopWhen: (s) => known.has(serializeState(s)) });
  const fresh: Adjacency = new Map();
  // The library's transitions and the noted arrows are keyed alike, in the alphabet's order.
  for (const [key, { state }] of Object.entries(adjacency)) if (!known.has(key)) fresh.set(key, { state, transitions: arrows.get(state) ?? new Map() });
  for (const [key, entry] of fresh) known.set(key, entry);
  return fresh;
}

export interface Step extends Edge {
  key: string;
  taken: DeclaredTransition[];
  /** The events the step emitted (for the host), and those it raised to the chart itself. */
  emitted: EventObject[];
  raises: EventObject[];
  /** Which alphabet offered it. */
  alphabet: 'authority' | 'decisions';
  /** The guard outcomes the step evaluated (`guard:true|false`, sorted, space-separated). */
  guards: string;
}

/** The event types a step emitted (recorded as it was taken). */
export const emittedOn = (step: Step): string[] => step.emitted.map((e) => e.type);

const restoreRoot = (persisted: unknown): Snap => restore(machine, persisted);

function traverse() {
  const started = performance.now();
  const { list: declared, byDefinition } = declaredTransitions(machine);
  const [initial] = initialTransition(machine, INPUT);
  // The decision boundaries start where Argus can run (from the authority start too, so both
  // alphabets' arrows out of the start are in `fromStart`).
  const [argusInitial] = initialTransition(machine, decisionInput(INPUT));
  const alphabets = [
    { name: 'authority' as const, events: (s: Snap) => eventsFor(s), roots: restoredRoots(machine, INPUT) as Snap[] },
    { name: 'decisions' as const, events: (s: Snap) => eventsForDecisions(s), roots: [argusInitial, ...decisionRoots(machine, INPUT, restoreRoot)] as Snap[] },
  ];
  const fromStart: Adjacency = new Map();
  const reachedStates = new Map<string, Snap>();
  const steps: Step[] = [];
  const sizes: Record<string, { states: number; edges: number; ms: number }> = {};
  const reachedBy: Record<Step['alphabet'], Map<string, Snap>> = { authority: new Map(), decisions: new Map() };
  for (const { name, events, roots } of alphabets) {
    const t0 = performance.now();
    const arrows: Arrows = new WeakMap();
    const logic = noting(byDefinition, arrows);
    // One library walk per root, the start first; together they are this alphabet's graph.
    const adj: Adjacency = new Map();
    const start = recorder.during(() => walkFrom(initial, events, logic, arrows, adj));
    for (const root of roots) recorder.during(() => walkFrom(root, events, logic, arrows, adj));
    // From the start: a state both alphabets reach has both alphabets' arrows.
    for (const [key, entry] of start) {
      const known = fromStart.get(key);
      if (!known) fromStart.set(key, { state: entry.state, transitions: new Map(entry.transitions) });
      else for (const [k, t] of entry.transitions) known.transitions.set(k, t);
    }
    let edges = 0;
    // Every state a step leads to was walked, so the walks' entries are all the reached states.
    for (const [key, { state, transitions }] of adj) {
      reachedStates.set(key, state);
      reachedBy[name].set(key, state);
      for (const [key, t] of transitions) steps.push({ state, event: t.event, nextState: t.state, key, taken: t.taken, emitted: t.emitted, raises: t.raises, guards: t.guards, alphabet: name });
      edges += transitions.size;
    }
    sizes[name] = { states: adj.size, edges, ms: Math.round(performance.now() - t0) };
  }
  const byEvent = new Map<string, Step[]>();
  for (const step of steps) {
    const list = byEvent.get(step.key);
    if (list) list.push(step);
    else byEvent.set(step.key, [step]);
  }
  return { initial, fromStart, edges: steps, declared, declaredBy: byDefinition, steps, byEvent, reachedStates, reachedBy, sizes, guardOutcomes: recorder.seen(), traversalMs: Math.round(performance.now() - started) };
}

let built: ReturnType<typeof traverse> | null = null;

/** The traversal, built on first use inside a test (not at import), once per test file. */
export function traversal(): ReturnType<typeof traverse> {
  built ??= traverse();
  return built;
}

/**
 * @xstate/graph's `getShortestPaths` from `root` over arrows already taken (a logic that looks
 * each one up instead of stepping the chart again), each snapshot serialized once. Only a state's
 * first arrow to each other state can be on a shortest path (the library keeps the first of
 * equally short ones): it is offered those alone, in order, and walks far fewer.
 */
export function shortestOver<A extends { event: CampaignEvent }>(root: Snap, arrowsOf: (s: Snap) => ReadonlyMap<string, A>, target: (arrow: A) => Snap, keyOf: (s: Snap) => string) {
  const lookup: ActorLogic<Snap, CampaignEvent> = {
    transition: (s, e) => target(arrowsOf(s).get(serializeEvent(e))!),
    getInitialSnapshot: () => root,
    getPersistedSnapshot: (s) => machine.getPersistedSnapshot(s),
  };
  const firstArrows = (s: Snap): CampaignEvent[] => {
    const targets = new Set([keyOf(s)]);
    const events: CampaignEvent[] = [];
    for (const arrow of arrowsOf(s).values()) {
      const to = keyOf(target(arrow));
      if (targets.has(to)) continue;
      targets.add(to);
      events.push(arrow.event);
    }
    return events;
  };
  return getShortestPaths(lookup, { fromState: root, events: firstArrows, serializeState: keyOf, serializeEvent });
}

/** `serializeState`, each snapshot serialized once (a state's key is read per arrow). */
export function memoKeys(): (s: Snap) => string {
  const keys = new WeakMap<Snap, string>();
  return (s) => {
    let key = keys.get(s);
    if (key === undefined) keys.set(s, (key = serializeState(s)));
    return key;
  };
}

export interface Path {
  state: Snap;
  steps: { event: CampaignEvent; state: Snap }[];
}
let paths: Path[] | null = null;
/**
 * The shortest path (fewest events) to every state reached from the start, by either alphabet,
 * in breadth-first order: @xstate/graph's `getShortestPaths` over the arrows the traversal
 * already took (a logic that looks each step up instead of taking it: walking the chart again
 * would double the cost). Each path is then made its parent's path plus one step, the parent's
 * step objects shared, so a path's prefix can be looked up by its last step.
 */
export function shortestPaths(): Path[] {
  if (paths) return paths;
  const { fromStart, initial } = traversal();
  const keyOf = memoKeys();
  const arrowsOf = (s: Snap): Map<string, Arrow> => fromStart.get(keyOf(s))!.transitions;
  const found = shortestOver(initial, arrowsOf, (a) => a.state, keyOf);
  const byKey = new Map<string, Path>();
  paths = found.map(({ steps }) => {
    // The library's steps are (state, the event that reached it), an `xstate.init` one first;
    // its states are whichever snapshot of a key it met last: the path takes the arrow the
    // traversal took out of its parent's state instead.
    const path: Path = { state: initial, steps: [] };
    if (steps.length > 1) {
      const parent = byKey.get(keyOf(steps[steps.length - 2]!.state))!;
      const { event } = steps[steps.length - 1]!;
      path.state = arrowsOf(parent.state).get(serializeEvent(event))!.state;
      path.steps = [...parent.steps, { event, state: path.state }];
    }
    byKey.set(keyOf(path.state), path);
    return path;
  });
  return paths;
}

/** The events a step emits, in full (pure: `transition` returns actions without running them). */
export const emittedEvents = (s: Snap, e: CampaignEvent): EventObject[] => emittedEventsOf(pureStep(s, e)[1]);
