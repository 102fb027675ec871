/**
 * The Reviewer gate, rule by rule: one table row per rule of machines/argus.verdict.ts (and per
 * way a verdict can fail to bind: another item, another event, older than the wake, no key), so
 * a rule that stops holding names itself. A Foreman FINISH is toggled on every row and never
 * changes the result.
 */
import { describe, expect, it } from 'vitest';
import {
  hasFreshCompletion,
  hasMismatchedVerdict,
  hasOpenQuestion,
  hasOwnFailure,
  instantMs,
  isApproved,
  isSuperseded,
  isUnbound,
  judgeProposal,
  proposalFitsEvent,
  type Verdict,
  type VerdictInput,
  type VerdictJournalEntry,
  type VerdictProposal,
} from '../../machines/argus.verdict.js';
import type { ProposalRead } from '../../adapters/argus/proposal-file.js';

const EVENT_ID = 'c1:attempt-completed:3';
const WOKE = '2026-03-01T10:00:00.000Z';
const LATER = '2026-03-01T10:05:00.000Z';
const EARLIER = '2026-03-01T09:55:00.000Z';
const ITEM = 'a1b2c3d4e5f6';

const proposal = (over: Partial<VerdictProposal> = {}): VerdictProposal => ({
  decision_id: 'dec-1',
  event_key: EVENT_ID,
  kind: 'submit',
  text: 'resume from checkpoint 12',
  reason: 'the attempt completed with a regression',
  evidence_refs: ['journal:abc'],
  ...over,
});
const entry = (over: Partial<VerdictJournalEntry> = {}): VerdictJournalEntry => ({
  id: 'j1',
  ts: LATER,
  kind: 'mission_complete',
  title: 'decide',
  summary: 'reviewer approved',
  itemId: ITEM,
  eventKey: EVENT_ID,
  ...over,
});
const base = (over: Partial<VerdictInput> = {}): VerdictInput => ({
  eventKey: EVENT_ID,
  wokeAt: WOKE,
  dispatchedItemId: ITEM,
  latestEventKey: EVENT_ID,
  proposal: { status: 'found', proposal: proposal() },
  journal: [entry()],
  backlog: [{ id: ITEM, title: 'decide', status: 'done', pendingQuestion: null, outcome: 'done' }],
  ...over,
});

const approved: Verdict = { status: 'approved', decisionId: 'dec-1', kind: 'submit', text: 'resume from checkpoint 12' };
const rejected = (code: string): Verdict => ({ status: 'rejected', code });
const pending: Verdict = { status: 'pending' };

const rows: [string, VerdictInput, Verdict][] = [
  ['approved: fresh own mission_complete for this event, latest, proposal found', base(), approved],
  ['approved intervene carries the instruction and no text', base({ proposal: { status: 'found', proposal: proposal({ kind: 'intervene', text: undefined, instruction: 'lower the lr' }) } }), { status: 'approved', decisionId: 'dec-1', kind: 'intervene', instruction: 'lower the lr' }],
  ['approved observe carries neither', base({ proposal: { status: 'found', proposal: proposal({ kind: 'observe', text: undefined }) } }), { status: 'approved', decisionId: 'dec-1', kind: 'observe' }],
  ['epoch-seconds ts (real Argus float) after the wake still binds', base({ journal: [entry({ ts: String(Date.parse(LATER) / 1000) })] }), approved],
  ['superseded: a newer event is the latest', base({ latestEventKey: 'c1:attempt-completed:4' }), rejected('verdict_superseded')],
  ['superseded: no latest event recorded', base({ latestEventKey: null }), rejected('verdict_superseded')],
  ['unbound: the turn named no item', base({ dispatchedItemId: null, journal: [entry({ itemId: null })] }), rejected('verdict_unbound')],
  ['question: the dispatched item is blocked with a pending_question', base({ backlog: [{ id: ITEM, title: 't', status: 'blocked', pendingQuestion: 'Which checkpoint?', outcome: null }] }), { status: 'question', itemId: ITEM, question: 'Which checkpoint?' }],
  ['question: listed in pending_questions only, even beside a completion', base({ backlog: [], pendingQuestions: [{ itemId: ITEM, question: 'Go on?' }] }), { status: 'question', itemId: ITEM, question: 'Go on?' }],
  ['another item\'s question is not ours', base({ journal: [], backlog: [{ id: 'other', title: 't', status: 'blocked', pendingQuestion: 'Q?', outcome: null }] }), pending],
  ['failed: own mission_failed', base({ journal: [entry({ kind: 'mission_failed' })] }), rejected('verdict_failed')],
  ['failed: own mission_aborted', base({ journal: [entry({ kind: 'mission_aborted' })] }), rejected('verdict_failed')],
  ['failed outranks a completion in the same tail', base({ journal: [entry(), entry({ id: 'j2', kind: 'mission_failed' })] }), rejected('verdict_failed')],
  ['failed even without an event key on the entry', base({ journal: [entry({ kind: 'mission_failed', eventKey: null })] }), rejected('verdict_failed')],
  ['completion but no proposal file: a settled turn with nothing to do', base({ proposal: { status: 'none' } }), rejected('no_proposal')],
  ['completion but an invalid proposal keeps its code', base({ proposal: { status: 'invalid', code: 'proposal_too_large' } }), rejected('proposal_too_large')],
  ['completion but the proposal is about another event', base({ proposal: { status: 'found', proposal: proposal({ event_key: 'c1:other:1' }) } }), rejected('proposal_other_event')],
  ['completion but a submit without text', base({ proposal: { status: 'found', proposal: proposal({ text: undefined }) } }), rejected('proposal_invalid')],
  ['mission_complete for another item is not ours: still pending', base({ journal: [entry({ itemId: 'ffffffffffff' })] }), pending],
  ['mismatch: own mission_complete for another event', base({ journal: [entry({ eventKey: 'c1:attempt-completed:2' })] }), rejected('verdict_mismatch')],
  ['mismatch: own mission_complete with no event key', base({ journal: [entry({ eventKey: null })] }), rejected('verdict_mismatch')],
  ['mismatch: own mission_complete older than the wake', base({ journal: [entry({ ts: EARLIER })] }), rejected('verdict_mismatch')],
  ['mismatch: own mission_complete at the very instant of the wake (not after)', base({ journal: [entry({ ts: WOKE })] }), rejected('verdict_mismatch')],
  ['mismatch: own mission_complete with an unparseable ts', base({ journal: [entry({ ts: 'yesterday' })] }), rejected('verdict_mismatch')],
  ['fresh completion wins over an older own completion', base({ journal: [entry({ id: 'old', ts: EARLIER }), entry()] }), approved],
  ['pending: nothing journaled yet', base({ journal: [] }), pending],
  ['pending: only non-terminal own entries (started, paused)', base({ journal: [entry({ kind: 'mission_started' }), entry({ kind: 'budget_pause' })] }), pending],
  ['pending: a proposal file alone approves nothing', base({ journal: [entry({ kind: 'user_note' })] }), pending],
];

describe('judgeProposal: every rule', () => {
  it.each(rows)('%s', (_name, input, expected) => {
    expect(judgeProposal(input)).toEqual(expected);
    expect(isApproved(input)).toBe(expected.status === 'approved');
  });

  it.each(rows)('foremanFinish never changes the result: %s', (_name, input) => {
    const without = judgeProposal(input);
    expect(judgeProposal({ ...input, foremanFinish: true })).toEqual(without);
    expect(judgeProposal({ ...input, foremanFinish: false })).toEqual(without);
  });

  it('a Foreman FINISH with a proposal and no verdict is still pending, never approved', () => {
    expect(judgeProposal(base({ journal: [], foremanFinish: true }))).toEqual(pending);
  });
});

describe('the named predicates (the chart guards)', () => {
  it('each holds exactly for its rule', () => {
    expect(isSuperseded(base({ latestEventKey: 'x' }))).toBe(true);
    expect(isSuperseded(base())).toBe(false);
    expect(isUnbound(base({ dispatchedItemId: '' }))).toBe(true);
    expect(isUnbound(base())).toBe(false);
    expect(hasOpenQuestion(base({ backlog: [{ id: ITEM, title: 't', status: 'blocked', pendingQuestion: '  ', outcome: null }] }))).toBe(false);
    expect(hasOpenQuestion(base({ backlog: [{ id: ITEM, title: 't', status: 'blocked', pendingQuestion: 'Q', outcome: null }] }))).toBe(true);
    expect(hasOwnFailure(base({ journal: [entry({ kind: 'mission_failed', itemId: 'other' })] }))).toBe(false);
    expect(hasOwnFailure(base({ journal: [entry({ kind: 'mission_failed' })] }))).toBe(true);
    expect(hasFreshCompletion(base())).toBe(true);
    expect(hasFreshCompletion(base({ wokeAt: LATER }))).toBe(false);
    expect(hasMismatchedVerdict(base({ wokeAt: LATER }))).toBe(true);
    expect(hasMismatchedVerdict(base())).toBe(false);
    expect(proposalFitsEvent(base())).toBe(true);
    expect(proposalFitsEvent(base({ proposal: { status: 'none' } }))).toBe(false);
  });

  it('instantMs reads ISO and epoch seconds, and refuses anything else', () => {
    expect(instantMs('1772359200.5')).toBe(1772359200500);
    expect(instantMs(WOKE)).toBe(Date.parse(WOKE));
    expect(instantMs('soon')).toBeNaN();
  });

  it("the reader's ProposalRead fits the gate's input (the two shapes cannot drift apart)", () => {
    const read: ProposalRead = { status: 'found', proposal: { ...proposal(), kind: 'cancel', text: undefined } };
    const input: VerdictInput = base({ proposal: read });
    expect(judgeProposal(input)).toEqual({ status: 'approved', decisionId: 'dec-1', kind: 'cancel' });
  });
});
