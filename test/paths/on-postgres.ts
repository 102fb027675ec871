/**
 * Which planned paths the PostgreSQL shards drive (docs/decisions.md, "The driven paths on
 * PostgreSQL: the authority and restart paths"). All 143 pass there (PATHS_PG=all drives every
 * one; measured: 132 driven, the same 11 undriven for the same reasons as on the file store), but
 * the whole plan twice costs what the file shards cost again (about 160 s of worker time, half
 * of it the `argus-restored` paths), and the suite's budget is about 7 minutes on 2 cores.
 *
 * What the two stores do differently is all on the store's side: how a document is created,
 * written (fenced, in one transaction), read back and restored, and the ownership around it (a
 * right per campaign; a restart is a new replica, fence 2, the takeover hook). Every path
 * creates its campaign, saves after each group and is read back by the checks, so any path
 * drives create/save/read. Beyond that, the store is reached by:
 * - the authority region: the intent journal and its outcomes in the document, the lease in the
 *   context, in-doubt intents and their resolution, failing journal writes, the remote fenced
 *   by the campaign's own right, the context's controller row (`context_controllers`);
 * - a restart inside the path (ENVIRONMENT, INTENT_IN_DOUBT, HOSTING_TAKEN_OVER): the restore
 *   from the database and what a new replica's claim does there.
 * A path that does neither (Argus's and Foreman's turns, questions, wakes: the attention
 * region) reaches the store only through the chart's snapshot in the same save every other
 * path makes, so it drives nothing on PostgreSQL the selected ones do not. Those are the
 * expensive ones (the decision runtime), so they are left to the file shards.
 */
import type { PlannedPath } from './path-plan.js';

const AUTHORITY_EVENT = /^(OPERATOR_CLAIM|MUTATE|RESOLVE_INTENT|INTENT_IN_DOUBT|HOSTING_TAKEN_OVER|LEASE_)/;
const AUTHORITY_EFFECT = /^xstate\.(done|error)\.actor\.(claimLease|readLease|rotateLease|journalIntent|relayMutation|renewLease|readBackIntent)$/;
/** Planned events a driver performs by restarting the process (stimuli.ts). */
const RESTART_EVENT = /^(ENVIRONMENT|INTENT_IN_DOUBT|HOSTING_TAKEN_OVER)$/;

export function drivenOnPostgres(path: PlannedPath): boolean {
  if (process.env.PATHS_PG === 'all') return true;
  return path.steps.some((s) => {
    const type = String(s.event.type);
    return s.taken.some((t) => t.includes('campaign.active.authority')) || AUTHORITY_EVENT.test(type) || AUTHORITY_EFFECT.test(type) || RESTART_EVENT.test(type);
  });
}
