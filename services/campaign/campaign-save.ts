/**
 * One save of a live campaign, as a pure document change run inside the store transaction:
 * what the actor emitted since the last save (outbox drafts, wake requests, journal outcomes)
 * and the persisted snapshot, applied together so no crash can fall between an outcome and the
 * snapshot that follows it. The document's `remote` binding is a copy of the chart's (its
 * context's `binding`), written with every save for readers that do not restore snapshots;
 * nothing reads it back into the chart but a `campaign@5` migration.
 * @module
 */
import type { BindingFacts, CampaignEmitted } from '../../machines/campaign.types.js';
import type { PublicEventDraft, WakeRequest } from '../../machines/vocabulary.js';
import type { CampaignDocument, PublicEvent, WakeRequest as RecordedWake } from '../../persistence/campaign-document.js';
import { findIntent, recordIntentOutcome } from '../../persistence/intent-journal.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { appendHistory } from '../../persistence/state-history.js';
import { recordWakeRequests, recordWakeSettled, type WakeSettlement } from '../../persistence/wake-requests.js';
import { controlLostDraft, intentAmbiguousDraft } from '../reducer/reducer.js';
import { historyEntry, NO_TRIGGER, type HistoryTrigger } from './campaign-history.js';

/** The emitted events a save must carry to disk; READ_SETTLED, CLAIM_SETTLED, MUTATION_REFUSED are answers only. */
const DURABLE = new Set<CampaignEmitted['type']>(['PUBLIC_DRAFTS', 'WAKE_REQUESTED', 'CONTROL_LOST', 'INTENT_AMBIGUOUS', 'INTENT_SETTLED', 'DECISION_SETTLED']);
export const isDurable = (e: CampaignEmitted): boolean => DURABLE.has(e.type);

export interface SaveInput {
  machine: { version: string; snapshot: unknown };
  emitted: readonly CampaignEmitted[];
  /** Why an intent that turned ambiguous without a relay answer is in doubt (restart, lost write). */
  doubtCode: string;
  /** An intent the host sent INTENT_IN_DOUBT for: recorded ambiguous if the journal still has it open. */
  inDoubt: string | null;
  /** The chart's binding as of this snapshot (the document keeps a copy). */
  binding: BindingFacts;
  /** What the host saw since the last save (operator actions, a settled read): the history's cause. */
  trigger?: HistoryTrigger;
  now: Date;
}

export interface SaveResult {
  doc: CampaignDocument;
  appended: PublicEvent[];
  wakes: RecordedWake[];
}

export function applySave(doc: CampaignDocument, input: SaveInput): SaveResult {
  const drafts: PublicEventDraft[] = [];
  const wakes: WakeRequest[] = [];
  const settlements: WakeSettlement[] = [];
  let next: CampaignDocument = { ...doc, machine: input.machine };
  // The states on disk against the ones saved now: only a save that moves them adds an entry.
  const entry = historyEntry(doc.machine.snapshot, input.machine.snapshot, input.emitted, input.trigger ?? NO_TRIGGER, input.now);
  if (entry) next = { ...next, history: appendHistory(doc.history, entry) };
  for (const e of input.emitted) {
    switch (e.type) {
      case 'PUBLIC_DRAFTS':
        drafts.push(...e.drafts);
        break;
      case 'WAKE_REQUESTED':
        wakes.push(e.wake);
        break;
      case 'CONTROL_LOST':
        drafts.push(controlLostDraft(e));
        break;
      case 'INTENT_AMBIGUOUS': {
        drafts.push(intentAmbiguousDraft(e));
        // An intent that became ambiguous with no relay answer is recorded so (open → ambiguous).
        const answered = input.emitted.some((o) => o.type === 'INTENT_SETTLED' && o.requestId === e.requestId);
        if (!answered && findIntent(next, e.requestId)?.outcome === null) next = settle(next, e.requestId, { status: 'ambiguous', code: input.doubtCode, at: input.now });
        break;
      }
      case 'INTENT_SETTLED': {
        const code = e.code ?? undefined;
        next = settle(next, e.requestId, { status: e.status, ...(code ? { code } : {}), at: input.now, settledBy: e.settledBy });
        break;
      }
      case 'DECISION_SETTLED': {
        const { dedupeKey, outcome, code, decisionId } = e.decision;
        if (dedupeKey) settlements.push({ dedupeKey, outcome, code, decisionId });
        break;
      }
      default:
        break;
    }
  }
  if (input.inDoubt && findIntent(next, input.inDoubt)?.outcome === null) {
    next = settle(next, input.inDoubt, { status: 'ambiguous', code: input.doubtCode, at: input.now });
  }
  const { taskId, contextId } = input.binding;
  if (doc.remote.taskId !== taskId || doc.remote.contextId !== contextId) next = { ...next, remote: { ...doc.remote, taskId, contextId } };
  const { doc: withEvents, appended } = appendPublicEvents(next, drafts, input.now);
  const eventIdByKey = new Map(withEvents.outbox.events.map((ev) => [ev.dedupeKey, ev.id]));
  const { doc: withWakes, recorded } = recordWakeRequests(
    withEvents,
    wakes.map((w) => ({ ...w, eventId: eventIdByKey.get(w.dedupeKey) ?? null })),
    input.now,
  );
  // After the wakes of this save: a boundary may open and settle between two saves.
  let settled = withWakes;
  for (const s of settlements) settled = recordWakeSettled(settled, s, input.now);
  return { doc: settled, appended, wakes: recorded };
}

/** A journal refusal (already settled, not found) leaves the journal as it is: it is history. */
function settle(doc: CampaignDocument, requestId: string, outcome: Parameters<typeof recordIntentOutcome>[2]): CampaignDocument {
  const settled = recordIntentOutcome(doc, requestId, outcome);
  return settled.ok ? settled.doc : doc;
}
