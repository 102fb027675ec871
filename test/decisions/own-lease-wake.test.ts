/**
 * Regression: the operator's own lease calls once woke Argus (reduceLease). Issue 9 item 3:
 * only a completed attempt, a blocker, a Foreman directive that asks for Argus, or an operator
 * answer may wake it. Here a bound campaign with nothing
 * decision-worthy happening: the operator claims, then releases; the next read sees "our live
 * lease went" (lease_released), which must wake nothing: no argus_message, no model call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, summaryOf } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe("the operator's own lease calls are not decision-worthy", () => {
  it('a release by the operator wakes no Argus turn', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'chat' } });
    // `steady` never completes: nothing decision-worthy happens on the remote.
    const [taskId] = w.sim.createTasks(1, 'steady');
    expect((await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'train', remote_task_id: taskId! })).ok).toBe(true);
    expect((await w.act('c1', { action: 'mission' })).ok).toBe(true);
    const claimed = await w.act('c1', { action: 'claim' });
    expect(claimed.ok).toBe(true);
    for (let i = 0; i < 3; i++) await w.supervisor.sweep();
    const epoch = (claimed as { value: { lease: { epoch: number } } }).value.lease.epoch;
    expect((await w.act('c1', { action: 'release', epoch })).ok).toBe(true);
    for (let i = 0; i < 5; i++) {
      await w.supervisor.sweep();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(summaryOf(w.supervisor, 'c1').lease.mode).toBe('observer');
    expect(w.argusMessages().map((m) => /^EVENT_KEY: (\S+)$/m.exec(m.text)?.[1])).toEqual([]);
    expect(await w.modelCalls('argus')).toBe(0);
  });
});
