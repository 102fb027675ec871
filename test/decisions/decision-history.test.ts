/**
 * The state history names Argus as the cause of what its decisions do (issue 20, item 3): a
 * mission bind is the operator's and ends with Argus's answer; a completed attempt wakes Argus
 * (the remote reading moves the attention to awaiting-review), and the settled decision moves it
 * back to idle, recorded with cause `argus` and the outcome. The
 * simulated Argus MCP server runs as a real child over stdio (decision-world.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, summaryOf } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('the history of a decided campaign', () => {
  it('records the wake as a remote reading and the settled decision as Argus’s', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'complete', proposal: null } });
    const [taskId] = w.sim.createTasks(1, 'training');
    expect((await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'train the model', remote_task_id: taskId! })).ok).toBe(true);
    expect((await w.act('c1', { action: 'mission' })).ok).toBe(true);
    await w.sweepUntil(() => summaryOf(w.supervisor, 'c1').decisions.last !== null && summaryOf(w.supervisor, 'c1').attention === 'idle');

    const answer = await w.supervisor.campaigns({ action: 'history', campaign_id: 'c1' });
    if (!answer.ok) throw new Error(answer.error.code);
    const history = (answer.value as { history: { from: { attention: string } | null; to: { attention: string }; cause: string; detail: string }[] }).history;
    expect(history.map((e) => [e.from?.attention ?? null, e.to.attention, e.cause, e.detail])).toEqual([
      [null, 'idle', 'operator', 'create'],
      ['idle', 'binding', 'operator', 'mission'],
      ['binding', 'idle', 'argus', 'mission bind answered'],
      ['idle', 'awaiting-review', 'remote', expect.stringMatching(/^read: .*ATTEMPT_COMPLETED/)],
      ['awaiting-review', 'idle', 'argus', 'decision rejected'],
    ]);
  });
});
