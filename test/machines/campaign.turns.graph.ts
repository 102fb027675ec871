/**
 * The decision boundaries' first invariant, on every edge of the traversal and along the
 * shortest path to every state: at most one Argus turn per decision-worthy event handed to the
 * chart; a re-entry (RESUME) or a restore never sends one again.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { settleInterrupted } from '../../machines/campaign.restore.js';
import { isQuiescent } from '../../machines/campaign.version.js';
import { INPUT, isIn, machine, pureStep, shortestPaths, traversal, type Snap } from './campaign-traversal.js';
import { ATT, delivered, ofType, turnStarted } from './decision-steps.js';
import { NOW, restore, tick } from './graph-events.js';

describe('decision boundaries: one Argus turn per event, by enumeration', { timeout: 240_000 }, () => {
  it('(a) starts an Argus turn only for an event whose turn was not sent, remembers it, and never changes that memory otherwise', () => {
    let starts = 0;
    const changedElsewhere: unknown[] = [];
    for (const e of traversal().steps) {
      const before = e.state.context.argus;
      const after = e.nextState.context.argus;
      if (turnStarted(e.state, e.nextState)) {
        starts++;
        expect(after.wake).not.toBeNull();
        expect([after.wake!.dedupeKey, before.sentFor === after.wake!.dedupeKey, after.sentFor]).toEqual([after.wake!.dedupeKey, false, after.wake!.dedupeKey]);
      } else if (after.sentFor !== before.sentFor) changedElsewhere.push([e.event.type, before.sentFor, after.sentFor]);
    }
    expect(changedElsewhere, 'steps that change sentFor without starting a turn').toEqual([]);
    expect(starts, 'turns started').toBeGreaterThan(0);
  });

  it('(a) takes up only an event handed to it in that step (an observation, an answer, a Foreman directive), or the one it queued', () => {
    const sources = new Set<string>();
    for (const e of traversal().steps) {
      const before = e.state.context.argus;
      const after = e.nextState.context.argus;
      const keys = delivered(e.state, e.event);
      const wake = after.wake?.dedupeKey;
      if (wake && wake !== before.wake?.dedupeKey) {
        const from = keys.has(wake) ? e.event.type : before.queued?.dedupeKey === wake ? 'queued' : 'nowhere';
        sources.add(from);
        expect([wake, from]).not.toEqual([wake, 'nowhere']);
      }
      const queued = after.queued?.dedupeKey;
      if (queued && queued !== before.queued?.dedupeKey) expect([queued, keys.has(queued)]).toEqual([queued, true]);
    }
    expect([...sources].sort()).toEqual(['OPERATOR_ANSWER', 'READ_DONE', 'queued', 'xstate.done.actor.foremanAssess']);
  });

  it('(a) a re-entry by RESUME never sends a turn again: a turn that was sent settles as an interrupted NEEDS_YOU, a dispatched mission is polled again', () => {
    const seen = new Set<string>();
    for (const e of traversal().steps) {
      if (e.event.type !== 'RESUME' || !e.state.matches('paused')) continue;
      const history = Object.values(e.state.historyValue).flat().map((n) => n.id);
      if (!history.includes('campaign.active.attention.awaiting-review')) continue;
      const a = e.state.context.argus;
      expect(turnStarted(e.state, e.nextState)).toBe(false);
      if (a.mission) {
        seen.add('mission');
        expect(isIn(e.nextState, `${ATT}.awaiting-review.mission`)).toBe(true);
        continue;
      }
      seen.add('interrupted');
      expect(a.sentFor).toBe(a.wake?.dedupeKey);
      expect(isIn(e.nextState, `${ATT}.needs-you`)).toBe(true);
      expect(e.nextState.context.pendingQuestion).toMatchObject({ key: `interrupted-${a.receipts + 1}`, source: 'argus', itemId: null });
      expect(ofType<{ decision: { outcome: string; code: string; dedupeKey: string } }>(e.emitted, 'DECISION_SETTLED').map((d) => d.decision)).toEqual([
        expect.objectContaining({ outcome: 'interrupted', code: 'turn_interrupted', dedupeKey: a.wake!.dedupeKey }),
      ]);
      expect(ofType<{ drafts: { kind: string; dedupeKey: string }[] }>(e.emitted, 'PUBLIC_DRAFTS').flatMap((d) => d.drafts.map((x) => [x.kind, x.dedupeKey]))).toEqual([
        ['NEEDS_YOU', `needs-you:interrupted-${a.receipts + 1}`],
      ]);
    }
    expect([...seen].sort()).toEqual(['interrupted', 'mission']);
  });

  it('(a) finds a turn "already sent" only on a re-entry (RESUME), or for an event the remote handed back after its turn was sent; never for an operator\'s answer', () => {
    const how = new Set<string>();
    for (const e of traversal().steps) {
      const settled = ofType<{ decision: { code: string | null; dedupeKey: string } }>(e.emitted, 'DECISION_SETTLED').filter((d) => d.decision.code === 'turn_interrupted');
      if (settled.length === 0) continue;
      // The remote's event keys are published once (the reducer drops a published one), but the
      // model's remote may repeat one: then the chart must not send its turn again. An answer's
      // key is the chart's own making: two answers must never share one.
      const key = settled[0]!.decision.dedupeKey;
      const resumed = e.event.type === 'RESUME';
      how.add(resumed ? 'resume' : 'remote-repeated');
      expect([e.event.type, key, resumed || (!key.startsWith('answer:') && key === e.state.context.argus.sentFor)]).toEqual([e.event.type, key, true]);
    }
    expect([...how].sort()).toEqual(['remote-repeated', 'resume']);
  });

  it('(a) on the shortest path to every state, no event gets more turns than it was handed to the chart', () => {
    const all = shortestPaths();
    const tally = new Map<unknown, { snapshot: Snap; turns: Map<string, number>; deliveries: Map<string, number> }>([
      [undefined, { snapshot: initialTransition(machine, INPUT)[0], turns: new Map(), deliveries: new Map() }],
    ]);
    let turns = 0;
    for (const path of all) {
      if (path.steps.length === 0) continue;
      const parent = tally.get(path.steps[path.steps.length - 2])!;
      const step = path.steps[path.steps.length - 1]!;
      const [next] = pureStep(parent.snapshot, step.event);
      const deliveries = new Map(parent.deliveries);
      for (const key of delivered(parent.snapshot, step.event)) deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      const counted = new Map(parent.turns);
      if (turnStarted(parent.snapshot, next)) {
        turns++;
        const key = next.context.argus.wake!.dedupeKey;
        counted.set(key, (counted.get(key) ?? 0) + 1);
        expect([key, counted.get(key)! <= (deliveries.get(key) ?? 0)]).toEqual([key, true]);
      }
      tally.set(step, { snapshot: next, turns: counted, deliveries });
    }
    expect(turns, 'turns on shortest paths').toBeGreaterThan(0);
  });


  it('restored from any quiescent reached state (the host path), keeps no decision effect in flight and never sends a turn again; a queued event is taken up on the next beat', () => {
    const DECISION_CHILDREN = ['argusTurn', 'argusCheck', 'foremanAssess', 'bindMission', 'verifyBinding'];
    const bad: unknown[] = [];
    let restored = 0;
    let queuedTaken = 0;
    for (const s of traversal().reachedStates.values()) {
      if (s.status !== 'active' || !isQuiescent(s)) continue;
      const persisted = JSON.parse(JSON.stringify(machine.getPersistedSnapshot(s)));
      const back = restore(machine, settleInterrupted(persisted, NOW).snapshot);
      restored++;
      const kept = DECISION_CHILDREN.filter((id) => id in back.children);
      const [next] = pureStep(back, tick());
      // A turn on the next beat is only ever the first one of an event queued meanwhile.
      const turn = turnStarted(back, next) ? next.context.argus.wake!.dedupeKey : null;
      if (turn !== null) queuedTaken++;
      const replayed = turn !== null && (turn === s.context.argus.sentFor || turn !== s.context.argus.queued?.dedupeKey);
      if (kept.length || replayed || (s.context.argus.projectId !== null && back.context.argus.bindingVerified)) bad.push([s.value, kept, back.value, turn]);
    }
    expect(bad).toEqual([]);
    expect([restored > 1000, queuedTaken > 0]).toEqual([true, true]);
  });
});
