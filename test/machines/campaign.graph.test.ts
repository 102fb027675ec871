/**
 * Model-based proof of the campaign's authority rules: enumerate every reachable state under a
 * finite event alphabet (with guard payloads for both branches and the done/error events of
 * every invoked effect), then check invariants on every edge and path, and compare the
 * declared transitions with the exercised ones. Writes coverage/statechart.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createActor, fromPromise, initialTransition, transition, type ActorLogic, type EventObject, type SnapshotFrom } from 'xstate';
import { adjacencyMapToArray, getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import { describe, expect, it } from 'vitest';
import { MUTATION_RULES } from '../../machines/campaign.guards.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { explainRefusal } from '../../machines/campaign.refusals.js';
import type { CampaignEvent, MutateEvent } from '../../machines/campaign.types.js';
import { eventsFor, K_DONE, MUTATIONS, US } from './graph-events.js';
import { allStateNodes, atomicDescendants, declaredTransitions, takenTransitions, type DeclaredTransition } from './statechart-coverage.js';

type Snap = SnapshotFrom<typeof campaignMachine>;
const machine = campaignMachine;
// maxAttempts 1 so the attempt bound is reached within the traversal.
const INPUT = { campaignId: 'camp-1', controllerId: US, maxAttempts: 1 };
// The graph helpers type emitted events as plain EventObject; the machine's are narrower.
const graphLogic = campaignMachine as unknown as ActorLogic<Snap, CampaignEvent, typeof INPUT>;

/** Only what changes behaviour: guards read nothing else (counters and timestamps excluded). */
function serializeState(s: Snap): string {
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

const serializeEvent = (e: CampaignEvent): string => JSON.stringify(e, (key, value) => (value instanceof Error ? 'Error' : value));
const options = { input: INPUT, events: (s: Snap) => eventsFor(s), serializeState, serializeEvent };

const A = 'active.authority';
const value = (path: string): unknown => path.split('.').reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);
const isIn = (s: Snap, path: string): boolean => s.matches(value(path) as never);
const inRelaying = (s: Snap) => isIn(s, `${A}.controlling.relaying`);
const inControlling = (s: Snap) => isIn(s, `${A}.controlling`);
/** The event types a step emits (pure: `transition` returns actions without running them). */
const emittedBy = (actions: readonly { type: string }[]): string[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a as unknown as { params: { event: EventObject } }).params.event.type);
const emitted = (s: Snap, e: EventObject): string[] => emittedBy(transition(machine, s, e as CampaignEvent)[1]);

// ---- the traversal (built once at load) --------------------------------------------------

const started = performance.now();
const edges = adjacencyMapToArray(getAdjacencyMap(graphLogic, options)) as { state: Snap; event: CampaignEvent; nextState: Snap }[];
const { list: declared, byDefinition } = declaredTransitions(machine);
const steps = edges.map((edge) => ({ ...edge, taken: takenTransitions(machine, byDefinition, edge.state, edge.event) }));
const reachedStates = new Map(edges.map((e) => [serializeState(e.state), e.state]));
const traversalMs = Math.round(performance.now() - started);

describe('campaign statechart, by enumeration', () => {
  it('exercises every declared transition (writes coverage/statechart.json)', () => {
    const covered = new Set<string>();
    for (const step of steps) for (const t of step.taken) covered.add(t.id);
    const uncovered = declared.filter((t) => !covered.has(t.id)).map((t) => t.id);
    const report = {
      machine: machine.id,
      declared: declared.length,
      covered: declared.length - uncovered.length,
      uncovered,
      states: reachedStates.size,
      edges: edges.length,
      traversalMs,
      transitions: declared.map((t: DeclaredTransition) => ({ ...t, covered: covered.has(t.id) })),
    };
    mkdirSync('coverage', { recursive: true });
    writeFileSync('coverage/statechart.json', `${JSON.stringify(report, null, 2)}\n`);
    console.log(`statechart transitions: ${report.covered}/${report.declared} covered`);
    expect(uncovered).toEqual([]);
  });

  it('invokes relayMutation only in a state under controlling', () => {
    // Statically: every node that invokes the relay sits under `controlling`.
    const relayNodes = allStateNodes(machine.root).filter((n) => n.invoke.some((i) => i.src === 'relayMutation'));
    expect(relayNodes.map((n) => n.id)).toEqual(['campaign.active.authority.controlling.relaying']);
    // Dynamically: in every reached state, a relay child exists only under controlling.relaying.
    let withRelay = 0;
    for (const s of reachedStates.values()) {
      if ('relayMutation' in s.children) {
        withRelay++;
        expect(inRelaying(s)).toBe(true);
      }
    }
    expect(withRelay, 'reached states with a relay child').toBeGreaterThan(0);
  });

  it('starts a relay only from controlling.ready, by MUTATE, with every rule holding', () => {
    const entries = steps.filter((e) => inRelaying(e.nextState) && !inRelaying(e.state));
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(e.event.type).toBe('MUTATE');
      expect(isIn(e.state, `${A}.controlling.ready`)).toBe(true);
      for (const rule of MUTATION_RULES) expect([rule.guard, rule.holds(e.state.context, e.event as MutateEvent)]).toEqual([rule.guard, true]);
    }
  });

  it('refuses each broken rule in controlling.ready, with the code the services report', () => {
    for (const { breaks, event } of MUTATIONS.filter((m) => m.breaks !== null)) {
      const tries = steps.filter((e) => isIn(e.state, `${A}.controlling.ready`) && serializeEvent(e.event) === serializeEvent(event));
      expect(tries.length, `MUTATE breaking ${breaks} was tried`).toBeGreaterThan(0);
      for (const e of tries) {
        expect(inRelaying(e.nextState)).toBe(false);
        expect(explainRefusal(e.state, event)).toBe(breaks);
      }
    }
  });

  it('never reaches relaying from observing, claiming, control-lost, ambiguous-intent or paused', () => {
    const outside = ['observing', 'claiming', 'control-lost', 'ambiguous-intent'].map((s) => `${A}.${s}`);
    for (const e of steps) {
      if (outside.some((p) => isIn(e.state, p)) || e.state.matches('paused')) expect(inRelaying(e.nextState)).toBe(false);
    }
    // And a valid mutation outside controlling is refused as a value, not dropped silently.
    const valid = MUTATIONS[0]!.event;
    for (const s of reachedStates.values()) {
      if (inControlling(s) || s.status === 'done') continue;
      expect(s.can(valid)).toBe(false);
      expect(explainRefusal(s, valid)).toMatch(/^(lease_required|intent_unresolved|campaign_paused)$/);
    }
  });

  it('claims only on an explicit operator event, and controls only after a readback shows us', () => {
    const [initial] = initialTransition(machine, INPUT);
    expect(isIn(initial, `${A}.observing`)).toBe(true);
    let claimEntries = 0;
    let controlEntries = 0;
    for (const e of steps) {
      if (isIn(e.nextState, `${A}.claiming`) && !isIn(e.state, `${A}.claiming`)) {
        claimEntries++;
        expect(e.event.type).toBe('OPERATOR_CLAIM');
      }
      if (inControlling(e.nextState) && !inControlling(e.state)) {
        controlEntries++;
        expect(isIn(e.state, `${A}.claiming`)).toBe(true);
        expect(e.event.type).toBe('xstate.done.actor.claimLease');
        const { claimed, readback } = (e.event as unknown as { output: { claimed: { holder: string; epoch: number }; readback: { holder: string; epoch: number } } }).output;
        expect([claimed.holder, readback.holder, readback.epoch]).toEqual([US, US, claimed.epoch]);
      }
    }
    expect(claimEntries, 'edges entering claiming').toBeGreaterThan(0);
    expect(controlEntries, 'edges entering controlling').toBeGreaterThan(0);
  });

  it('never resumes into controlling', () => {
    const resumes = steps.filter((e) => e.event.type === 'RESUME' && e.state.matches('paused'));
    expect(resumes.length).toBeGreaterThan(0);
    for (const e of resumes) expect(inControlling(e.nextState)).toBe(false);
  });

  it('goes to ambiguous-intent on INTENT_IN_DOUBT from every authority state', () => {
    const authorityNode = machine.getStateNodeById('campaign.active.authority');
    const tested = new Set<string>();
    for (const e of steps.filter((s) => s.event.type === 'INTENT_IN_DOUBT' && s.state.matches('active'))) {
      expect(isIn(e.nextState, `${A}.ambiguous-intent`)).toBe(true);
      expect(e.nextState.context.pendingIntent).not.toBeNull();
      for (const node of e.state._nodes) if (node.type === 'atomic' && node.id.startsWith('campaign.active.authority.')) tested.add(node.id);
    }
    expect([...tested].sort()).toEqual(atomicDescendants(authorityNode).sort());
  });

  it('emits CONTROL_LOST exactly once per loss, on every edge and every path', () => {
    const lostPath = `${A}.control-lost`;
    let losses = 0;
    for (const e of steps) {
      const entered = isIn(e.nextState, lostPath) && !isIn(e.state, lostPath);
      const count = emitted(e.state, e.event).filter((t) => t === 'CONTROL_LOST').length;
      expect(count).toBe(entered ? 1 : 0);
      if (entered) {
        losses++;
        expect(inControlling(e.state)).toBe(true);
      }
    }
    expect(losses).toBeGreaterThan(0);
    for (const path of getShortestPaths(graphLogic, options)) {
      let snapshot = initialTransition(machine, INPUT)[0];
      let entries = 0;
      let emissions = 0;
      for (const step of path.steps) {
        const [next, actions] = transition(machine, snapshot, step.event);
        if (isIn(next, lostPath) && !isIn(snapshot, lostPath)) entries++;
        emissions += emittedBy(actions).filter((t) => t === 'CONTROL_LOST').length;
        snapshot = next;
      }
      expect(emissions).toBe(entries);
    }
  });

  it('keeps an ambiguous intent, drops control, and leaves only by readback to observing', () => {
    let intoAmbiguous = 0;
    let outOfAmbiguous = 0;
    for (const e of steps) {
      const wasAmbiguous = isIn(e.state, `${A}.ambiguous-intent`);
      if (inRelaying(e.state) && isIn(e.nextState, `${A}.ambiguous-intent`)) {
        intoAmbiguous++;
        expect(e.nextState.context.pendingIntent).toEqual(e.state.context.pendingIntent);
        expect(e.nextState.context.lease).toBeNull();
        expect(emitted(e.state, e.event)).toContain('INTENT_AMBIGUOUS');
      }
      if (wasAmbiguous && e.nextState.matches('active') && !isIn(e.nextState, `${A}.ambiguous-intent`)) {
        outOfAmbiguous++;
        expect(e.event.type).toBe('xstate.done.actor.readBackIntent');
        expect(isIn(e.nextState, `${A}.observing`)).toBe(true);
        expect(e.nextState.context.pendingIntent).toBeNull();
      }
    }
    expect(intoAmbiguous, 'relay edges into ambiguous-intent').toBeGreaterThan(0);
    expect(outOfAmbiguous, 'edges leaving ambiguous-intent').toBeGreaterThan(0);
  });

  it('refuses PAUSE and CLOSE while a relay is in flight (aborting it would manufacture doubt)', () => {
    const inFlight = steps.filter((e) => inRelaying(e.state) && (e.event.type === 'PAUSE' || e.event.type === 'CLOSE'));
    expect(inFlight.length).toBeGreaterThan(0);
    for (const e of inFlight) {
      expect(e.taken).toEqual([]);
      expect(explainRefusal(e.state, e.event as CampaignEvent)).toBe('effect_in_flight');
    }
  });

  it('records a failed read without inventing an attempt or moving authority', () => {
    const failures = steps.filter((s) => s.event.type === 'REMOTE_UNAVAILABLE' && s.state.matches('active'));
    expect(failures.length).toBeGreaterThan(0);
    for (const e of failures) {
      expect(e.nextState.value).toEqual(e.state.value);
      expect(e.nextState.context.attemptsSubmitted).toBe(e.state.context.attemptsSubmitted);
      expect(e.nextState.context.remoteReachable).toBe(false);
    }
  });

  it('agrees with a live actor on the shortest path to every state', () => {
    const never = fromPromise<never, unknown>(() => new Promise<never>(() => {}));
    const live = machine.provide({ actors: { claimLease: never, renewLease: never, relayMutation: never, readBackIntent: never } as never });
    for (const path of getShortestPaths(graphLogic, options)) {
      const actor = createActor(live, { input: INPUT }).start();
      for (const step of path.steps) actor.send(step.event);
      expect(serializeState(actor.getSnapshot())).toBe(serializeState(path.state));
      actor.stop();
    }
  });
});
