/**
 * What a person sees and what wakes Argus: one ATTEMPT_COMPLETED per terminal attempt, one
 * MISSION_COMPLETE per mission, NEEDS_YOU with a bounded, sanitized question, and nothing
 * twice — not on re-reads of the same revision, not after a restart on the same state root.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCKER_QUESTION, startSimulator, type ScenarioName } from '../../simulator/index.js';
import { QUESTION_MAX_CHARS } from '../../services/reducer/reducer-text.js';
import {
  attach,
  createScope,
  eventsOf,
  kindsOf,
  metricValue,
  observe,
  observeFailing,
  readDocument,
  startTestSupervisor,
  storeWrites,
  summaryOf,
  tempStateRoot,
} from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

async function scenario(name: ScenarioName) {
  const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 2 }), (s) => s.close());
  const stateRoot = await tempStateRoot(scope);
  const started = await startTestSupervisor(scope, { stateRoot, url: sim.url });
  const [taskId] = sim.createTasks(1, name);
  await attach(started.supervisor, 'c1', taskId!);
  return { sim, stateRoot, taskId: taskId!, ...started };
}

describe('a terminal attempt', () => {
  it('completed: exactly one ATTEMPT_COMPLETED and one Argus wake, then silence', async () => {
    const { supervisor, sim, taskId, wakes } = await scenario('training');
    // P=2: poll 7 completes.
    await observe(supervisor, 'c1', 7);
    expect(sim.task(taskId)!.state).toBe('completed');
    const done = eventsOf(supervisor, 'c1').filter((e) => e.kind === 'ATTEMPT_COMPLETED');
    expect(done).toHaveLength(1);
    expect(done[0]!.data).toMatchObject({ outcome: 'completed', attempt: 1 });
    expect(wakes.argus).toHaveLength(1);
    expect(wakes.argus[0]!.wake).toMatchObject({ target: 'argus', eventClass: 'ATTEMPT_COMPLETED', eventId: done[0]!.id });
    // The evaluation artifact is evidence for Foreman, never a public event.
    expect(wakes.foreman.map((w) => w.wake.eventClass)).toEqual(['EVIDENCE_READY']);
    // No Argus runtime is configured here: the wake is recorded, no turn runs, attention stays idle.
    expect(summaryOf(supervisor, 'c1')).toMatchObject({ attention: 'idle', remote: { state: 'completed' }, decisions: { in_flight: null, last: null } });

    const writes = await storeWrites(supervisor);
    const feed = supervisor.status().events.length;
    await observe(supervisor, 'c1', 10);
    for (let i = 0; i < 5; i++) await supervisor.sweep();
    expect(supervisor.status().events).toHaveLength(feed);
    expect(wakes.argus).toHaveLength(1);
    expect(wakes.foreman).toHaveLength(1);
    expect(await storeWrites(supervisor)).toBe(writes);
    // One wake request was recorded; the test's counting handler calls no model, so no model call is counted.
    expect(await metricValue(supervisor, 'argus_supervisor_wake_requests_total', { target: 'argus' })).toBe(1);
    expect(await metricValue(supervisor, 'argus_supervisor_wake_requests_total', { target: 'foreman' })).toBe(1);
    expect(await metricValue(supervisor, 'argus_supervisor_model_calls_total')).toBe(0);
    expect(await metricValue(supervisor, 'argus_supervisor_public_events_total', { kind: 'ATTEMPT_COMPLETED' })).toBe(1);
  });

  it('failed: one ATTEMPT_COMPLETED with the failed outcome and one wake, never repeated', async () => {
    const { supervisor, sim, taskId, wakes } = await scenario('failed');
    await observe(supervisor, 'c1', 12);
    expect(sim.task(taskId)!.state).toBe('failed');
    expect(kindsOf(supervisor, 'c1')).toEqual(['STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);
    const [, done] = eventsOf(supervisor, 'c1');
    expect(done!.summary).toBe('Attempt 1 failed');
    expect(done!.data).toMatchObject({ outcome: 'failed' });
    // The remote's error text (stdout) is evidence, not a public summary.
    expect(JSON.stringify(done)).not.toMatch(/CUDA|out of memory|step/);
    expect(wakes.argus).toHaveLength(1);
    expect(wakes.argus[0]!.wake.eventClass).toBe('ATTEMPT_COMPLETED');
  });

  it('mission: MISSION_COMPLETE once, one Argus wake for the tick', async () => {
    const { supervisor, stateRoot, wakes } = await scenario('mission');
    await observe(supervisor, 'c1', 15);
    expect(kindsOf(supervisor, 'c1')).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED', 'MISSION_COMPLETE']);
    expect(wakes.argus).toHaveLength(1);
    const doc = await readDocument(stateRoot, 'c1');
    expect(doc.wake.totals).toEqual({ argus: 1, foreman: 1 });
    expect(doc.outbox.events.filter((e) => e.kind === 'MISSION_COMPLETE')).toHaveLength(1);
  });
});

describe('a remote blocker', () => {
  it('raises NEEDS_YOU with the bounded, sanitized question; a fenced answer (lease first) reaches the remote and clears it', async () => {
    const { supervisor, sim, taskId, wakes } = await scenario('blocker');
    // P=2: poll 2P+1 = 5 reaches input-required (queued 1 + prepare 2 + train 2); it then waits for an answer.
    await observe(supervisor, 'c1', 9);
    expect(sim.task(taskId)!.state).toBe('input-required');
    expect(kindsOf(supervisor, 'c1')).toEqual(['STAGE_TRANSITION', 'NEEDS_YOU']);
    const needsYou = eventsOf(supervisor, 'c1')[1]!;
    expect(wakes.argus).toHaveLength(1);
    expect(wakes.argus[0]!.wake).toMatchObject({ eventClass: 'BLOCKED', eventId: needsYou.id });

    const summary = summaryOf(supervisor, 'c1');
    expect(summary.attention).toBe('needs-you');
    const pending = summary.pending_question!;
    // The view names the question (`key`), so an answer can say which one it answers.
    expect(pending.key.length).toBeGreaterThan(0);
    const question = pending.text;
    expect(question.length).toBeGreaterThan(0);
    expect(question.length).toBeLessThanOrEqual(QUESTION_MAX_CHARS);
    expect(question).toBe(BLOCKER_QUESTION);
    expect(question).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
    expect(needsYou.data).toMatchObject({ question, reason: 'input-required' });

    // An answer that names another question is refused by the chart's answerMatchesQuestion.
    const stale = await supervisor.campaignAction({ campaign_id: 'c1', action: 'answer', text: 'Yes.', question_key: `${pending.key}-old` });
    expect(stale).toMatchObject({ ok: false, error: { code: 'question_stale', message: 'That question is no longer pending.' } });
    expect(summaryOf(supervisor, 'c1').attention).toBe('needs-you');
    // The remote's own question is answered by a fenced mutation: without the lease, refused, nothing sent.
    const received = () => sim.stats().requests;
    const before = JSON.stringify(received());
    const unleased = await supervisor.campaignAction({ campaign_id: 'c1', action: 'answer', text: 'Yes, lower it to 1e-4.', question_key: pending.key });
    expect(unleased).toMatchObject({ ok: false, error: { code: 'lease_required' } });
    expect((unleased as { error: { message: string } }).error.message).toMatch(/claim the controller lease first/);
    expect(JSON.stringify(received())).toBe(before);
    expect(summaryOf(supervisor, 'c1').attention).toBe('needs-you');

    const claimed = await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const answered = await supervisor.campaignAction({ campaign_id: 'c1', action: 'answer', text: 'Yes, lower it to 1e-4.', question_key: pending.key });
    expect(answered, JSON.stringify(answered)).toMatchObject({ ok: true, value: { outcome: 'applied' } });
    const after = summaryOf(supervisor, 'c1');
    expect(after.pending_question).toBeNull();
    expect(after.attention).toBe('idle');
    // The answer reached the remote (its task works again); it is not an Argus wake, and no new public event.
    expect(sim.task(taskId)!.state).toBe('working');
    expect(wakes.argus).toHaveLength(1);
    expect(kindsOf(supervisor, 'c1')).toEqual(['STAGE_TRANSITION', 'NEEDS_YOU']);

    // A second answer has nothing to answer; the remote's question is never raised again.
    const again = await supervisor.campaignAction({ campaign_id: 'c1', action: 'answer', text: 'again' });
    expect(again).toMatchObject({ ok: false, error: { code: 'no_pending_question' } });
    await observe(supervisor, 'c1', 3);
    expect(kindsOf(supervisor, 'c1').filter((k) => k === 'NEEDS_YOU')).toHaveLength(1);
    expect(summaryOf(supervisor, 'c1').pending_question).toBeNull();
  });
});

describe('a duplicate remote revision', () => {
  it('duplicates nothing, across re-reads and a restart on the same state root', async () => {
    const { supervisor, sim, stateRoot, taskId } = await scenario('training');
    await observe(supervisor, 'c1', 7);
    const settled = await readDocument(stateRoot, 'c1');
    const revision = sim.task(taskId)!.revision;
    expect(settled.outbox.events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);

    const writes = await storeWrites(supervisor);
    await observe(supervisor, 'c1', 25);
    expect(sim.task(taskId)!.revision).toBe(revision); // truly the same revision every time
    expect(await storeWrites(supervisor)).toBe(writes);
    expect(await readDocument(stateRoot, 'c1')).toEqual(settled);
    await supervisor.stop();

    // A second supervisor on the same root: same outbox, nothing new, ids continue.
    const second = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    expect(eventsOf(second.supervisor, 'c1').map((e) => e.id)).toEqual(['c1:1', 'c1:2', 'c1:3']);
    await observe(second.supervisor, 'c1', 5);
    await second.supervisor.sweep();
    expect(await storeWrites(second.supervisor)).toBe(0);
    expect(second.wakes.argus).toHaveLength(0);
    expect(await readDocument(stateRoot, 'c1')).toEqual(settled);

    // The next event on this campaign takes the next id (a CRITICAL after three failed reads).
    sim.injectFaults({ kind: 'http-5xx', count: 3, methods: ['GetTask'] });
    expect(await observeFailing(second.supervisor, 'c1', 3)).toEqual(['remote_http_status', 'remote_http_status', 'remote_http_status']);
    expect(eventsOf(second.supervisor, 'c1').map((e) => `${e.id} ${e.kind}`)).toEqual([
      'c1:1 STAGE_TRANSITION',
      'c1:2 STAGE_TRANSITION',
      'c1:3 ATTEMPT_COMPLETED',
      'c1:4 CRITICAL',
    ]);
  });
});
