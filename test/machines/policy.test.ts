/**
 * The policy at chart level: in every reachable state of the traversal and for every operator
 * event (each mutation kind, representative facts, and variants that break each guard row once),
 * the chart takes the event exactly when `explainRefusal` finds nothing to refuse, and a refusal
 * carries the code of the first failing row of that event's table, recomputed here from the rows
 * and a state probe of this file's own (not by calling explainRefusal again). A refusal no row
 * explains (`action_not_allowed`) would be a chart/table disagreement.
 */
import { describe, expect, it } from 'vitest';
import { explainRefusal, OPERATOR_RULES } from '../../machines/campaign.rules.js';
import type { MutateEvent, Mutation, OperatorEvent } from '../../machines/campaign.types.js';
import { firstFailingRow, rowHolds, rowName, traversal } from './campaign-traversal.js';
import { ARGUS_Q, CLAIMS, EPOCH, FULL, K_BLOCK, K_DONE, mutateEvent, NOW, OBSERVES } from './graph-events.js';

const KINDS: Mutation[] = [
  { kind: 'submit', text: 'train v2' },
  { kind: 'intervene', instruction: 'lower lr' },
  { kind: 'cancel', reason: 'diverged' },
  { kind: 'release' },
];
const REVIEW = { kind: 'review', decisionId: 'd1', verdict: 'approved', eventKey: K_DONE } as const;

/** Per mutation kind: the representative event, then one variant per guard row it breaks. */
const mutationVariants = (mutation: Mutation): MutateEvent[] => {
  const base = (over: Partial<MutateEvent> = {}) => mutateEvent({ mutation, ...over });
  return [
    base(),
    base({ approval: REVIEW }),
    base({ mutationInFlight: true }),
    base({ capabilities: null }),
    base({ capabilities: { ...FULL, [mutation.kind]: false } }),
    base({ capabilities: { ...FULL, epochEnforced: false } }),
    base({ binding: { taskId: null, contextId: null } }),
    base({ now: '2030-01-01T00:10:00.000Z' }),
    base({ epoch: EPOCH + 1 }),
    base({ approval: { kind: 'operator', principal: '' } }),
    base({ approval: { ...REVIEW, verdict: 'rejected' } }),
    base({ approval: { ...REVIEW, eventKey: 'attempt:task-0:att-0:terminal' } }),
    base({ boundTaskState: 'working' }),
    base({ boundTaskState: null }),
  ];
};

const EVENTS: OperatorEvent[] = [
  ...OBSERVES,
  ...CLAIMS.map((c) => c.event),
  ...KINDS.flatMap(mutationVariants),
  { type: 'RESOLVE_INTENT', capabilities: FULL },
  { type: 'RESOLVE_INTENT', capabilities: null },
  { type: 'OPERATOR_ANSWER', questionKey: K_BLOCK, answer: 'use v2' },
  { type: 'OPERATOR_ANSWER', questionKey: ARGUS_Q, answer: 'yes' },
  { type: 'OPERATOR_ANSWER', questionKey: 'not-the-question', answer: 'late' },
  { type: 'PAUSE' },
  { type: 'RESUME', now: NOW },
  { type: 'CLOSE' },
];

describe('operator policy: the chart and its rule tables agree in every reachable state', { timeout: 300_000 }, () => {
  it('can(event) exactly when no row fails, and a refusal names the first failing row (never action_not_allowed)', () => {
    const states = [...traversal().reachedStates.values()];
    const disagreements: string[] = [];
    const refusedBy = new Map<string, number>();
    let checks = 0;
    let taken = 0;
    for (const s of states) {
      for (const e of EVENTS) {
        checks++;
        const can = s.status === 'active' && s.can(e);
        const code = explainRefusal(s, e);
        const expected = firstFailingRow(s, e);
        if (can) taken++;
        else refusedBy.set(`${e.type}:${code}`, (refusedBy.get(`${e.type}:${code}`) ?? 0) + 1);
        // One line per disagreement (state, event, what each side says), collected, then asserted.
        if (can !== (code === null) || code !== expected || code === 'action_not_allowed') {
          disagreements.push(JSON.stringify({ value: s.value, event: e, can, code, expected }));
        }
      }
    }
    console.log(`policy: ${states.length} states × ${EVENTS.length} operator events = ${checks} checks (${taken} taken, ${checks - taken} refused)`);
    expect(disagreements.slice(0, 5), `${disagreements.length} disagreements`).toEqual([]);
    // Every event type was both taken somewhere and refused somewhere.
    for (const type of Object.keys(OPERATOR_RULES)) expect([...refusedBy.keys()].some((k) => k.startsWith(`${type}:`)), `${type} refused somewhere`).toBe(true);
    expect(taken).toBeGreaterThan(0);
  });

  it('reaches every row of every table as the first failing row somewhere (each code is live, none is shadowed)', () => {
    const states = [...traversal().reachedStates.values()];
    const firstFailing = new Set<string>();
    for (const s of states) {
      for (const e of EVENTS) {
        const rows = OPERATOR_RULES[e.type] as readonly Parameters<typeof rowHolds>[0][];
        const row = rows.find((r) => !rowHolds(r, s, e as never));
        if (row) firstFailing.add(`${e.type}:${rowName(row)}`);
      }
    }
    const declared = Object.entries(OPERATOR_RULES).flatMap(([type, rows]) => (rows as readonly Parameters<typeof rowName>[0][]).map((r) => `${type}:${rowName(r)}`));
    expect(declared.filter((d) => !firstFailing.has(d))).toEqual([]);
  });
});
