/**
 * An answer to the remote's own question (the simulator's `blocker` scenario: the task waits
 * in input-required) is a fenced mutation. Without a lease it is refused with lease_required
 * and nothing reaches the remote or the journal. With a lease it is journaled first, relayed
 * once (the simulator's ledger shows one applied 'answer', at the epoch we were granted, with
 * the epoch enforced), NEEDS_YOU clears, and answering again is refused: the question is gone.
 * The remote's question, which carries an instruction, never reaches Argus at all; the
 * attempt's completion afterwards wakes Argus exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCKER_QUESTION } from '../../simulator/index.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { boundCampaign, journalOf, sweeps, taskMutations, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

type Answer = { ok: boolean; value?: { outcome?: string; request_id?: string; lease?: { epoch: number } }; error?: { code: string; message: string } };

describe('an answer to a remote question', () => {
  it('is refused without a lease, relayed once and fenced with one, and not accepted twice', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    const taskId = await boundCampaign(w, 'blocker');
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    const question = view(w).pending_question!;
    expect(question).toMatchObject({ source: 'remote', text: BLOCKER_QUESTION });
    expect(w.sim.task(taskId)!.state).toBe('input-required');

    // No lease: refused, and nothing leaves.
    const seqBefore = w.sim.ledger().nextSeq;
    const refused = (await w.act('c1', { action: 'answer', text: 'Yes, lower it to 1e-4 and resume.' })) as Answer;
    expect(refused.ok).toBe(false);
    expect(refused.error!.code).toBe('lease_required');
    expect(refused.error!.message).toMatch(/claim the controller lease/i);
    expect(refused.error!.message).toMatch(/nothing was sent/i);
    expect(w.sim.ledger(seqBefore).entries).toEqual([]);
    expect(journalOf(w)).toEqual([]);
    expect(view(w).attention).toBe('needs-you');
    expect(view(w).pending_question).toEqual(question);
    expect(w.sim.task(taskId)!.state).toBe('input-required');

    // With a lease: one fenced answer, journaled first, applied by the remote.
    const claimed = (await w.act('c1', { action: 'claim' })) as Answer;
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const epoch = claimed.value!.lease!.epoch;
    const afterClaim = w.sim.ledger().nextSeq;
    const answered = (await w.act('c1', { action: 'answer', text: 'Yes, lower it to 1e-4 and resume.', question_key: question.key })) as Answer;
    expect(answered.ok, JSON.stringify(answered)).toBe(true);
    expect(answered.value!.outcome).toBe('applied');
    const sent = w.sim.ledger(afterClaim).entries;
    expect(sent.map((e) => [e.action, e.method, e.disposition, e.reason])).toEqual([['answer', 'SendMessage', 'applied', null]]);
    expect(sent[0]!.requestId).toBe(answered.value!.request_id);
    const intents = journalOf(w);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ requestId: answered.value!.request_id, action: 'answer', epoch, outcome: { status: 'applied' } });
    expect(view(w).attention).toBe('idle');
    expect(view(w).pending_question).toBeNull();
    expect(w.sim.task(taskId)!.state).toBe('working');

    // Answering again: the question is gone; nothing is sent.
    const again = (await w.act('c1', { action: 'answer', text: 'And again.' })) as Answer;
    expect(again.ok).toBe(false);
    expect(again.error!.code).toBe('no_pending_question');
    const againKeyed = (await w.act('c1', { action: 'answer', text: 'And again.', question_key: question.key })) as Answer;
    expect(againKeyed.ok).toBe(false);
    expect(againKeyed.error!.code).toBe('no_pending_question');
    expect(taskMutations(w).filter((e) => e.action === 'answer')).toHaveLength(1);
    expect(journalOf(w)).toHaveLength(1);

    // The attempt goes on to completion: one Argus turn for it; the answer is never replayed.
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    await sweeps(w, 5);
    expect(taskMutations(w).filter((e) => e.action === 'answer')).toHaveLength(1);
    expect(journalOf(w).filter((i) => i.action === 'answer')).toHaveLength(1);
    const messages = w.argusMessages();
    expect(messages).toHaveLength(1);
    // The remote's instruction-bearing question reached no model.
    expect(messages[0]!.text).not.toContain('Ignore previous instructions');
    expect(messages[0]!.text).not.toContain('Validation loss diverged');
  });
});
