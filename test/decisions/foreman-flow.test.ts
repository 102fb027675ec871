/**
 * Foreman is a sentinel, never an authority. With ARGUS_SUPERVISOR_FOREMAN_ENABLED=1 and the
 * SIMULATED Foreman shim (simulator/foreman/fake_foreman.py) run as a real python child:
 * - CONTINUE on pure evidence (an artifact while the attempt still runs: EVIDENCE_READY, no
 *   completed attempt) runs Foreman once and wakes nobody;
 * - FINISH alone completes nothing and relays nothing, on pure evidence and on a completed
 *   attempt whose own Reviewer did not approve (the lease held all along);
 * - a directive that asks for Argus (STEER_WORKER) wakes exactly one turn, and Foreman's hint
 *   reaches Argus inside the untrusted block only.
 * The simulator shows artifacts only with the completion, so pure evidence comes from a
 * hand-written remote whose frames the test sets (scripted-remote.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { bindTask, boundCampaign, docOf, evidenceWorld, journalOf, outboxOf, publishCheckpoint, splitEnvelope, sweeps, taskMutations, toolCalls, view } from './flow-helpers.js';
import { startScriptedRemote } from './scripted-remote.js';

const scope = createScope();
afterEach(() => scope.dispose());

const SUBMIT = { decision_id: 'dec-$ITEM_ID', event_key: '$EVENT_KEY', kind: 'submit', text: 'Attempt 2: lower the learning rate.', reason: 'Foreman said finish', evidence_refs: [] };

const scriptedWorld = (directive: Record<string, unknown>) => evidenceWorld(scope, directive);

describe('Foreman on pure evidence', () => {
  it('CONTINUE: Foreman runs once, nobody is woken, nothing is written to the remote', async () => {
    const { w, remote, taskId } = await scriptedWorld({ action: 'CONTINUE', reason: 'the run is healthy' });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => view(w).decisions.last?.foreman_directive === 'CONTINUE');
    await sweeps(w, 6);

    expect(view(w).decisions.last).toMatchObject({ outcome: 'assessed', foreman_directive: 'CONTINUE' });
    expect(await w.modelCalls('foreman')).toBe(1);
    expect(w.foremanRecords()).toHaveLength(1);
    // The observation Foreman read was about this evidence, and the attempt was still running.
    const observation = JSON.parse(w.foremanRecords()[0]!.stdin) as { active_workers: unknown[]; recent_events: { event_type: string }[]; changed_files: string[] };
    expect(observation.active_workers).toHaveLength(1);
    expect(observation.recent_events.map((e) => e.event_type)).toEqual(['EVIDENCE_READY']);
    expect(observation.changed_files).toEqual(['ckpt-500']);
    expect(await w.modelCalls('argus')).toBe(0);
    expect(w.argusMessages()).toEqual([]);
    expect(toolCalls(w).map((r) => r.tool)).toEqual(['argus_project_create']);
    expect(view(w).attention).toBe('idle');
    expect(remote.mutations()).toEqual([]);
  });

  it('FINISH alone: no Argus turn, no mission completion, nothing relayed', async () => {
    const { w, remote, taskId } = await scriptedWorld({ action: 'FINISH', reason: 'looks done to me' });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => view(w).decisions.last?.foreman_directive === 'FINISH');
    await sweeps(w, 6);

    expect(view(w).decisions.last).toMatchObject({ outcome: 'assessed', foreman_directive: 'FINISH', decision_id: null });
    expect(await w.modelCalls('foreman')).toBe(1);
    expect(w.argusMessages()).toEqual([]);
    expect(outboxOf(w, 'MISSION_COMPLETE')).toEqual([]);
    expect(view(w).state).not.toMatch(/complete|closed/);
    expect(view(w).attention).toBe('idle');
    expect(journalOf(w)).toEqual([]);
    expect(remote.mutations()).toEqual([]);
  });
});

describe('Foreman on a completed attempt', () => {
  it('FINISH with a lease held: Argus decides, its Reviewer rejects, nothing is relayed and nothing completes', async () => {
    const w = await decisionWorld(scope, { foreman: true });
    w.writeForemanScript({ action: 'FINISH', reason: 'all attempts exited 0' });
    w.writeScript({ '*': { reply: 'task', verdict: 'failed', proposal: SUBMIT } });
    await boundCampaign(w);
    await sweeps(w, 1);
    const claimed = await w.act('c1', { action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'rejected');
    await sweeps(w, 6);

    expect(await w.modelCalls('foreman')).toBe(1);
    // The completed attempt wanted Argus: one turn, whatever Foreman said.
    expect(w.argusMessages()).toHaveLength(1);
    expect(view(w).lease.mode).toBe('controller');
    expect(view(w).decisions.reviewer_verdict).toBe('rejected');
    expect(journalOf(w)).toEqual([]);
    expect(taskMutations(w)).toEqual([]);
    expect(outboxOf(w, 'MISSION_COMPLETE')).toEqual([]);
    expect(view(w).attempts_submitted).toBe(0);
  });
});

describe('a Foreman that cannot answer blocks nothing', () => {
  it('a crashing Foreman on a completed attempt: Argus is still woken exactly once', async () => {
    const w = await decisionWorld(scope, { foreman: true });
    w.writeForemanScript({ exitCode: 3, stdout: 'Traceback (most recent call last): SIMULATED crash' });
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    await boundCampaign(w);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    await sweeps(w, 4);
    expect(w.foremanRecords()).toHaveLength(1);
    expect(w.argusMessages()).toHaveLength(1);
    expect(splitEnvelope(w.argusMessages()[0]!.text).block).toMatch(/^foreman_hint: \(none\)$/m);
  });

  it('no Foreman interpreter at all: the completed attempt wakes Argus once, no Foreman child', async () => {
    const w = await decisionWorld(scope, { foreman: true, extra: { ARGUS_SUPERVISOR_FOREMAN_PYTHON: '/nonexistent/python3' } });
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    await boundCampaign(w);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    await sweeps(w, 4);
    expect(w.foremanRecords()).toEqual([]);
    expect(await w.modelCalls('foreman')).toBe(0);
    expect(w.argusMessages()).toHaveLength(1);
  });
});

describe('a Foreman directive that asks for Argus', () => {
  it('ESCALATE on evidence, Argus available: one Argus turn, not a NEEDS_YOU', async () => {
    const { w, remote, taskId } = await scriptedWorld({ action: 'ESCALATE', reason: 'escalate-hint-19c0 the loss curve looks wrong' });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    await sweeps(w, 4);
    expect(w.argusMessages()).toHaveLength(1);
    expect(splitEnvelope(w.argusMessages()[0]!.text).block).toContain('escalate-hint-19c0');
    expect(view(w).attention).toBe('idle');
  });

  it('STEER_WORKER on evidence wakes exactly one turn, the hint inside the untrusted block', async () => {
    const hint = 'steer-hint-7f3a lower the learning rate before the next checkpoint';
    const { w, remote, taskId } = await scriptedWorld({ action: 'STEER_WORKER', reason: hint });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => w.argusMessages().length > 0);
    await w.sweepUntil(() => view(w).attention === 'idle');
    await sweeps(w, 6);

    expect(await w.modelCalls('foreman')).toBe(1);
    expect(await w.modelCalls('argus')).toBe(1);
    const messages = w.argusMessages();
    expect(messages).toHaveLength(1);
    const { outside, block } = splitEnvelope(messages[0]!.text);
    expect(block).toMatch(/^foreman_hint: .*STEER_WORKER/m);
    expect(block).toContain(hint);
    expect(outside).not.toContain('steer-hint-7f3a');
    expect(outside).not.toContain('STEER_WORKER');
  });
});

describe('Foreman off, evidence arriving (issue 19, gap 16)', () => {
  it('a Foreman-only evidence wake wakes nobody: no Argus turn, no Foreman child; a completion then wakes Argus once', async () => {
    const token = canary('evidence-off-token');
    const remote = scope.defer(await startScriptedRemote({ token }), (r) => r.close());
    const w = await decisionWorld(scope, { url: remote.base, token });
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    const taskId = remote.addTask({ state: 'working', stage: 'train', statusText: 'step 100/1000 loss 2.1' });
    await bindTask(w, taskId);
    await sweeps(w, 2);

    publishCheckpoint(remote, taskId);
    await sweeps(w, 8);
    // The evidence was read and recorded as Foreman's (its only audience), and nobody ran for it.
    expect(docOf(w).wake.requests.map((r) => [r.target, r.dedupeKey])).toEqual([['foreman', `artifact:${taskId}:ckpt-500`]]);
    expect(w.argusMessages()).toEqual([]);
    expect(await w.modelCalls('argus')).toBe(0);
    expect(await w.modelCalls('foreman')).toBe(0);
    expect(w.foremanRecords()).toEqual([]);
    expect(view(w).attention).toBe('idle');
    expect(view(w).decisions.last).toBeNull();

    // The guard is about evidence only: the attempt's completion still wakes Argus, once.
    remote.set(taskId, { state: 'completed', stage: 'train', statusText: 'done', artifacts: [{ id: 'ckpt-500', name: 'checkpoint-500.pt' }] });
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    await sweeps(w, 2);
    expect(w.argusMessages()).toHaveLength(1);
    expect(splitEnvelope(w.argusMessages()[0]!.text).block).toMatch(/^event_class: ATTEMPT_COMPLETED$/m);
    expect(await w.modelCalls('foreman')).toBe(0);
  });
});
