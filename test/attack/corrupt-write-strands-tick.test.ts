/**
 * Attack on the host's direct write (`host.write`, which the request gate uses to keep an
 * Idempotency-Key answer) finding the document corrupt while the heartbeat's status read of the
 * same campaign is in flight: the actor is stopped (the campaign fails closed), and the tick
 * waiting for that read must still resolve. A tick that never resolves holds its sweep open,
 * and every later sweep returns that same promise: the heartbeat of every campaign stops.
 * Real loopback simulator (its `slow` fault holds the read), real store.
 */
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createScope, documentPath, envFor, tempStateRoot, until } from '../fixtures/supervisor-harness.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';

const scope = createScope();
afterEach(() => scope.dispose());

const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timed out'> =>
  Promise.race([p, new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), ms).unref())]);

describe('a direct write that finds the document corrupt mid-tick', () => {
  it('fails the campaign closed without stranding the heartbeat', { timeout: 20_000 }, async () => {
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: sim.url })) });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    scope.defer(supervisor, (s) => s.stop());
    const tasks = sim.createTasks(2, 'steady');
    for (const [i, taskId] of tasks.entries()) {
      expect((await supervisor.campaigns({ action: 'create', campaign_id: `c${i}`, objective: 'o', remote_task_id: taskId })).ok).toBe(true);
    }
    await supervisor.sweep();

    sim.injectFaults({ kind: 'slow', methods: ['GetTask'], delayMs: 800, count: 2 });
    const reads = sim.stats().requests['GetTask'] ?? 0;
    const sweeping = supervisor.sweep();
    await until(() => (sim.stats().requests['GetTask'] ?? 0) >= reads + 2, 'both reads to be in flight');
    await writeFile(documentPath(stateRoot, 'c0'), '{ not json');
    const host = supervisor.system!.host('c0')!;
    const written = await host.write((doc) => doc);
    expect(written.ok).toBe(false);

    expect(await within(sweeping, 5_000)).toMatchObject({ ticked: 2 });
    expect(supervisor.system!.corrupt('c0')).toBeDefined();
    // The heartbeat still runs for the healthy campaign.
    expect(await within(supervisor.sweep(), 5_000)).toMatchObject({ ticked: 1, errors: 0 });
  });
});
