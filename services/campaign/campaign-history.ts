/**
 * Which history entry a save carries (persistence/state-history.ts): the states of the snapshot
 * on disk against the one being saved, and, when they differ, why, from what the save itself
 * carries. Pure: run inside the save's store transaction, so the entry and the snapshot it
 * describes are one write, and a save that changes no state (most saves change only context)
 * adds nothing.
 * @module
 */
import type { CampaignEmitted, CampaignEvent } from '../../machines/campaign.types.js';
import { describeStates } from '../../machines/campaign.projection.js';
import { HISTORY_DETAIL_MAX, type HistoryCause, type HistoryEntry } from '../../persistence/state-history.js';

/** What the host saw since the last save, beside the emitted events. */
export interface HistoryTrigger {
  /** The operator actions sent since the last save (`claim`, `pause`, …; `observe` is only a read). */
  operator: readonly string[];
  /** A status read settled as changed or failed since the last save. */
  read: boolean;
}

export const NO_TRIGGER: HistoryTrigger = { operator: [], read: false };

const OPERATOR_ACTIONS: Partial<Record<CampaignEvent['type'], string>> = {
  OBSERVE: 'observe',
  OPERATOR_CLAIM: 'claim',
  RESOLVE_INTENT: 'resolve_intent',
  OPERATOR_ANSWER: 'answer',
  BIND_MISSION: 'mission',
  PAUSE: 'pause',
  RESUME: 'resume',
  CLOSE: 'close',
};

/** The operator action an event carries (the API's action name), or null for the services' own events. */
export function operatorAction(event: CampaignEvent): string | null {
  if (event.type === 'MUTATE') return event.mutation.kind;
  return OPERATOR_ACTIONS[event.type] ?? null;
}

type States = { authority: string; attention: string };

/** The state pair of a persisted snapshot; null when it cannot be read (then no entry is made). */
export function statesOf(snapshot: unknown): States | null {
  if (!snapshot || typeof snapshot !== 'object' || !('value' in snapshot)) return null;
  const { authority, attention } = describeStates(snapshot as Parameters<typeof describeStates>[0]);
  return { authority, attention };
}

/**
 * The entry for a save from `before` to `after`, or null when neither authority nor attention
 * moved. The cause is the strongest one the save carries: a lost lease, then a settled decision
 * (Argus's, or Foreman's alone), then an operator's action, then a reading of the remote, then
 * the decision runtime whose attention was left; a save with none of these is the supervisor's
 * own (a heartbeat's timer, a restart settling an interrupted turn or an intent in doubt).
 */
export function historyEntry(before: unknown, after: unknown, emitted: readonly CampaignEmitted[], trigger: HistoryTrigger, now: Date): HistoryEntry | null {
  const from = statesOf(before);
  const to = statesOf(after);
  if (!from || !to || (from.authority === to.authority && from.attention === to.attention)) return null;
  const { cause, detail } = causeOf(emitted, trigger, from.attention);
  return { at: now.toISOString(), from, to, cause, detail: detail.slice(0, HISTORY_DETAIL_MAX) };
}

function causeOf(emitted: readonly CampaignEmitted[], trigger: HistoryTrigger, fromAttention: string): { cause: HistoryCause; detail: string } {
  const lost = emitted.find((e) => e.type === 'CONTROL_LOST');
  if (lost) return { cause: 'lease', detail: lost.reason };
  const decision = emitted.find((e) => e.type === 'DECISION_SETTLED');
  // A boundary Foreman settled alone carries its directive; every other one is Argus's.
  if (decision) return decision.decision.directive ? { cause: 'foreman', detail: `directive ${decision.decision.directive}` } : { cause: 'argus', detail: `decision ${decision.decision.outcome}` };
  const acted = trigger.operator.filter((a) => a !== 'observe');
  if (acted.length) return { cause: 'operator', detail: acted[acted.length - 1]! };
  const drafts = [...new Set(emitted.flatMap((e) => (e.type === 'PUBLIC_DRAFTS' ? e.drafts.map((d) => d.kind) : [])))];
  if (drafts.length) return { cause: 'remote', detail: `read: ${drafts.join(', ')}` };
  const ambiguous = emitted.find((e) => e.type === 'INTENT_AMBIGUOUS');
  if (ambiguous) return { cause: 'supervisor', detail: `${ambiguous.kind} in doubt` };
  // Leaving an attention a decision runtime holds, with nothing else said: that runtime answered.
  const answered = ANSWERED_BY[fromAttention];
  if (answered) return answered;
  if (trigger.read || trigger.operator.length) return { cause: 'remote', detail: 'read' };
  return { cause: 'supervisor', detail: 'heartbeat or restart' };
}

/** Who ends each attention a decision runtime holds (machines/campaign.attention.ts). */
const ANSWERED_BY: Record<string, { cause: HistoryCause; detail: string }> = {
  binding: { cause: 'argus', detail: 'mission bind answered' },
  assessing: { cause: 'foreman', detail: 'assessment answered' },
  'awaiting-review': { cause: 'argus', detail: 'turn answered' },
};
