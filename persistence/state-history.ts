/**
 * A campaign's state history: each change of its authority or attention (pause and close are
 * authority states) with when and why, newest last. It is written only inside a save that
 * already happens (a material change of the snapshot), never on its own, so it costs the
 * heartbeat nothing; and it is bounded, so a long-lived campaign's document stays small.
 * Absent in a document written before it existed: that reads as an empty history.
 * @module
 */
import { z } from 'zod';
import { nonEmpty, timestamp } from './document-records.js';

/**
 * Entries kept; the oldest go first (the created_at of the campaign still dates its start). A
 * remote can drive a change on every read, so the history counts toward the document's bound
 * (docs/remote-text.md): 100 entries of at most ~250 bytes each is ≤ 25 KiB.
 */
export const HISTORY_RETENTION = 100;
/** The longest detail: an action, a reason code or a few event kinds. */
export const HISTORY_DETAIL_MAX = 48;

/** What moved the campaign: an operator's action, a reading of the remote, its lease, Argus, Foreman, or the supervisor itself (a restart). */
export const HISTORY_CAUSES = ['operator', 'remote', 'lease', 'argus', 'foreman', 'supervisor'] as const;
export type HistoryCause = (typeof HISTORY_CAUSES)[number];

/** A state pair as `describeStates` names it (machines/campaign.projection.ts). */
export const statePairSchema = z.strictObject({ authority: nonEmpty, attention: nonEmpty });

export const historyEntrySchema = z.strictObject({
  at: timestamp,
  /** The state before (null for the campaign's creation, its first entry) and the state entered. */
  from: statePairSchema.nullable(),
  to: statePairSchema,
  cause: z.enum(HISTORY_CAUSES),
  /** A few words of what, from the supervisor's own vocabulary (an action, a reason code): never remote text. */
  detail: z.string().max(HISTORY_DETAIL_MAX),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const historySchema = z.array(historyEntrySchema).max(HISTORY_RETENTION);

/** The history with one more entry, the oldest dropped past the bound. */
export function appendHistory(history: readonly HistoryEntry[] | undefined, entry: HistoryEntry): HistoryEntry[] {
  const next = [...(history ?? []), entry];
  return next.length > HISTORY_RETENTION ? next.slice(next.length - HISTORY_RETENTION) : next;
}
