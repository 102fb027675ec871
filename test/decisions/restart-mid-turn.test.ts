/**
 * A turn in flight when the supervisor goes away is never replayed for the same event: the
 * restarted campaign shows NEEDS_YOU with an "interrupted" receipt, the wake log records it,
 * and no second argus_message is sent — not at restore, not on any later tick.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, summaryOf } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a restart while an Argus turn is in flight', () => {
  it('restores in NEEDS_YOU "interrupted", records it in the wake log, and never sends the turn again', async () => {
    const first = await decisionWorld(scope);
    // The Manager takes far longer than this test: the turn is still in flight when we stop.
    first.writeScript({ '*': { reply: 'task', verdict: 'complete', hangMs: 60_000 } });
    const [taskId] = first.sim.createTasks(1, 'training');
    const created = await first.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'train', remote_task_id: taskId! });
    expect(created.ok).toBe(true);
    expect((await first.act('c1', { action: 'mission' })).ok).toBe(true);
    await first.sweepUntil(() => summaryOf(first.supervisor, 'c1').decisions.in_flight === 'turn');
    const eventKey = summaryOf(first.supervisor, 'c1').decisions.event_key;
    expect(eventKey).not.toBeNull();
    // The message left (the fake recorded the call before it started to hang).
    await first.sweepUntil(() => first.argusMessages().length === 1);
    await first.supervisor.stop();

    const second = await decisionWorld(scope, { stateRoot: first.stateRoot, apiKey: first.apiKey, token: first.token });
    const view = summaryOf(second.supervisor, 'c1');
    expect(view.attention).toBe('needs-you');
    expect(view.pending_question).toMatchObject({ source: 'argus' });
    expect(view.pending_question!.key).toMatch(/^interrupted-\d+$/);
    expect(view.decisions.last).toMatchObject({ outcome: 'interrupted', code: 'restart_interrupted', event_key: eventKey });

    const doc = JSON.parse(readFileSync(path.join(first.stateRoot, 'campaigns', 'c1.json'), 'utf8')) as {
      wake: { requests: { target: string; dedupeKey: string; settled?: { outcome: string } }[] };
      outbox: { events: { kind: string; data: { receipt?: string } }[] };
    };
    const argusWakes = doc.wake.requests.filter((r) => r.target === 'argus');
    expect(argusWakes.at(-1)!.settled).toMatchObject({ outcome: 'interrupted' });
    expect(doc.outbox.events.filter((e) => e.kind === 'NEEDS_YOU' && e.data.receipt === 'interrupted')).toHaveLength(1);

    // Many ticks later: still one argus_message in the fake's record (it shares the Argus home).
    for (let i = 0; i < 6; i++) await second.supervisor.sweep();
    expect(second.argusMessages()).toHaveLength(1);
    expect(await second.modelCalls('argus')).toBe(0);
    expect(summaryOf(second.supervisor, 'c1').attention).toBe('needs-you');
  });
});
