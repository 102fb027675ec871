/**
 * The heartbeat is silent unless something material changed: routine remote noise (revision,
 * progress, loss, stdout cursor, status text) never writes, never wakes a model and never
 * reaches a person. Real loopback simulator, real temp state root, sweeps driven by hand.
 */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import {
  attach,
  createScope,
  documentPath,
  eventsOf,
  kindsOf,
  metricValue,
  startTestSupervisor,
  storeWrites,
  tempStateRoot,
  ticks,
} from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('an unchanged heartbeat', () => {
  it('makes no store write, no model call and no public event when only noise moves', async () => {
    const N = 12;
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor, wakes } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const ids = sim.createTasks(N, 'steady');
    for (const [i, taskId] of ids.entries()) await attach(supervisor, `steady-${i}`, taskId);

    // First sweep: each campaign's first observation is recorded (one write each).
    const writesBefore = await storeWrites(supervisor);
    const first = await supervisor.sweep();
    expect(first).toMatchObject({ ticked: N, errors: 0 });
    expect(await storeWrites(supervisor)).toBe(writesBefore + N);
    expect(await ticks(supervisor, 'changed')).toBe(N);

    const writesAfterFirst = await storeWrites(supervisor);
    const mtimes = await Promise.all(ids.map((_, i) => stat(documentPath(stateRoot, `steady-${i}`)).then((s) => s.mtimeMs)));
    const revisions = ids.map((id) => sim.task(id)!.revision);

    for (let sweep = 1; sweep <= 5; sweep++) {
      const unchangedBefore = await ticks(supervisor, 'unchanged');
      const report = await supervisor.sweep();
      expect(report).toMatchObject({ ticked: N, errors: 0 });
      expect(await ticks(supervisor, 'unchanged')).toBe(unchangedBefore + N);
    }

    // The remote really did move on every poll (noise), yet nothing was written or woken.
    ids.forEach((id, i) => expect(sim.task(id)!.revision).toBe(revisions[i]! + 5));
    expect(await storeWrites(supervisor)).toBe(writesAfterFirst);
    expect(await ticks(supervisor, 'changed')).toBe(N);
    expect(await ticks(supervisor, 'failed')).toBe(0);
    expect(wakes.argus).toEqual([]);
    expect(wakes.foreman).toEqual([]);
    expect(await metricValue(supervisor, 'argus_supervisor_model_calls_total')).toBe(0);
    expect(await metricValue(supervisor, 'argus_supervisor_wake_requests_total')).toBe(0);
    expect(supervisor.status().events).toEqual([]);
    const after = await Promise.all(ids.map((_, i) => stat(documentPath(stateRoot, `steady-${i}`)).then((s) => s.mtimeMs)));
    expect(after).toEqual(mtimes);
    // Each unchanged tick cost exactly one remote request (plus create's one verifying read).
    expect(sim.stats().requests.GetTask).toBe(N * 7);
  });
});

describe('an explicit read of a remote that moved only noise', () => {
  it('reaches the reducer, which decides "not material": no write, no event, no wake', async () => {
    // A sweep returns before the reducer when the in-memory fingerprint matches; an explicit
    // observe hands every reading to the reducer, so its own noise rule is what keeps this quiet.
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor, wakes } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'steady');
    await attach(supervisor, 'noisy', taskId!);
    const firstRead = await supervisor.observe('noisy');
    expect(firstRead).toMatchObject({ ok: true, value: { changed: true } });

    const writes = await storeWrites(supervisor);
    const mtime = (await stat(documentPath(stateRoot, 'noisy'))).mtimeMs;
    const revision = sim.task(taskId!)!.revision;
    const reads: unknown[] = [];
    for (let i = 0; i < 5; i++) reads.push(await supervisor.observe('noisy'));

    // The remote moved its revision (and with it the progress text) on every read…
    expect(sim.task(taskId!)!.revision).toBe(revision + 5);
    // …and every read was judged not material: nothing written, published or woken.
    for (const r of reads) expect(r).toMatchObject({ ok: true, value: { changed: false, events: [] } });
    expect(await storeWrites(supervisor)).toBe(writes);
    expect((await stat(documentPath(stateRoot, 'noisy'))).mtimeMs).toBe(mtime);
    expect(eventsOf(supervisor, 'noisy')).toEqual([]);
    expect(wakes.argus).toEqual([]);
    expect(wakes.foreman).toEqual([]);
  });
});

describe('routine remote stdout', () => {
  it('publishes only stage transitions and the one completion over a whole training run', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 4 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor, wakes } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'training');
    await attach(supervisor, 'train-1', taskId!);

    // Create's verifying read is poll 1; sweep 1 (poll 2) lands in `prepare`; each stage lasts
    // 4 polls; poll 13 (sweep 12) completes. Then keep going.
    const writesAt: number[] = [];
    const stages: (string | null)[] = [];
    for (let poll = 1; poll <= 20; poll++) {
      const before = await storeWrites(supervisor);
      await supervisor.sweep();
      if ((await storeWrites(supervisor)) > before) writesAt.push(poll);
      stages.push(sim.task(taskId!)!.stage);
    }
    expect(sim.task(taskId!)!.state).toBe('completed');
    // Writes only at material polls: first sight, the two stage boundaries, the completion.
    expect(writesAt).toEqual([1, 4, 8, 12]);

    const events = eventsOf(supervisor, 'train-1');
    expect(events.map((e) => e.kind)).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);
    expect(events.map((e) => e.summary)).toEqual(['Stage prepare → train', 'Stage train → evaluate', 'Attempt 1 completed']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(wakes.argus).toHaveLength(1);

    // No step counter, loss, stdout cursor or status text reached any public event.
    const published = JSON.stringify(events);
    for (const noise of [/step/i, /loss/i, /stdout/i, /cursor/i, /\d+\/\d+/, /accuracy/i, /Evaluation finished/]) {
      expect(published).not.toMatch(noise);
    }
    const summary = supervisor.status().campaigns[0]!;
    expect(JSON.stringify(summary)).not.toMatch(/step|loss|stdout|accuracy/i);
    expect(kindsOf(supervisor, 'train-1')).not.toContain('NEEDS_YOU');
    expect(stages.filter((s, i) => s !== stages[i - 1])).toEqual(['prepare', 'train', 'evaluate']);
  });
});
