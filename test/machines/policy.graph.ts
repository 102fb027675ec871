/**
 * The policy at chart level: in every reachable state of the traversal and for every operator
 * event (each mutation kind, representative facts, and variants that break each guard row once;
 * answers to the remote's question and to Argus's, the mission binding), the chart takes the
 * event exactly when `explainRefusal` finds nothing to refuse, and a refusal carries the code of
 * the first failing row of that event's table, recomputed here from the rows and a state probe
 * of this file's own (not by calling explainRefusal again). A refusal no row explains
 * (`action_not_allowed`) would be a chart/table disagreement.
 *
 * States that differ only in what neither an operator event's transitions nor any rule row read
 * (the decision memory beyond the binding, the attention region's inner state) are one class:
 * one state per class is checked. The authority traversal's states are each their own class.
 */
import { describe, expect, it } from 'vitest';
import { explainRefusal, OPERATOR_RULES } from '../../machines/campaign.rules.js';
import type { CampaignContext, MutateEvent, Mutation, OperatorEvent } from '../../machines/campaign.types.js';
import { discovered, serializeState, traversal, type Snap } from './campaign-traversal.js';
import { firstFailingRow, rowHolds, rowName } from './rule-rows.js';
import { ANSWERS, CLAIMS, EPOCH, FULL, K_DONE, mutateEvent, NOW, OBSERVES } from './graph-events.js';
import { currentAnswers } from './graph-decisions.js';

const KINDS: Mutation[] = [
  { kind: 'submit', text: 'train v2' },
  { kind: 'intervene', instruction: 'lower lr' },
  { kind: 'cancel', reason: 'diverged' },
  { kind: 'release' },
];
const REVIEW = { kind: 'review', decisionId: 'd1', verdict: 'approved', eventKey: K_DONE } as const;

/** Per mutation kind: the representative event, then one variant per row on what the operator said. */
const mutationVariants = (mutation: Mutation): MutateEvent[] => {
  const base = (over: Partial<MutateEvent> = {}) => mutateEvent({ mutation, ...over });
  return [
    base(),
    base({ approval: REVIEW }),
    base({ now: '2030-01-01T00:10:00.000Z' }),
    base({ epoch: EPOCH + 1 }),
    base({ approval: { kind: 'operator', principal: '' } }),
    base({ approval: { ...REVIEW, verdict: 'rejected' } }),
    base({ approval: { ...REVIEW, eventKey: 'attempt:task-0:att-0:terminal' } }),
  ];
};

/**
 * The rows on facts the actor holds (the environment, the binding, the bound task's last read)
 * are judged in every state class as it is, and again with one of those facts changed: a remote
 * not discovered, one without a capability or without epoch fencing, Argus unavailable, no task
 * or no context bound, the bound task working or never read. A changed context is a snapshot of
 * the same state the chart could hold (it restores whatever a document holds).
 */
const FACT_VARIANTS: ((c: CampaignContext) => Partial<CampaignContext>)[] = [
  (c) => ({ environment: { ...c.environment, capabilities: null } }),
  (c) => ({ environment: { ...c.environment, capabilities: { ...FULL, epochEnforced: false } } }),
  // Each mutation kind is missing from one of these two remotes (an answer is sent as a submit).
  (c) => ({ environment: { ...c.environment, capabilities: { ...FULL, submit: false, release: false } } }),
  (c) => ({ environment: { ...c.environment, capabilities: { ...FULL, intervene: false, cancel: false } } }),
  (c) => ({ environment: { ...c.environment, argusAvailable: !c.environment.argusAvailable } }),
  (c) => ({ binding: { ...c.binding, taskId: null } }),
  (c) => ({ binding: { taskId: null, contextId: null } }),
  (c) => ({ remote: c.remote && { ...c.remote, taskId: c.binding.taskId ?? c.remote.taskId, state: 'working' } }),
  (c) => ({ remote: null }),
];
const withFacts = (s: Snap, change: (c: CampaignContext) => Partial<CampaignContext>): Snap => ({ ...s, context: { ...s.context, ...change(s.context) } }) as Snap;

const EVENTS: OperatorEvent[] = [
  ...OBSERVES,
  ...CLAIMS.map((c) => c.event),
  ...KINDS.flatMap(mutationVariants),
  { type: 'RESOLVE_INTENT' },
  // The remote's question (K_BLOCK), one variant per row it breaks, and a stale key.
  ...ANSWERS.map((a) => a.event),
  { type: 'BIND_MISSION' },
  { type: 'PAUSE' },
  { type: 'RESUME', now: NOW },
  { type: 'CLOSE' },
];

/** The events offered in one state: the fixed ones, and answers naming the question it shows (Argus's keys are numbered). */
const eventsIn = (s: Snap): OperatorEvent[] => {
  const q = s.context.pendingQuestion;
  return q && q.source === 'argus' ? [...EVENTS, ...currentAnswers(q.key)] : EVENTS;
};

/** One state per class (see the module comment), each also with every fact variant. */
function classes(): Snap[] {
  const states = stateClasses();
  // The fact rows read the environment, the binding and the last read; the rows before and after
  // them read where the campaign is, its lease, intent, question and attempts. So the variants
  // are taken of one state per combination of those (and of a discovered remote: the others
  // are variants already), not of every class.
  const coarse = new Map<string, Snap>();
  for (const s of states) {
    if (s.status === 'done' || !discovered(s)) continue;
    const c = s.context;
    const key = JSON.stringify([s.value, c.lease !== null, c.pendingIntent !== null, c.pendingQuestion?.source ?? null, c.attemptsSubmitted >= c.maxAttempts, c.binding, c.remote?.state ?? null]);
    if (!coarse.has(key)) coarse.set(key, s);
  }
  return [...states, ...[...coarse.values()].flatMap((s) => FACT_VARIANTS.map((change) => withFacts(s, change)))];
}

function stateClasses(): Snap[] {
  const byClass = new Map<string, Snap>();
  for (const s of traversal().reachedStates.values()) {
    const key = JSON.parse(serializeState(s)) as Record<string, unknown>;
    if (s.status === 'done') {
      byClass.set(JSON.stringify(key), s);
      continue;
    }
    if (s.status === 'active' && !s.matches('paused')) {
      const active = (s.value as { active: Record<string, unknown> }).active;
      const attention = typeof active.attention === 'string' ? active.attention : Object.keys(active.attention as object)[0];
      key.value = { ...active, attention };
    }
    const a = s.context.argus;
    key.decisions = [a.projectId !== null, a.bindingLost];
    const k = JSON.stringify(key);
    if (!byClass.has(k)) byClass.set(k, s);
  }
  return [...byClass.values()];
}

describe('operator policy: the chart and its rule tables agree in every reachable state', { timeout: 300_000 }, () => {
  it('can(event) exactly when no row fails, and a refusal names the first failing row (never action_not_allowed)', () => {
    const states = classes();
    const disagreements: string[] = [];
    const refusedBy = new Map<string, number>();
    const takenBy = new Set<string>();
    let checks = 0;
    let taken = 0;
    for (const s of states) {
      for (const e of eventsIn(s)) {
        checks++;
        const can = s.status === 'active' && s.can(e);
        const code = explainRefusal(s, e);
        const expected = firstFailingRow(s, e);
        const source = e.type === 'OPERATOR_ANSWER' ? `:${s.context.pendingQuestion?.source ?? 'none'}` : '';
        if (can) {
          taken++;
          takenBy.add(`${e.type}${source}`);
        } else refusedBy.set(`${e.type}${source}:${code}`, (refusedBy.get(`${e.type}${source}:${code}`) ?? 0) + 1);
        // One line per disagreement (state, event, what each side says), collected, then asserted.
        if (can !== (code === null) || code !== expected || code === 'action_not_allowed') {
          disagreements.push(JSON.stringify({ value: s.value, event: e, can, code, expected }));
        }
      }
    }
    console.log(`policy: ${states.length} state classes with fact variants (of ${traversal().reachedStates.size} states) × ${EVENTS.length}+ operator events = ${checks} checks (${taken} taken, ${checks - taken} refused)`);
    expect(disagreements.slice(0, 5), `${disagreements.length} disagreements`).toEqual([]);
    // Every event type (an answer to either kind of question) was both taken somewhere and refused somewhere.
    const kinds = [...Object.keys(OPERATOR_RULES).filter((t) => t !== 'OPERATOR_ANSWER'), 'OPERATOR_ANSWER:remote', 'OPERATOR_ANSWER:argus'];
    for (const kind of kinds) expect([kind, [...refusedBy.keys()].some((k) => k.startsWith(`${kind}:`)), takenBy.has(kind)]).toEqual([kind, true, true]);
    expect(taken).toBeGreaterThan(0);
  });

  it('reaches every row of every table as the first failing row somewhere (each code is live, none is shadowed)', () => {
    const states = classes();
    const firstFailing = new Set<string>();
    for (const s of states) {
      for (const e of eventsIn(s)) {
        const rows = OPERATOR_RULES[e.type] as readonly Parameters<typeof rowHolds>[0][];
        const row = rows.find((r) => !rowHolds(r, s, e as never));
        if (row) firstFailing.add(`${e.type}:${rowName(row)}`);
      }
    }
    const declared = Object.entries(OPERATOR_RULES).flatMap(([type, rows]) => (rows as readonly Parameters<typeof rowName>[0][]).map((r) => `${type}:${rowName(r)}`));
    expect(declared.filter((d) => !firstFailing.has(d))).toEqual([]);
  });
});
