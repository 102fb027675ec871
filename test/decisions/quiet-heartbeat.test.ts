/**
 * Nothing routine wakes a model, and nothing routine writes. Against the real simulator, the supervisor and the SIMULATED
 * Argus (a real stdio child) and Foreman (a real python child): an unchanged heartbeat reads
 * the remote once and does nothing else (no model call, no store write, the document byte for
 * byte the same), routine stdout (the `steady` scenario: step, loss, cursor, revision and
 * status text move on every poll) wakes nobody, and Argus's status tool is only ever asked
 * about a mission we dispatched (then once per heartbeat at most, still writing nothing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, metricValue, storeWrites, ticks } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { boundCampaign, docText, sweeps, toolCalls, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

const wakeRequests = (w: Awaited<ReturnType<typeof decisionWorld>>) => metricValue(w.supervisor, 'argus_supervisor_wake_requests_total');

describe('routine progress wakes nothing', () => {
  it('steady stdout: 20 noisy reads, no model call, no wake, no Argus tool call, no write', async () => {
    const w = await decisionWorld(scope, { foreman: true });
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    const taskId = await boundCampaign(w, 'steady');
    // The first reads are material (first observation, submitted → working); the rest is noise.
    await w.sweepUntil(() => view(w).remote.state === 'working');
    await sweeps(w, 1);
    const writes = await storeWrites(w.supervisor);
    const bytes = docText(w);
    const unchanged = await ticks(w.supervisor, 'unchanged');
    const polls = w.sim.task(taskId)!.polls;
    const revision = w.sim.task(taskId)!.revision;
    const calls = toolCalls(w).length;

    await sweeps(w, 20);
    // The remote really was read 20 times, and really did move every time.
    expect(w.sim.task(taskId)!.polls - polls).toBe(20);
    expect(w.sim.task(taskId)!.revision - revision).toBe(20);
    expect(await ticks(w.supervisor, 'unchanged')).toBe(unchanged + 20);
    expect(await ticks(w.supervisor, 'changed')).toBeGreaterThan(0);
    expect(await storeWrites(w.supervisor)).toBe(writes);
    expect(docText(w)).toBe(bytes);

    expect(await w.modelCalls('argus')).toBe(0);
    expect(await w.modelCalls('foreman')).toBe(0);
    expect(await wakeRequests(w)).toBe(0);
    expect(w.foremanRecords()).toEqual([]);
    // The only Argus call ever made was the binding; no argus_status without a mission.
    expect(toolCalls(w).length).toBe(calls);
    expect(toolCalls(w).map((r) => r.tool)).toEqual(['argus_project_create']);
    expect(view(w).attention).toBe('idle');
    expect(view(w).decisions.in_flight).toBeNull();
  });
});

describe('an unchanged heartbeat after a decision settled', () => {
  it('sweeps and observes of the same revision call no model, no Argus tool, and write nothing', async () => {
    const w = await decisionWorld(scope);
    // The mission settles at once with the default proposal (observe): nothing to relay.
    w.writeScript({ '*': { reply: 'task', verdict: 'complete' } });
    const taskId = await boundCampaign(w);
    await w.sweepUntil(() => view(w).remote.state === 'completed');
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved');
    expect(view(w).attention).toBe('idle');
    expect(await w.modelCalls('argus')).toBe(1);
    await sweeps(w, 1);

    const writes = await storeWrites(w.supervisor);
    const bytes = docText(w);
    const unchanged = await ticks(w.supervisor, 'unchanged');
    const calls = toolCalls(w);
    const reads = w.sim.stats().requests['GetTask'] ?? 0;
    const revision = w.sim.task(taskId)!.revision;

    await sweeps(w, 10);
    for (let i = 0; i < 3; i++) {
      const observed = await w.supervisor.observe('c1');
      expect(observed.ok, JSON.stringify(observed)).toBe(true);
      expect((observed as { value: { changed: boolean } }).value.changed).toBe(false);
    }
    // Each sweep and each observe really read the remote (a finished task no longer moves).
    expect((w.sim.stats().requests['GetTask'] ?? 0) - reads).toBe(13);
    expect(w.sim.task(taskId)!.revision).toBe(revision);
    expect(await ticks(w.supervisor, 'unchanged')).toBe(unchanged + 10);
    expect(await storeWrites(w.supervisor)).toBe(writes);
    expect(docText(w)).toBe(bytes);
    expect(await w.modelCalls('argus')).toBe(1);
    expect(await w.modelCalls('foreman')).toBe(0);
    // Not one more tool call: the settled mission is not polled again.
    expect(toolCalls(w)).toEqual(calls);
  });
});

describe('a mission in flight rides the heartbeat', () => {
  it('each sweep polls it with argus_status at most once; no model call, no write, while it does not settle', async () => {
    const w = await decisionWorld(scope);
    w.writeScript({ '*': { reply: 'task', verdict: 'none' } });
    await boundCampaign(w);
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    await sweeps(w, 2);
    const writes = await storeWrites(w.supervisor);
    const bytes = docText(w);
    const polls = toolCalls(w, 'argus_status').length;

    await sweeps(w, 10);
    const polled = toolCalls(w, 'argus_status').length - polls;
    expect(polled).toBeGreaterThanOrEqual(5);
    expect(polled).toBeLessThanOrEqual(10);
    expect(await w.modelCalls('argus')).toBe(1);
    expect(w.argusMessages()).toHaveLength(1);
    expect(await storeWrites(w.supervisor)).toBe(writes);
    expect(docText(w)).toBe(bytes);
    expect(view(w).decisions.in_flight).toBe('mission');
  });
});
