/**
 * What the decision-boundary invariants read off a traversal step: where attention went, which
 * events the step handed the chart, whether it started an Argus turn.
 */
import type { EventObject } from 'xstate';
import { bindingLive } from '../../machines/campaign.decide.js';
import type { OperatorAnswerEvent, ReadStatusOutput } from '../../machines/campaign.types.js';
import { A, isIn, traversal, type Snap, type Step } from './campaign-traversal.js';

export const ATT = 'active.attention';
export const READY = `${A}.controlling.ready`;
export const outputOf = <T>(event: { type: string }): T => (event as unknown as { output: T }).output;
export const ofType = <T>(events: EventObject[], type: string): T[] => events.filter((e) => e.type === type) as unknown as T[];
const isAnswer = (e: Step, actor: string) => (e.event.type as string) === `xstate.done.actor.${actor}`;
export const stepsOf = (actor: string) => traversal().steps.filter((e) => isAnswer(e, actor));
/** The step started a new Argus turn (a new `argusTurn` child). */
export const turnStarted = (from: Snap, to: Snap) => 'argusTurn' in to.children && to.children.argusTurn !== from.children.argusTurn;

/**
 * Where attention goes when a decision settles: idle, unless another event was queued meanwhile,
 * which is taken up at once (a turn, or an interrupted receipt if that event's turn was sent).
 */
export function settledAttention(from: Snap, to: Snap): 'idle' | 'taken-up' | 'elsewhere' {
  const queued = from.context.argus.queued;
  if (queued === null || !bindingLive(to.context.argus)) return isIn(to, `${ATT}.idle`) ? 'idle' : 'elsewhere';
  const taken = from.context.argus.sentFor === queued.dedupeKey ? isIn(to, `${ATT}.needs-you`) : turnStarted(from, to);
  return taken ? 'taken-up' : 'elsewhere';
}
export const expectedSettle = (from: Snap): 'idle' | 'taken-up' => (from.context.argus.queued !== null && bindingLive(from.context.argus) ? 'taken-up' : 'idle');

/** The decision-worthy events a step hands the chart: an observation's wakes, an answer, Foreman's directive. */
export function delivered(from: Snap, event: EventObject): Set<string> {
  const keys = new Set<string>();
  if (event.type === 'READ_DONE') {
    const out = outputOf<ReadStatusOutput>(event);
    if (out.ok && out.observation) for (const w of out.observation.wakes) keys.add(w.dedupeKey);
  }
  if (event.type === 'OPERATOR_ANSWER') keys.add(`answer:${(event as OperatorAnswerEvent).questionKey}`);
  if (event.type === 'xstate.done.actor.foremanAssess' && from.context.argus.wake) keys.add(`foreman:${from.context.argus.wake.dedupeKey}`);
  return keys;
}

