/**
 * The chaos verdict of one run, from a journal and a remote ledger written by hand: each count
 * moves for the bug it names, and a clean run counts nothing. Plus the schedule's coverage.
 */
import { describe, expect, it } from 'vitest';
import { MATRIX, POINTS_OF, prng, schedule, pairKey } from '../../bench/chaos-plan.js';
import { reconcile } from '../../bench/chaos-reconcile.js';
import type { MutationIntent } from '../../persistence/campaign-document.js';
import type { LedgerEntry } from '../../simulator/index.js';

const AT = '2026-01-01T00:00:00.000Z';
const DIGEST = 'a'.repeat(64);

function intent(requestId: string, outcome: MutationIntent['outcome']): MutationIntent {
  return { requestId, action: 'cancel', epoch: 1, payloadDigest: DIGEST, createdAt: AT, outcome };
}
const open = (id: string) => intent(id, null);
const settled = (id: string, status: 'applied' | 'not_applied' | 'rejected' | 'ambiguous', settledBy?: 'response' | 'readback') =>
  intent(id, { status, at: AT, ...(settledBy ? { settledBy } : {}) });

let seq = 0;
function entry(requestId: string | null, disposition: LedgerEntry['disposition'], action: LedgerEntry['action'] = 'cancel'): LedgerEntry {
  return { seq: ++seq, requestId, action, method: 'CancelTask', disposition, reason: disposition === 'applied' ? null : 'lease_stale_epoch' };
}

describe('reconcile', () => {
  it('counts nothing when a crash in doubt was settled by readback as the remote says', () => {
    const r = reconcile({
      flow: 'cancel',
      journalAtKill: [open('r1')],
      journalFinal: [settled('r1', 'applied', 'readback')],
      ledger: [entry('c1', 'applied', 'claim'), entry('r1', 'applied')],
      restartSeq: Infinity,
    });
    expect(r).toEqual({ duplicates: 0, lost: 0, outcomeMismatches: 0, unjournaled: 0, unresolved: 0, inDoubtAtKill: 1, resolvedByReadback: 1, appliedRemote: 1 });
  });

  it('an in-doubt intent restored as not_applied while the remote applied it: a mismatch, and unresolved', () => {
    const r = reconcile({ flow: 'cancel', journalAtKill: [open('r1')], journalFinal: [settled('r1', 'not_applied')], ledger: [entry('r1', 'applied')], restartSeq: Infinity });
    expect([r.outcomeMismatches, r.unresolved, r.resolvedByReadback]).toEqual([1, 1, 0]);
  });

  it('journaled applied that the remote never applied is a mismatch; rejected that it applied too', () => {
    expect(reconcile({ flow: 'cancel', journalAtKill: [], journalFinal: [settled('r1', 'applied', 'response')], ledger: [entry('r1', 'rejected')], restartSeq: Infinity }).outcomeMismatches).toBe(1);
    expect(reconcile({ flow: 'cancel', journalAtKill: [], journalFinal: [settled('r1', 'rejected', 'response')], ledger: [entry('r1', 'applied')], restartSeq: Infinity }).outcomeMismatches).toBe(1);
  });

  it('a resend under a new request id is unjournaled even when the remote rejects it', () => {
    const r = reconcile({
      flow: 'cancel',
      journalAtKill: [open('r1')],
      journalFinal: [settled('r1', 'not_applied', 'readback')],
      ledger: [entry('r2', 'rejected'), entry(null, 'rejected')],
      restartSeq: Infinity,
    });
    expect([r.unjournaled, r.lost, r.duplicates]).toEqual([2, 0, 0]);
  });

  it('an applied resend under a new id is lost and a duplicate effect; a same-id resend is a duplicate', () => {
    const resent = reconcile({
      flow: 'cancel',
      journalAtKill: [],
      journalFinal: [settled('r1', 'applied', 'response')],
      ledger: [entry('r1', 'applied'), entry('r2', 'applied')],
      restartSeq: Infinity,
    });
    expect([resent.lost, resent.unjournaled, resent.duplicates]).toEqual([1, 1, 1]);
    const replayed = reconcile({
      flow: 'cancel',
      journalAtKill: [],
      journalFinal: [settled('r1', 'applied', 'response')],
      ledger: [entry('r1', 'applied'), entry('r1', 'replayed')],
      restartSeq: Infinity,
    });
    expect([replayed.duplicates, replayed.unjournaled]).toEqual([1, 0]);
    const refused = reconcile({
      flow: 'cancel',
      journalAtKill: [open('r1')],
      journalFinal: [settled('r1', 'not_applied', 'readback')],
      ledger: [entry('r1', 'rejected'), entry('r1', 'rejected')],
      restartSeq: Infinity,
    });
    expect(refused.duplicates).toBe(1);
  });

  it('a mutation the restarted supervisor sent is a resend, even when it is the first arrival of its id', () => {
    const first = entry('r1', 'applied');
    const r = reconcile({
      flow: 'cancel',
      journalAtKill: [open('r1')],
      journalFinal: [settled('r1', 'applied', 'readback')],
      ledger: [entry('c1', 'applied', 'claim'), first],
      restartSeq: first.seq,
    });
    expect([r.duplicates, r.unjournaled, r.outcomeMismatches]).toEqual([1, 0, 0]);
  });

  it('an intent still ambiguous at the end is unresolved, counted once', () => {
    const r = reconcile({ flow: 'cancel', journalAtKill: [open('r1')], journalFinal: [settled('r1', 'ambiguous')], ledger: [], restartSeq: Infinity });
    expect([r.unresolved, r.inDoubtAtKill, r.resolvedByReadback]).toEqual([1, 1, 0]);
  });
});

describe('schedule', () => {
  it('covers every meaningful pair in its first MATRIX.length runs, whatever the seed', () => {
    for (const seed of [1, 11, 4242]) {
      const keys = new Set(schedule(MATRIX.length, prng(seed)).map(pairKey));
      expect(keys.size).toBe(MATRIX.length);
    }
    expect(schedule(MATRIX.length - 1, prng(1)).length).toBe(MATRIX.length - 1);
  });

  it('gives the claim only the points that exist for an unjournaled call', () => {
    expect(POINTS_OF.claim).toEqual(['after_send', 'after_response', 'random']);
    // claim: 3 points; the five journaled mutations (submit, intervene, cancel, release, answer): all 5.
    expect(MATRIX).toHaveLength(3 + 5 * 5);
  });
});
