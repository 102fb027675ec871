/**
 * The authority region's invariants on every edge and path of the traversal (both alphabets):
 * a relay only from controlling.ready through a fresh readback and a journal write in time,
 * every refusal with its code, claims only by the operator, one CONTROL_LOST per loss, doubt
 * kept until a readback settles it; and the pure traversal agrees with a live actor.
 */
import { createActor, fromCallback, fromPromise, getStateNodes, initialTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { ANSWER_RULES, explainRefusal, MUTATION_RULES } from '../../machines/campaign.rules.js';
import type { ClaimLeaseOutput, JournalIntentOutput, MutateEvent, OperatorAnswerEvent, OperatorEvent, ReadLeaseOutput } from '../../machines/campaign.types.js';
import { leaseOutlivesSend, mutationTarget, readbackShowsOurLease } from '../../machines/campaign.guards.js';
import {
  discovered,
  A,
  emitted,
  emittedBy,
  emittedOn,
  inControlling,
  INPUT,
  inRelaying,
  isIn,
  machine,
  pureStep,
  raised,
  serializeEvent,
  serializeState,
  shortestPaths,
  traversal,
  type Path,
  type Snap,
} from './campaign-traversal.js';
import { rowHolds, rowName } from './rule-rows.js';
import { ANSWERS, AUTHORITY_EFFECT_ANSWERS, claimEvent, EPOCH, MUTATIONS, READER_ID, US } from './graph-events.js';
import { DECISION_EFFECT_ANSWERS } from './graph-decisions.js';
import { allStateNodes, atomicDescendants } from './statechart-coverage.js';

const EFFECT_ANSWERS = { ...AUTHORITY_EFFECT_ANSWERS, ...DECISION_EFFECT_ANSWERS };

describe('campaign statechart: authority, by enumeration', { timeout: 240_000 }, () => {
  it('invokes relayMutation only in a state under controlling', () => {
    // Statically: every node that invokes the relay sits under `controlling`.
    const relayNodes = allStateNodes(machine.root).filter((n) => n.invoke.some((i) => i.src === 'relayMutation'));
    expect(relayNodes.map((n) => n.id)).toEqual(['campaign.active.authority.controlling.relaying']);
    // Dynamically: in every reached state, a relay child exists only under controlling.relaying.
    let withRelay = 0;
    for (const s of traversal().reachedStates.values()) {
      if ('relayMutation' in s.children) {
        withRelay++;
        expect(inRelaying(s)).toBe(true);
      }
    }
    expect(withRelay, 'reached states with a relay child').toBeGreaterThan(0);
  });

  it('starts a relay only from controlling.ready, by MUTATE (the operator\'s, or raised by an approved proposal) or an answer to the remote\'s question with every rule holding, then a readback that shows us, then a journal write in time', () => {
    const { steps } = traversal();
    const step = (p: string) => `${A}.controlling.${p}`;
    const entries = (p: string) => steps.filter((e) => isIn(e.nextState, step(p)) && !isIn(e.state, step(p)));
    const verifying = entries('verifying');
    const by = new Set<string>();
    expect(verifying.length).toBeGreaterThan(0);
    for (const e of verifying) {
      expect(isIn(e.state, step('ready'))).toBe(true);
      if (e.event.type === 'OPERATOR_ANSWER') {
        by.add('answer');
        const a = e.event as OperatorAnswerEvent;
        expect(e.state.context.pendingQuestion?.source).toBe('remote');
        for (const rule of ANSWER_RULES) expect([rowName(rule), rowHolds(rule, e.state, a)]).toEqual([rowName(rule), true]);
        const mutation = { kind: 'answer', text: a.answer, questionKey: a.questionKey };
        expect(e.nextState.context.pendingIntent).toEqual({ requestId: a.requestId, kind: 'answer', epoch: e.state.context.lease!.epoch, mutation, binding: mutationTarget(e.state.context), readback: null, decisionId: null });
        continue;
      }
      // The operator's MUTATE, or the one an approved proposal raised within the mission poll's answer.
      const m = (e.event.type === 'MUTATE' ? e.event : raised(e.state, e.event).find((r) => r.type === 'MUTATE')) as MutateEvent | undefined;
      expect([e.event.type, m?.type]).toEqual([e.event.type === 'MUTATE' ? 'MUTATE' : 'xstate.done.actor.argusCheck', 'MUTATE']);
      by.add(m!.approval.kind === 'review' && e.event.type !== 'MUTATE' ? 'raised' : 'mutate');
      for (const rule of MUTATION_RULES) expect([rowName(rule), rowHolds(rule, e.state, m!)]).toEqual([rowName(rule), true]);
      const decisionId = m!.approval.kind === 'review' ? m!.approval.decisionId : null;
      expect(e.nextState.context.pendingIntent).toEqual({ requestId: m!.requestId, kind: m!.mutation.kind, epoch: m!.epoch, mutation: m!.mutation, binding: mutationTarget(e.state.context), readback: null, decisionId });
    }
    expect([...by].sort()).toEqual(['answer', 'mutate', 'raised']);
    const journaling = entries('journaling');
    expect(journaling.length).toBeGreaterThan(0);
    for (const e of journaling) {
      expect([isIn(e.state, step('verifying')), e.event.type]).toEqual([true, 'xstate.done.actor.readLease']);
      const { readback, code } = (e.event as unknown as { output: ReadLeaseOutput }).output;
      expect([code, readbackShowsOurLease(US, e.state.context.lease!.epoch, readback)]).toEqual([null, true]);
      expect(e.nextState.context.pendingIntent?.readback).toEqual(readback);
    }
    const relaying = entries('relaying');
    expect(relaying.length).toBeGreaterThan(0);
    for (const e of relaying) {
      expect([isIn(e.state, step('journaling')), e.event.type]).toEqual([true, 'xstate.done.actor.journalIntent']);
      const { journaledAt, refusedCode } = (e.event as unknown as { output: JournalIntentOutput }).output;
      expect([refusedCode, leaseOutlivesSend(e.state.context.pendingIntent!.readback, journaledAt)]).toEqual([null, true]);
    }
  });

  it('refuses each broken rule in controlling.ready, with the code the services report', () => {
    for (const { breaks, event } of MUTATIONS.filter((m) => m.breaks !== null)) {
      // The variants break one rule against the model's lease (epoch 7); after a takeover's rotation (epoch 8) every one is stale first.
      const tries = (traversal().byEvent.get(serializeEvent(event)) ?? []).filter((e) => isIn(e.state, `${A}.controlling.ready`) && discovered(e.state) && e.state.context.lease?.epoch === EPOCH);
      expect(tries.length, `MUTATE breaking ${breaks} was tried`).toBeGreaterThan(0);
      for (const e of tries) {
        expect(isIn(e.nextState, `${A}.controlling.verifying`)).toBe(false);
        expect(explainRefusal(e.state, event)).toBe(breaks);
      }
    }
  });

  it("refuses each broken answer rule for the remote's question in controlling.ready, with the code the services report", () => {
    for (const { breaks, event } of ANSWERS.filter((a) => a.breaks !== null)) {
      const tries = (traversal().byEvent.get(serializeEvent(event)) ?? []).filter((e) => isIn(e.state, `${A}.controlling.ready`) && e.state.context.pendingQuestion?.source === 'remote' && discovered(e.state));
      expect(tries.length, `answer breaking ${breaks} was tried`).toBeGreaterThan(0);
      for (const e of tries) {
        expect(isIn(e.nextState, `${A}.controlling.verifying`)).toBe(false);
        expect(explainRefusal(e.state, event)).toBe(breaks);
      }
    }
  });

  it('refuses a MUTATE whose only broken rule is in the context: the attempt bound, an intent still open', () => {
    for (const code of ['attempt_limit_reached', 'intent_unresolved'] as const) {
      // Selected by the rule table; judged by the chart (no verifying) and by the refusal code.
      const tries = traversal().steps.filter((e) => {
        if (e.event.type !== 'MUTATE' || !isIn(e.state, `${A}.controlling.ready`)) return false;
        const broken = MUTATION_RULES.filter((rule) => !rowHolds(rule, e.state, e.event as MutateEvent)).map((rule) => rule.code);
        return broken.length === 1 && broken[0] === code;
      });
      expect(tries.map((e) => (e.event as MutateEvent).mutation.kind), `MUTATE refused only by ${code}`).toContain('submit');
      for (const e of tries) {
        expect(isIn(e.nextState, `${A}.controlling.verifying`)).toBe(false);
        expect(explainRefusal(e.state, e.event as OperatorEvent)).toBe(code);
      }
    }
  });

  it('refuses OPERATOR_CLAIM while an intent is open, wherever a claim is otherwise possible', () => {
    const valid = serializeEvent(claimEvent());
    const tries = (traversal().byEvent.get(valid) ?? []).filter((e) => e.state.context.pendingIntent !== null && e.state.matches('active') && discovered(e.state));
    expect(tries.some((e) => isIn(e.state, `${A}.control-lost`)), 'a claim tried in control-lost with an intent open').toBe(true);
    for (const e of tries) {
      expect(isIn(e.nextState, `${A}.claiming`)).toBe(false);
      expect(explainRefusal(e.state, e.event as OperatorEvent)).toMatch(/^(intent_unresolved|already_controlling|effect_in_flight)$/);
    }
  });

  it('never reaches relaying (or its first step) from observing, claiming, control-lost, ambiguous-intent or paused', () => {
    const outside = ['observing', 'claiming', 'control-lost', 'ambiguous-intent'].map((s) => `${A}.${s}`);
    // Checked on every edge; the offending ones (none) collected and asserted once.
    const bad: unknown[] = [];
    for (const e of traversal().steps) {
      if ((outside.some((p) => isIn(e.state, p)) || e.state.matches('paused')) && inControlling(e.nextState) && !isIn(e.nextState, `${A}.controlling.ready`)) bad.push([e.state.value, e.event.type]);
    }
    expect(bad).toEqual([]);
    // And a valid mutation outside controlling is refused as a value, not dropped silently.
    const valid = MUTATIONS[0]!.event;
    for (const s of traversal().reachedStates.values()) {
      if (inControlling(s) || s.status === 'done') continue;
      expect(s.can(valid)).toBe(false);
      // An undiscovered or unfenced remote is refused first, wherever the campaign is (policy.graph).
      if (!discovered(s)) continue;
      expect(explainRefusal(s, valid)).toMatch(/^(lease_required|intent_unresolved|campaign_paused)$/);
    }
  });

  it('claims only on an explicit operator event, and controls only after a readback shows us', () => {
    const [initial] = initialTransition(machine, INPUT);
    expect(isIn(initial, `${A}.observing`)).toBe(true);
    let claimEntries = 0;
    let controlEntries = 0;
    for (const e of traversal().steps) {
      if (isIn(e.nextState, `${A}.claiming`) && !isIn(e.state, `${A}.claiming`)) {
        claimEntries++;
        expect(e.event.type).toBe('OPERATOR_CLAIM');
      }
      if (inControlling(e.nextState) && !inControlling(e.state)) {
        controlEntries++;
        expect(isIn(e.state, `${A}.claiming`)).toBe(true);
        expect(e.event.type).toBe('xstate.done.actor.claimLease');
        const { claimed, readback, contextId } = (e.event as unknown as { output: ClaimLeaseOutput }).output;
        expect([claimed?.holder, readback?.holder, readback?.epoch, contextId !== null]).toEqual([US, US, claimed?.epoch, true]);
        expect(e.nextState.context.lease).toMatchObject({ epoch: claimed!.epoch, contextId });
      }
    }
    expect(claimEntries, 'edges entering claiming').toBeGreaterThan(0);
    expect(controlEntries, 'edges entering controlling').toBeGreaterThan(0);
  });

  it('never resumes into controlling', () => {
    const resumes = traversal().steps.filter((e) => e.event.type === 'RESUME' && e.state.matches('paused'));
    expect(resumes.length).toBeGreaterThan(0);
    for (const e of resumes) expect(inControlling(e.nextState)).toBe(false);
  });

  it('goes to ambiguous-intent on INTENT_IN_DOUBT from every authority state', () => {
    const authorityNode = machine.getStateNodeById('campaign.active.authority');
    const tested = new Set<string>();
    for (const e of traversal().steps.filter((s) => s.event.type === 'INTENT_IN_DOUBT' && s.state.matches('active'))) {
      expect(isIn(e.nextState, `${A}.ambiguous-intent`)).toBe(true);
      expect(e.nextState.context.pendingIntent).not.toBeNull();
      for (const node of getStateNodes(machine.root, e.state.value)) if (node.type === 'atomic' && node.id.startsWith('campaign.active.authority.')) tested.add(node.id);
    }
    expect([...tested].sort()).toEqual(atomicDescendants(authorityNode).sort());
  });

  it('emits CONTROL_LOST exactly once per loss, on every edge and every path', () => {
    const lostPath = `${A}.control-lost`;
    let losses = 0;
    const via = new Set<string>();
    const bad: unknown[] = [];
    for (const e of traversal().steps) {
      const entered = isIn(e.nextState, lostPath) && !isIn(e.state, lostPath);
      const count = emittedOn(e).filter((t) => t === 'CONTROL_LOST').length;
      if (count !== (entered ? 1 : 0)) bad.push([e.state.value, e.event.type, count]);
      if (entered) {
        losses++;
        via.add(e.event.type);
        expect(inControlling(e.state)).toBe(true);
      }
    }
    expect(bad, 'edges whose CONTROL_LOST count is not their entries into control-lost').toEqual([]);
    expect(losses).toBeGreaterThan(0);
    // Lost by a read's readback or lapse, a renewal, the pre-mutation readback and a relay answer.
    for (const cause of ['renewLease', 'readLease', 'relayMutation']) expect([...via]).toContain(`xstate.done.actor.${cause}`);
    expect([...via]).toContain('READ_DONE');
    const all = shortestPaths();
    // Every state reached from the start has its path.
    expect(all.length).toBe(traversal().fromStart.size);
    // Each path is its parent's (one event shorter, met earlier: breadth first) plus one step,
    // replayed here from the parent's replayed snapshot: every path is replayed from the start.
    const replayed = new Map<Path['steps'][number] | undefined, { snapshot: Snap; entries: number; emissions: number }>([
      [undefined, { snapshot: initialTransition(machine, INPUT)[0], entries: 0, emissions: 0 }],
    ]);
    for (const path of all) {
      if (path.steps.length === 0) continue;
      const parent = replayed.get(path.steps[path.steps.length - 2])!;
      const step = path.steps[path.steps.length - 1]!;
      const [next, actions] = pureStep(parent.snapshot, step.event);
      const entered = isIn(next, lostPath) && !isIn(parent.snapshot, lostPath) ? 1 : 0;
      const at = { snapshot: next, entries: parent.entries + entered, emissions: parent.emissions + emittedBy(actions).filter((t) => t === 'CONTROL_LOST').length };
      replayed.set(step, at);
      expect(serializeState(next)).toBe(serializeState(path.state));
      expect(at.emissions).toBe(at.entries);
    }
  });

  it('keeps an ambiguous intent, drops control, and leaves only by readback to observing', () => {
    let intoAmbiguous = 0;
    let outOfAmbiguous = 0;
    for (const e of traversal().steps) {
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

  it('refuses PAUSE and CLOSE while any effect is in flight (aborting a relay would manufacture doubt)', () => {
    const inFlight = traversal().steps.filter((e) => e.state.hasTag('effect-in-flight') && (e.event.type === 'PAUSE' || e.event.type === 'CLOSE'));
    expect(inFlight.some((e) => inRelaying(e.state))).toBe(true);
    const where = new Set<string>();
    for (const e of inFlight) {
      where.add(JSON.stringify((e.state.value as { active: { authority: unknown } }).active.authority));
      expect(e.taken).toEqual([]);
      expect(explainRefusal(e.state, e.event as OperatorEvent)).toBe('effect_in_flight');
    }
    // claiming; controlling's renewing, rotating, reclaiming, verifying, journaling, relaying; ambiguous-intent's rotating, reclaiming, resolving.
    expect(where.size, 'effect states tried').toBe(10);
  });

  it('records a failed read without inventing an attempt, and moves authority only when our lease expired meanwhile', () => {
    const failures = traversal().steps.filter((s) => s.event.type === 'READ_DONE' && !(s.event as unknown as { output: { ok: boolean } }).output.ok);
    expect(failures.length).toBeGreaterThan(0);
    let lapses = 0;
    for (const e of failures) {
      const out = (e.event as unknown as { output: { requestedAt: string; failure: { consecutive: number } } }).output;
      const lease = e.state.context.lease;
      const judged = isIn(e.state, `${A}.controlling.ready`) || isIn(e.state, `${A}.controlling.renewing`);
      const lapsed = lease !== null && judged && Date.parse(lease.expiresAt) <= Date.parse(out.requestedAt);
      if (lapsed) lapses++;
      const authority = (s: Snap) => (s.value as { active: { authority: unknown } }).active.authority;
      if (lapsed) expect(isIn(e.nextState, `${A}.control-lost`)).toBe(true);
      else expect(authority(e.nextState)).toEqual(authority(e.state));
      expect(e.nextState.context.attemptsSubmitted).toBe(e.state.context.attemptsSubmitted);
      expect(e.nextState.context.readFailures.consecutive).toBe(out.failure.consecutive);
      expect(e.nextState.context.remote).toEqual(e.state.context.remote);
    }
    expect(lapses, 'failed reads after our lease expired').toBeGreaterThan(0);
  });

  it('agrees with a live actor on the shortest path to every state', () => {
    const never = fromPromise<never, unknown>(() => new Promise<never>(() => {}));
    const silent = fromCallback(() => {});
    const ids = Object.keys(EFFECT_ANSWERS);
    const live = machine.provide({ actors: { ...Object.fromEntries(ids.map((id) => [id, never])), [READER_ID]: silent } as never });
    // A path that is the start of a longer one is checked on the way along that one.
    const prefixes = new Set(shortestPaths().flatMap((p) => p.steps.slice(0, -1)));
    let checked = 0;
    for (const path of shortestPaths()) {
      if (path.steps.length > 0 && prefixes.has(path.steps[path.steps.length - 1]!)) continue;
      const actor = createActor(live, { input: INPUT }).start();
      for (const step of path.steps) {
        actor.send(step.event);
        expect(serializeState(actor.getSnapshot())).toBe(serializeState(step.state));
        checked++;
      }
      actor.stop();
    }
    expect(checked + 1, 'states checked (the initial one by every actor)').toBeGreaterThanOrEqual(shortestPaths().length);
  });
});
