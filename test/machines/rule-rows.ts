/**
 * The rule tables, read independently of explainRefusal: where a reached snapshot is, as the
 * tables' `where` rows ask it, and which row of an operator event's table fails first there.
 */
import { OPERATOR_RULES, type Rule, type StateProbe } from '../../machines/campaign.rules.js';
import type { OperatorEvent } from '../../machines/campaign.types.js';
import { A, isIn, type Snap } from './campaign-traversal.js';

const EFFECT_STATES = ['claiming', 'controlling.renewing', 'controlling.rotating', 'controlling.reclaiming', 'controlling.verifying', 'controlling.journaling', 'controlling.relaying', 'ambiguous-intent.resolving', 'ambiguous-intent.rotating', 'ambiguous-intent.reclaiming'];

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
    attention: authorityValue ? topKey(authorityValue.attention) : 'paused',
    heartbeat: authorityValue ? (authorityValue.heartbeat as string) : null,
    effectInFlight: EFFECT_STATES.some((p) => isIn(s, `${A}.${p}`)),
    questionSource: s.context.pendingQuestion?.source ?? null,
    // Between a mutation's acceptance and its outcome: only controlling's mutation steps hold one.
    mutationInFlight: ['verifying', 'journaling', 'relaying'].some((p) => isIn(s, `${A}.controlling.${p}`)),
  };
}

const topKey = (v: unknown): string => (typeof v === 'string' ? v : Object.keys(v as object)[0]!);

export const rowHolds = <E extends OperatorEvent>(rule: Rule<E>, s: Snap, e: E): boolean =>
  'guard' in rule ? rule.holds(s.context, e) : rule.holds(probe(s));
export const rowsOf = (type: OperatorEvent['type']): readonly Rule<OperatorEvent>[] => OPERATOR_RULES[type] as readonly Rule<OperatorEvent>[];
/** The code of the first row of the event's table that fails here, or null when all hold. */
export function firstFailingRow(s: Snap, e: OperatorEvent): string | null {
  for (const rule of rowsOf(e.type)) if (!rowHolds(rule, s, e)) return rule.code;
  return null;
}
export const rowName = (rule: Rule<never>): string => ('guard' in rule ? rule.guard : rule.where);
