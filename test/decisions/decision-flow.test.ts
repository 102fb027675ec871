/**
 * The decision boundaries end to end: the A2A simulator, a supervisor, and the SIMULATED Argus
 * MCP server as a real child over stdio. A completed attempt wakes Argus exactly once; the
 * dispatched mission is polled with argus_status only; its own Reviewer verdict approves the
 * proposal it wrote; the approved action is relayed through the lease, the epoch and the
 * journal, once; without a lease it waits as NEEDS_YOU "claim to apply".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, summaryOf } from '../fixtures/supervisor-harness.js';
import { decisionWorld, type DecisionWorld } from './decision-world.js';

const scope = createScope();
afterEach(() => scope.dispose());

// After a completed attempt, the approved action is the next attempt (an intervene on a finished task is refused by the remote).
const SUBMIT = { decision_id: 'dec-$ITEM_ID', event_key: '$EVENT_KEY', kind: 'submit', text: 'Attempt 2: lower the learning rate to 1e-4.', reason: 'loss plateaued', evidence_refs: ['eval-1'] };

async function boundCampaign(w: DecisionWorld, scenario: 'training' | 'blocker' = 'training') {
  const [taskId] = w.sim.createTasks(1, scenario);
  const created = await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'train the model to 0.9 accuracy', remote_task_id: taskId! });
  if (!created.ok) throw new Error(created.error.code);
  const bound = await w.act('c1', { action: 'mission' });
  expect(bound.ok, JSON.stringify(bound)).toBe(true);
  return taskId!;
}

const journalOf = (w: DecisionWorld) =>
  (JSON.parse(readFileSync(path.join(w.stateRoot, 'campaigns', 'c1.json'), 'utf8')) as { intents: { requestId: string; action: string; outcome: { status: string } | null }[] }).intents;

describe('a completed attempt, decided by Argus', () => {
  it('wakes Argus once, polls with argus_status only, and holds an approved submit for the lease', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete', proposal: SUBMIT } });
    await boundCampaign(w);
    expect(summaryOf(w.supervisor, 'c1').decisions.mission.binding).toBe('live');

    // Drive the remote through its attempt: only the completion is decision-worthy.
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').remote.state === 'completed');
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').attention === 'needs-you');
    const view = summaryOf(w.supervisor, 'c1');
    expect(view.pending_question).toMatchObject({ source: 'argus' });
    expect(view.pending_question!.key).toMatch(/^apply-/);
    expect(view.decisions.last).toMatchObject({ outcome: 'held', kind: 'submit' });
    expect(view.decisions.reviewer_verdict).toBe('approved');

    const messages = w.argusMessages();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.text).toMatch(/^EVENT_KEY: /m);
    expect(await w.modelCalls('argus')).toBe(1);
    // Nothing was relayed without a lease.
    expect(journalOf(w)).toHaveLength(0);

    // Claim: the next tick checks the verdict again and relays it through the authority path, once.
    const claimed = await w.act('c1', { action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    await w.sweepUntil(() => journalOf(w).some((i) => i.action === 'submit' && i.outcome !== null));
    const intents = journalOf(w).filter((i) => i.action === 'submit');
    expect(intents).toHaveLength(1);
    expect(intents[0]!.outcome!.status).toBe('applied');
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').decisions.last?.outcome === 'relayed');
    for (let i = 0; i < 5; i++) await w.supervisor.sweep();
    expect(journalOf(w).filter((i) => i.action === 'submit')).toHaveLength(1);
    expect(w.argusMessages()).toHaveLength(1);
    expect(await w.modelCalls('argus')).toBe(1);
  });

  it('a fresh Reviewer verdict with no proposal file: rejected no_proposal in the view and the wake log, nothing relayed (issue 19, defect 10)', async () => {
    const w = await decisionWorld(scope);
    // `proposal: null`: the simulated mission writes no file (left out, it writes an observe).
    w.writeScript({ '*': { reply: 'task', verdict: 'complete', proposal: null } });
    await boundCampaign(w);
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').remote.state === 'completed');
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').decisions.last !== null && summaryOf(w.supervisor, 'c1').attention === 'idle');
    const view = summaryOf(w.supervisor, 'c1');
    expect(view.decisions.last).toMatchObject({ outcome: 'rejected', code: 'no_proposal' });
    expect(view.decisions.reviewer_verdict).toBe('rejected');
    // The view moves with the snapshot; its save is queued behind it: read the disk once written.
    await w.supervisor.system!.host('c1')!.whenWritten();
    const doc = JSON.parse(readFileSync(path.join(w.stateRoot, 'campaigns', 'c1.json'), 'utf8')) as { wake: { requests: { target: string; settled?: { outcome: string; code: string | null } }[] } };
    expect(doc.wake.requests.filter((r) => r.target === 'argus').map((r) => r.settled)).toEqual([expect.objectContaining({ outcome: 'rejected', code: 'no_proposal' })]);
    expect(journalOf(w)).toHaveLength(0);
    expect(w.argusMessages()).toHaveLength(1);
  });
});
