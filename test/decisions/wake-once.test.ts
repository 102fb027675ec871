/**
 * One decision-worthy event, at most one model turn. A completed attempt wakes Argus exactly
 * once (one argus_message, model_calls{argus} = 1, one wake in the durable log, settled); a
 * remote blocker surfaces NEEDS_YOU exactly once and wakes no Argus turn at all; reading the
 * same revision again (sweeps, operator observes) while the mission runs or after it settled
 * gives no second turn and no action on the remote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { boundCampaign, docOf, envelopeKeyLines, journalOf, outboxOf, sweeps, taskMutations, toolCalls, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a completed attempt', () => {
  it('wakes Argus exactly once; re-reads while the mission runs and after it settled add no turn and no action', async () => {
    const w = await decisionWorld(scope);
    // The mission runs until the third argus_status read: the heartbeat must poll it while it runs
    // (counted reads, not a delay a loaded machine can outrun).
    w.writeScript({ '*': { reply: 'task', verdict: 'complete', settleAfterPolls: 3 } });
    const taskId = await boundCampaign(w);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.in_flight !== null || view(w).decisions.last !== null);
    expect(w.argusMessages()).toHaveLength(1);

    // The same revision, read again and again while the mission is in flight.
    expect(view(w).decisions.in_flight).not.toBeNull();
    const revision = w.sim.task(taskId)!.revision;
    for (let i = 0; i < 3; i++) expect((await w.supervisor.observe('c1')).ok).toBe(true);
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    expect(toolCalls(w, 'argus_status').length).toBeGreaterThan(1);
    // …and after it settled.
    await sweeps(w, 8);
    for (let i = 0; i < 3; i++) expect((await w.supervisor.observe('c1')).ok).toBe(true);
    expect(w.sim.task(taskId)!.revision).toBe(revision);

    const messages = w.argusMessages();
    expect(messages).toHaveLength(1);
    expect(await w.modelCalls('argus')).toBe(1);
    expect(await w.modelCalls('foreman')).toBe(0);
    // The turn was about this event: its key is the envelope's one EVENT_KEY line.
    const eventKey = view(w).decisions.last!.event_key;
    expect(eventKey).toEqual(expect.any(String));
    expect(envelopeKeyLines(messages[0]!.text, 'EVENT_KEY')).toEqual([`EVENT_KEY: ${eventKey}`]);

    // The durable record: one public ATTEMPT_COMPLETED, one Argus wake, settled as approved.
    expect(outboxOf(w, 'ATTEMPT_COMPLETED')).toHaveLength(1);
    const argusWakes = docOf(w).wake.requests.filter((r) => r.target === 'argus');
    expect(argusWakes).toHaveLength(1);
    expect(argusWakes[0]).toMatchObject({ eventClass: 'ATTEMPT_COMPLETED', reason: 'attempt_terminal', settled: { outcome: 'approved' } });
    // An observe proposal: nothing journaled, nothing sent to the remote.
    expect(journalOf(w)).toEqual([]);
    expect(taskMutations(w)).toEqual([]);
    expect(view(w).attention).toBe('idle');
  });
});

describe('a remote blocker', () => {
  it('surfaces NEEDS_YOU exactly once and wakes no Argus turn, however often the question is read', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    const taskId = await boundCampaign(w, 'blocker');
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    expect(w.sim.task(taskId)!.state).toBe('input-required');
    const q = view(w).pending_question!;
    expect(q.source).toBe('remote');

    await sweeps(w, 10);
    for (let i = 0; i < 3; i++) expect((await w.supervisor.observe('c1')).ok).toBe(true);

    expect(view(w).attention).toBe('needs-you');
    expect(view(w).pending_question).toEqual(q);
    expect(outboxOf(w, 'NEEDS_YOU')).toHaveLength(1);
    expect(w.supervisor.status().events.filter((e) => e.campaign_id === 'c1' && e.kind === 'NEEDS_YOU')).toHaveLength(1);
    expect(w.argusMessages()).toEqual([]);
    expect(await w.modelCalls('argus')).toBe(0);
    // Not even a status read: no mission was dispatched.
    expect(toolCalls(w).map((r) => r.tool)).toEqual(['argus_project_create']);
    expect(journalOf(w)).toEqual([]);
    expect(taskMutations(w)).toEqual([]);
  });
});
