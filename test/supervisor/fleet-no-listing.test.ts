/**
 * A remote without ListTasks is swept per task, as before the fleet sweep: the first beat's
 * ListTasks is the probe, its refusal (method not found) is logged once, and every later beat
 * sends GetTask per campaign and no ListTasks at all. A 0.3 remote (no JSON-RPC ListTasks in
 * that version) is never even asked. Real loopback simulator, real supervisor, sweeps by hand.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SimProtocol } from '../../simulator/index.js';
import { startSimulator } from '../../simulator/index.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { attach, createScope, startTestSupervisor, tempStateRoot, ticks } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const N = 20;
const SWEEPS = 4;

async function sweepWithoutListing(protocol: SimProtocol, probes: number): Promise<void> {
  const sim = scope.defer(await startSimulator({ port: 0, protocol, listing: 'off', control: false }), (s) => s.close());
  const logs = captureLogs('debug');
  const stateRoot = await tempStateRoot(scope);
  const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url, logger: logs.logger });
  const ids = sim.createTasks(N, 'steady');
  for (const [i, taskId] of ids.entries()) await attach(supervisor, `plain-${i}`, taskId);
  const get = protocol === '1.0' ? 'GetTask' : 'tasks/get';
  const gets = () => sim.stats().requests[get] ?? 0;

  for (let sweep = 1; sweep <= SWEEPS; sweep++) {
    const before = gets();
    expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });
    expect(gets()).toBe(before + N);
    expect(supervisor.fleet?.last).toMatchObject({ mode: 'per-task', answered: 0 });
  }
  expect(await ticks(supervisor, 'failed')).toBe(0);
  expect(sim.stats().requests['ListTasks'] ?? 0).toBe(probes);
  // Said once, at info; nothing at warn or above, however many beats.
  const parsed = logs.lines.map((line) => JSON.parse(line) as { level: number; msg?: string });
  expect(parsed.filter((l) => l.msg?.includes('does not list tasks'))).toHaveLength(1);
  expect(parsed.filter((l) => l.level >= 40)).toEqual([]);
  expect(parsed.filter((l) => JSON.stringify(l).includes('ListTasks')).length).toBeLessThanOrEqual(2);
}

describe('a remote without ListTasks', () => {
  it('1.0 remote answering method not found: probed once, then swept per task', async () => {
    await sweepWithoutListing('1.0', 1);
  });

  it('0.3 remote: never asked (no JSON-RPC ListTasks in 0.3), swept per task', async () => {
    await sweepWithoutListing('0.3', 0);
  });
});
