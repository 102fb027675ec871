/**
 * The Reviewer gate end to end: a proposal file is only a wish. With a controlling lease held
 * the whole time (so an approved proposal WOULD be relayed, as the control case shows), a
 * submit proposal is never relayed when its mission failed, blocked on a question, never
 * settled (past the mission deadline: NEEDS_YOU "unsettled"), names another event, or when the
 * only verdict around belongs to another item, another event, or predates the wake. Each case
 * checks the durable journal (no intent), the simulator's ledger (no mutation) and the task
 * (still its first attempt).
 */
import { readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { fakeEventKeyFileName, type FakeProject, type ScriptEntry } from '../../simulator/argus/fake-argus-state.js';
import { decisionWorld, type DecisionWorld } from './decision-world.js';
import { boundCampaign, journalOf, sweeps, taskMutations, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

const SUBMIT = { decision_id: 'dec-$ITEM_ID', event_key: '$EVENT_KEY', kind: 'submit', text: 'Attempt 2: lower the learning rate to 1e-4.', reason: 'loss plateaued', evidence_refs: ['eval-1'] };

/** A leased campaign whose attempt completed and whose Argus turn was sent under `script`. */
async function leasedDecision(script: ScriptEntry, opts: { now?: () => Date; extra?: Record<string, string> } = {}) {
  const w = await decisionWorld(scope, { ...(opts.now ? { now: opts.now } : {}), ...(opts.extra ? { extra: opts.extra } : {}) });
  w.writeScript({ '*': script });
  const taskId = await boundCampaign(w);
  await sweeps(w, 1);
  const claimed = await w.act('c1', { action: 'claim' });
  expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
  await w.sweepUntil(() => view(w).remote.state === 'completed');
  await w.sweepUntil(() => w.argusMessages().length === 1);
  expect(view(w).lease.mode).toBe('controller');
  return { w, taskId };
}

/** Nothing reached the remote or the journal, and the lease was held all along. */
async function nothingRelayed(w: DecisionWorld, taskId: string) {
  await sweeps(w, 5);
  expect(journalOf(w)).toEqual([]);
  expect(taskMutations(w)).toEqual([]);
  expect(w.sim.task(taskId)!.attempt).toBe(1);
  expect(view(w).lease.mode).toBe('controller');
  expect(view(w).attempts_submitted).toBe(0);
  expect(w.argusMessages()).toHaveLength(1);
}

const projectFile = (w: DecisionWorld) => path.join(w.argusHome, 'fake-argus', 'projects', `${view(w).decisions.mission.project_id}.json`);
const project = (w: DecisionWorld) => JSON.parse(readFileSync(projectFile(w), 'utf8')) as FakeProject;
const dispatchedItem = (w: DecisionWorld) => project(w).items.at(-1)!;

/** Writes the fake's project document the way it does (whole file, renamed into place). */
function editProject(w: DecisionWorld, edit: (p: FakeProject) => void) {
  const p = project(w);
  edit(p);
  writeFileSync(`${projectFile(w)}.test-tmp`, JSON.stringify(p));
  renameSync(`${projectFile(w)}.test-tmp`, projectFile(w));
}

/** A journal entry as the fake (and Argus's memory.py) writes one. */
function verdictEntry(kind: string, itemId: string, eventKey: string, ts: number) {
  return { id: itemId, ts, kind, title: 'injected', summary: 'a verdict the test wrote', tags: [], cost_usd: 0, extra: { type: 'life.mission.completed', item_id: itemId, event_key: eventKey, success: kind === 'mission_complete', ts } };
}

/** The proposal file Argus's mission would write for the in-flight event, written by the test. */
function writeProposalFor(w: DecisionWorld, eventKey: string) {
  const dir = path.join(w.argusHome, 'workspaces', 'c1', 'decisions');
  mkdirSync(dir, { recursive: true });
  const proposal = { ...SUBMIT, decision_id: 'dec-unreviewed', event_key: eventKey };
  writeFileSync(path.join(dir, `${fakeEventKeyFileName(eventKey)}.json`), JSON.stringify(proposal));
}

describe('control: an approved proposal with a lease is relayed', () => {
  it('its own fresh mission_complete approves the submit: one intent, one submit at the remote', async () => {
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'complete', proposal: SUBMIT });
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'relayed');
    await w.sweepUntil(() => journalOf(w).some((i) => i.outcome !== null));
    await sweeps(w, 3);
    expect(journalOf(w).map((i) => [i.action, i.outcome?.status])).toEqual([['submit', 'applied']]);
    expect(taskMutations(w).map((e) => [e.action, e.disposition])).toEqual([['submit', 'applied']]);
    expect(w.sim.task(taskId)!.attempt).toBe(1);
  });

  it('a verdict the test writes into the fake is read: its own fresh completion relays the proposal on disk', async () => {
    const { w } = await leasedDecision({ reply: 'task', verdict: 'none', proposal: SUBMIT });
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    const eventKey = view(w).decisions.event_key!;
    writeProposalFor(w, eventKey);
    const item = dispatchedItem(w);
    editProject(w, (p) => p.journal.push(verdictEntry('mission_complete', item.id, eventKey, Date.now() / 1000 + 1)));
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'relayed');
    expect(view(w).decisions.last!.decision_id).toBe('dec-unreviewed');
    // 'relayed' = handed to the authority path; the remote sees it once that path has run.
    await w.sweepUntil(() => journalOf(w).some((i) => i.outcome !== null));
    expect(taskMutations(w).map((e) => [e.action, e.disposition])).toEqual([['submit', 'applied']]);
  });
});

describe('a decision id is relayed at most once', () => {
  it('the next attempt completes, Argus approves a proposal with the same decision id: consumed, not relayed', async () => {
    const { w } = await leasedDecision({ reply: 'task', verdict: 'complete', proposal: { ...SUBMIT, decision_id: 'dec-fixed' } });
    await w.sweepUntil(() => journalOf(w).some((i) => i.outcome !== null));
    expect(taskMutations(w).map((e) => [e.action, e.disposition])).toEqual([['submit', 'applied']]);
    // The submitted attempt runs to completion: a new event, a new turn, the same decision id.
    await w.sweepUntil(() => w.argusMessages().length === 2, 80);
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'consumed' || view(w).decisions.last?.outcome === 'relayed', 80);
    await sweeps(w, 4);
    expect(view(w).decisions.last).toMatchObject({ outcome: 'consumed', decision_id: 'dec-fixed' });
    expect(taskMutations(w)).toHaveLength(1);
    expect(journalOf(w).filter((i) => i.action === 'submit')).toHaveLength(1);
    expect(view(w).attempts_submitted).toBe(1);
  });
});

describe('no fresh verdict of its own, no relay', () => {
  it('a failed mission (mission_failed) with a submit proposal', async () => {
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'failed', proposal: SUBMIT });
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'rejected');
    expect(view(w).decisions.last).toMatchObject({ code: 'verdict_failed', kind: null });
    expect(view(w).decisions.reviewer_verdict).toBe('rejected');
    await nothingRelayed(w, taskId);
  });

  it('a blocked mission (a pending_question on the item) becomes NEEDS_YOU from Argus', async () => {
    const question = 'SIMULATED Reviewer: is a second attempt worth the GPU budget?';
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'blocked', question, proposal: SUBMIT });
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    const item = dispatchedItem(w);
    expect(view(w).pending_question).toMatchObject({ source: 'argus', key: expect.stringMatching(new RegExp(`^argus-${item.id}-\\d+$`)), text: question });
    await nothingRelayed(w, taskId);
    expect(view(w).attention).toBe('needs-you');
  });

  it('a proposal that names another event', async () => {
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'complete', proposal: { ...SUBMIT, event_key: 'attempt.someone-else' } });
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'rejected');
    expect(view(w).decisions.last!.code).toBe('proposal_other_event');
    await nothingRelayed(w, taskId);
  });

  it('a mission that never settles, with a proposal on disk and a verdict for another item: NEEDS_YOU unsettled past the deadline', async () => {
    let offsetMs = 0;
    const { w, taskId } = await leasedDecision(
      { reply: 'task', verdict: 'none', proposal: SUBMIT },
      { now: () => new Date(Date.now() + offsetMs), extra: { ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: '60', ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '10' } },
    );
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    const eventKey = view(w).decisions.event_key!;
    writeProposalFor(w, eventKey);
    // Another item's completion for this very event, written now: not this mission's verdict.
    editProject(w, (p) => p.journal.push(verdictEntry('mission_complete', 'a1b2c3d4e5f6', eventKey, Date.now() / 1000 + 1)));
    await sweeps(w, 6);
    expect(project(w).journal.some((e) => e.id === 'a1b2c3d4e5f6')).toBe(true);
    expect(view(w).decisions.in_flight).toBe('mission');
    expect(journalOf(w)).toEqual([]);

    offsetMs = 61_000;
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    expect(view(w).pending_question!.key).toMatch(/^unsettled-\d+$/);
    expect(view(w).pending_question!.source).toBe('argus');
    expect(view(w).decisions.last).toMatchObject({ outcome: 'unsettled' });
    await nothingRelayed(w, taskId);
  });

  it('the item own verdict for another event key', async () => {
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'none', proposal: SUBMIT });
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    const eventKey = view(w).decisions.event_key!;
    writeProposalFor(w, eventKey);
    const item = dispatchedItem(w);
    editProject(w, (p) => p.journal.push(verdictEntry('mission_complete', item.id, 'attempt.another-event', Date.now() / 1000 + 1)));
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'rejected');
    expect(view(w).decisions.last!.code).toBe('verdict_mismatch');
    await nothingRelayed(w, taskId);
  });

  it('the item own verdict for this event, but older than the wake', async () => {
    const { w, taskId } = await leasedDecision({ reply: 'task', verdict: 'none', proposal: SUBMIT });
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    const eventKey = view(w).decisions.event_key!;
    writeProposalFor(w, eventKey);
    const item = dispatchedItem(w);
    editProject(w, (p) => p.journal.push(verdictEntry('mission_complete', item.id, eventKey, Date.now() / 1000 - 3600)));
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'rejected');
    expect(view(w).decisions.last!.code).toBe('verdict_mismatch');
    await nothingRelayed(w, taskId);
  });
});
