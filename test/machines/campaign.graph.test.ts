/**
 * Model-based proof of the campaign's authority rules: enumerate every reachable state under
 * two finite event alphabets (the authority region's, and the decision boundaries' with a small
 * authority alphabet; guard payloads for both branches and the done/error events of all twelve
 * invoked effects, the heartbeat's TICK included), from the initial state and from restored
 * roots, then check invariants on every edge and path, compare the declared transitions (the
 * eventless ones included) with the exercised ones (counting those of the events the chart
 * raises to itself within a step: REMOTE_OBSERVED, REMOTE_ANSWERED, MUTATE, LEASE_READBACK,
 * LEASE_LAPSED), and check that every named guard was evaluated both true and false. Writes
 * coverage/statechart.json.
 *
 * The other suites that read the traversal are imported here, so it is built once: each vitest
 * file builds its own (~6 s), and on this 2-core box vitest runs one file at a time.
 * campaign.authority.graph.ts: the authority region's invariants; campaign.answers.graph.ts:
 * what each effect answer and read does; campaign.turns.graph.ts and campaign.decisions.graph.ts:
 * the decision boundaries' invariants; policy.graph.ts: the rule tables against the chart.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ArgusCheckOutput } from '../../machines/campaign.types.js';
import { approvedMutateEvent, verdict } from '../../machines/campaign.decide.js';
import { A, isIn, machine, traversal } from './campaign-traversal.js';
import { AUTHORITY_EFFECT_ANSWERS, READER_ID } from './graph-events.js';
import { DECISION_EFFECT_ANSWERS } from './graph-decisions.js';
import { guardCoverage, type UnreachableOutcome } from './guard-outcomes.js';
import { allStateNodes, type DeclaredTransition } from './statechart-coverage.js';
import { buildPlan, PLAN_FILE, replayDisagreement } from '../paths/path-plan.js';
import './campaign.authority.graph.js';
import './campaign.answers.graph.js';
import './campaign.turns.graph.js';
import './campaign.decisions.graph.js';
import './policy.graph.js';

const EFFECT_ANSWERS = { ...AUTHORITY_EFFECT_ANSWERS, ...DECISION_EFFECT_ANSWERS };
const PROVEN_APPROVES = 'a mission-poll answer that gets past the pending, question, rejected, consumed and observe branches always approves a mutation';

/** Guard outcomes no traversal root reaches, each with its reason and the invariant below that proves it. */
const UNREACHABLE_GUARD_OUTCOMES: UnreachableOutcome[] = [
  {
    guard: 'verdictApprovesMutation',
    outcome: 'false',
    reason:
      'it is asked only after the pending/question/rejected/consumed/observe branches of the same answer failed; what is left is an approved submit, intervene or cancel, and judgeProposal approves a submit only with its text and an intervene only with its instruction, so the MUTATE it becomes always exists',
    provenBy: PROVEN_APPROVES,
  },
];
const guardOutcomes = () => guardCoverage(machine, traversal().guardOutcomes, UNREACHABLE_GUARD_OUTCOMES);

/** Invariants that explain why a guard side needs a restored root or cannot be reached at all. */
const INVARIANTS: Record<string, () => void> = {
  'from the start, an intent is held only while verifying, journaling, relaying, in ambiguous-intent, paused or closed': () => {
    let held = 0;
    for (const { state } of traversal().fromStart.values()) {
      if (state.context.pendingIntent === null) continue;
      held++;
      const steps = ['verifying', 'journaling', 'relaying'].some((step) => isIn(state, `${A}.controlling.${step}`));
      const holds = steps || isIn(state, `${A}.ambiguous-intent`) || state.matches('paused') || state.status === 'done';
      expect([state.value, holds]).toEqual([state.value, true]);
    }
    expect(held, 'reached states holding an intent').toBeGreaterThan(0);
  },
  [PROVEN_APPROVES]: () => {
    const checks = traversal().steps.filter((e) => (e.event.type as string) === 'xstate.done.actor.argusCheck');
    let past = 0;
    for (const e of checks) {
      const output = (e.event as unknown as { output: ArgusCheckOutput }).output;
      const v = verdict(e.state.context, output);
      const earlier = v.status !== 'approved' || (output.ok && output.consumed) || v.kind === 'observe';
      if (earlier) continue;
      past++;
      expect([v, approvedMutateEvent(e.state.context, output) !== null]).toEqual([v, true]);
    }
    expect(past, 'check answers that reach the mutation branches').toBeGreaterThan(0);
  },
};

// The first test builds the traversal (tens of seconds on a shared 2-core box).
describe('campaign statechart: coverage, by enumeration', { timeout: 240_000 }, () => {
  it('exercises every declared transition (writes coverage/statechart.json)', () => {
    const guards = guardOutcomes();
    const covered = new Set<string>();
    for (const step of traversal().steps) for (const t of step.taken) covered.add(t.id);
    const uncovered = traversal().declared.filter((t) => !covered.has(t.id)).map((t) => t.id);
    const report = {
      machine: machine.id,
      declared: traversal().declared.length,
      covered: traversal().declared.length - uncovered.length,
      uncovered,
      states: traversal().reachedStates.size,
      edges: traversal().edges.length,
      alphabets: traversal().sizes,
      traversalMs: traversal().traversalMs,
      guards: {
        declared: guards.declared,
        covered: guards.covered,
        missing: guards.missing,
        unreachable: guards.unreachable,
        outcomes: [...traversal().guardOutcomes].sort(),
      },
      transitions: traversal().declared.map((t: DeclaredTransition) => ({ ...t, covered: covered.has(t.id) })),
    };
    mkdirSync('coverage', { recursive: true });
    writeFileSync('coverage/statechart.json', `${JSON.stringify(report, null, 2)}\n`);
    console.log(`statechart transitions: ${report.covered}/${report.declared} covered (eventless ones included), ${guards.line}; ${report.states} states, ${report.edges} edges (${JSON.stringify(report.alphabets)})`);
    expect(uncovered).toEqual([]);
  });

  it('evaluates every named guard both true and false in a reached state, or lists the side as unreachable with its proof', () => {
    const guards = guardOutcomes();
    expect(guards.declared, 'named guards × 2').toBeGreaterThan(0);
    expect(guards.missing, 'guard outcomes never evaluated').toEqual([]);
    expect(guards.reachedButListed, 'listed unreachable but reached').toEqual([]);
    expect(guards.unknownListed, 'listed for a guard the machine does not declare').toEqual([]);
    for (const u of guards.unreachable) expect(Object.keys(INVARIANTS), `proof of ${u.id}`).toContain(u.provenBy);
    expect(guards.covered + guards.unreachable.length).toBe(guards.declared);
  });

  it.each(Object.entries(INVARIANTS))('invariant: %s', (_name, proof) => proof());

  it('offers an answer for each of the thirteen invoked effects, and nothing else is invoked', () => {
    const invoked = allStateNodes(machine.root).flatMap((n) => n.invoke.map((i) => [i.id, i.src]));
    for (const [id, src] of invoked) expect(id).toBe(src);
    expect([...new Set(invoked.map(([id]) => id))].sort()).toEqual([...Object.keys(EFFECT_ANSWERS), READER_ID].sort());
    // Sixteen invocations: a takeover's rotation (readLease, rotateLease) runs in controlling and in ambiguous-intent.
    expect(invoked).toHaveLength(16);
    // Every effect's answers were delivered in a reached state, the reader's as READ_DONE / READ_CRASHED.
    const answered = new Set(traversal().steps.map((e) => /^xstate\.done\.actor\.(.+)$/.exec(e.event.type)?.[1]).filter(Boolean));
    expect([...answered].sort()).toEqual(Object.keys(EFFECT_ANSWERS).sort());
    const read = new Set(traversal().steps.map((e) => e.event.type).filter((t) => t === 'READ_DONE' || t === 'READ_CRASHED'));
    expect([...read].sort()).toEqual(['READ_CRASHED', 'READ_DONE']);
  });

  it('the committed driven-path plan (test/paths/plan.json) is the one this chart gives', () => {
    // Regenerate after a chart change: ARGUS_WRITE_PLAN=1 npx vitest run test/machines/campaign.graph.test.ts
    const plan = buildPlan();
    if (process.env.ARGUS_WRITE_PLAN === '1') writeFileSync(PLAN_FILE, `${JSON.stringify(plan, null, 1)}\n`);
    expect(JSON.parse(readFileSync(PLAN_FILE, 'utf8'))).toEqual(JSON.parse(JSON.stringify(plan)));
    // One path per declared transition, a few hundred steps at most.
    expect(plan.paths.filter((p) => !/^(guard|tick from) /.test(p.target)).map((p) => p.target)).toEqual(plan.declared);
    // Together the paths evaluate every guard outcome the traversal reached through answers the
    // running system can give (path-plan.ts `reducible`); the rest are named in the plan.
    const onPaths = new Set(plan.paths.flatMap((p) => p.steps.flatMap((s) => s.guards)));
    expect(plan.pureOutcomes.filter((o) => !onPaths.has(o))).toEqual(plan.unplannedOutcomes);
    // (581 steps before the rotation in doubt and the rotation's two steps added 11 transitions: 642.)
    expect(plan.paths.reduce((n, p) => n + p.steps.length, 0)).toBeLessThan(700);
    // Each path, replayed concretely from its root, takes what was planned: the state keys the
    // traversal merges snapshots by are ones no guard tells apart.
    expect(plan.paths.map((p) => [p.target, replayDisagreement(p)]).filter(([, d]) => d !== null)).toEqual([]);
  });
});
