/**
 * One chaos run's verdict: the supervisor's intent journal set against the remote's own log of
 * the mutation requests it received (`/_sim/ledger`). Pure; the run gathers both.
 *
 *   duplicates          every arrival of a request id after its first (a resend, whether the
 *                       remote replayed, refused or applied it), every mutation request sent
 *                       by the restarted supervisor (it may read back, never send: this
 *                       catches a resend of an intent whose original never left), and every
 *                       effect of the flow's kind beyond one in a run, whatever the ids say;
 *   lost                a mutation the remote applied whose request id is not journaled;
 *   outcome mismatches  a journaled `applied` the remote did not apply, or a journaled
 *                       `not_applied` / `rejected` the remote did apply;
 *   unjournaled         any mutation request the remote received (applied or not) whose
 *                       request id is not journaled: a resend under a new id shows up here
 *                       even when the remote rejects it;
 *   unresolved          an intent still open or ambiguous at the end, or one that was in doubt
 *                       when the supervisor died and was not settled by a readback.
 * @module
 */
import type { MutationIntent } from '../persistence/campaign-document.js';
import type { LedgerEntry } from '../simulator/index.js';
import type { Flow } from './chaos-plan.js';

export interface Reconciled {
  duplicates: number;
  lost: number;
  outcomeMismatches: number;
  unjournaled: number;
  unresolved: number;
  /** Intents open or ambiguous on disk when the first supervisor died. */
  inDoubtAtKill: number;
  /** Of those, settled afterwards by a readback of their request id. */
  resolvedByReadback: number;
  /** Mutations (not lease calls) the remote applied in this run. */
  appliedRemote: number;
}

const MUTATIONS: ReadonlySet<string> = new Set(['submit', 'intervene', 'cancel', 'release', 'answer']);

const unsettled = (intent: MutationIntent): boolean => intent.outcome === null || intent.outcome.status === 'ambiguous';

export function reconcile(input: {
  flow: Flow;
  /** The journal on disk right after the first supervisor died. */
  journalAtKill: readonly MutationIntent[];
  /** The journal after the restarted supervisor resolved what was in doubt. */
  journalFinal: readonly MutationIntent[];
  /** The remote's log entries of this run only. */
  ledger: readonly LedgerEntry[];
  /** The first log seq after the first supervisor died: later mutation requests came from the restart. */
  restartSeq: number;
}): Reconciled {
  const journaled = new Map(input.journalFinal.map((intent) => [intent.requestId, intent]));
  for (const intent of input.journalAtKill) if (!journaled.has(intent.requestId)) journaled.set(intent.requestId, intent);

  const mutations = input.ledger.filter((e) => MUTATIONS.has(e.action));
  const applied = mutations.filter((e) => e.disposition === 'applied');
  const appliedCount = new Map<string, number>();
  for (const e of applied) if (e.requestId !== null) appliedCount.set(e.requestId, (appliedCount.get(e.requestId) ?? 0) + 1);

  // A request id that reached the remote twice was re-sent, whatever the remote made of it
  // (replayed from its ledger, refused for another payload, or applied twice).
  const arrivals = new Map<string, number>();
  for (const e of input.ledger) if (e.requestId !== null) arrivals.set(e.requestId, (arrivals.get(e.requestId) ?? 0) + 1);
  let duplicates = mutations.filter((e) => e.seq >= input.restartSeq).length;
  for (const count of arrivals.values()) duplicates += count - 1;
  if (input.flow !== 'claim') duplicates += Math.max(0, applied.filter((e) => e.action === input.flow).length - 1);

  const isJournaled = (e: LedgerEntry) => e.requestId !== null && journaled.has(e.requestId);
  const lost = applied.filter((e) => !isJournaled(e)).length;
  const unjournaled = mutations.filter((e) => !isJournaled(e)).length;

  let outcomeMismatches = 0;
  for (const intent of input.journalFinal) {
    const status = intent.outcome?.status;
    const remoteApplied = appliedCount.has(intent.requestId);
    if (status === 'applied' && !remoteApplied) outcomeMismatches++;
    if ((status === 'not_applied' || status === 'rejected') && remoteApplied) outcomeMismatches++;
  }

  const finalById = new Map(input.journalFinal.map((intent) => [intent.requestId, intent]));
  const inDoubt = input.journalAtKill.filter(unsettled);
  const byReadback = (requestId: string): boolean => {
    const outcome = finalById.get(requestId)?.outcome;
    return outcome?.settledBy === 'readback' && (outcome.status === 'applied' || outcome.status === 'not_applied');
  };
  const resolvedByReadback = inDoubt.filter((intent) => byReadback(intent.requestId)).length;
  const unresolvedIds = new Set(input.journalFinal.filter(unsettled).map((intent) => intent.requestId));
  for (const intent of inDoubt) if (!byReadback(intent.requestId)) unresolvedIds.add(intent.requestId);

  return {
    duplicates,
    lost,
    outcomeMismatches,
    unjournaled,
    unresolved: unresolvedIds.size,
    inDoubtAtKill: inDoubt.length,
    resolvedByReadback,
    appliedRemote: applied.length,
  };
}
