/**
 * Read failures: three in a row raise exactly one CRITICAL; more failures add nothing; a
 * successful read resets the streak; a new outage alerts again only after three more. A failed
 * read is never turned into a failed attempt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import {
  attach,
  createScope,
  eventsOf,
  kindsOf,
  observe,
  observeFailing,
  startTestSupervisor,
  summaryOf,
  tempStateRoot,
  ticks,
} from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('consecutive read failures', () => {
  it('raise one CRITICAL per outage, reset on recovery, and never invent a failed attempt', async () => {
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor, wakes } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'steady');
    await attach(supervisor, 'c1', taskId!);
    await observe(supervisor, 'c1');
    expect(kindsOf(supervisor, 'c1')).toEqual([]);

    const criticals = () => eventsOf(supervisor, 'c1').filter((e) => e.kind === 'CRITICAL');
    const fail = async (times: number) => {
      sim.injectFaults({ kind: 'http-5xx', count: times, methods: ['GetTask'] });
      for (let i = 0; i < times; i++) {
        const r = await supervisor.observe('c1');
        expect(r).toMatchObject({ ok: false, error: { code: 'read_failed', read_code: expect.any(String) } });
      }
    };

    // Outage 1: failures 1 and 2 are quiet, the third raises the one CRITICAL, 4 and 5 add nothing.
    await fail(2);
    expect(criticals()).toHaveLength(0);
    expect(summaryOf(supervisor, 'c1').consecutive_read_failures).toBe(2);
    await fail(1);
    expect(criticals()).toHaveLength(1);
    await fail(2);
    expect(criticals()).toHaveLength(1);
    expect(summaryOf(supervisor, 'c1').consecutive_read_failures).toBe(5);
    expect(sim.stats().faultsServed['http-5xx']).toBe(5);

    // Recovery (the remote only moved noise meanwhile): the streak resets.
    await observe(supervisor, 'c1');
    expect(summaryOf(supervisor, 'c1').consecutive_read_failures).toBe(0);
    expect(criticals()).toHaveLength(1);

    // Outage 2: a new CRITICAL, but only at its third failure.
    await fail(2);
    expect(criticals()).toHaveLength(1);
    await fail(1);
    expect(criticals()).toHaveLength(2);
    await fail(1);
    expect(criticals()).toHaveLength(2);
    const [first, second] = criticals();
    expect(second!.id).not.toBe(first!.id);
    expect(first!.data).toMatchObject({ reason: 'remote_unavailable', consecutiveFailures: 3 });

    // Never a fake failed attempt, never a wake for a read failure.
    expect(kindsOf(supervisor, 'c1').every((k) => k === 'CRITICAL')).toBe(true);
    expect(wakes.argus).toEqual([]);
    expect(summaryOf(supervisor, 'c1').remote.state).toBe('working');
    expect(summaryOf(supervisor, 'c1').attention).toBe('idle');
  });

  it('the heartbeat counts failed ticks and backs off instead of hammering a closed remote', async () => {
    // Closed by the test itself below (close is idempotent); the scope covers an early failure.
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'training');
    await attach(supervisor, 'c1', taskId!);
    await supervisor.sweep();
    await sim.close();

    const report = await supervisor.sweep();
    expect(report).toMatchObject({ ticked: 1, errors: 0 });
    expect(await ticks(supervisor, 'failed')).toBe(1);
    // Backing off: the next sweeps still tick the campaign (every active actor gets time), and
    // its chart does not read it again now (a read of the closed remote would count as failed).
    for (let i = 0; i < 3; i++) {
      expect(await supervisor.sweep()).toMatchObject({ ticked: 1, errors: 0 });
      expect(await ticks(supervisor, 'failed')).toBe(1);
    }
    // Explicit observes still read (and fail); the third raises the CRITICAL, never ATTEMPT_COMPLETED.
    expect(await observeFailing(supervisor, 'c1', 2)).toEqual(['remote_unreachable', 'remote_unreachable']);
    expect(kindsOf(supervisor, 'c1')).toEqual(['CRITICAL']);
    expect(summaryOf(supervisor, 'c1').consecutive_read_failures).toBe(3);
  });
});
