/**
 * The durable wake log says how each decision boundary settled ("Every settle emits
 * DECISION_SETTLED: the wake log entry gets `settled`"; an entry without it reads as open).
 * A Foreman assessment is a boundary of its own: CONTINUE settles its entry 'assessed'.
 *
 * The second case FAILS ON PURPOSE until the product settles it (reported to the lead): when
 * the directive hands the event to Argus (STEER_WORKER), the Argus follow-up entry
 * (`foreman:<key>`) is settled, but the Foreman entry the assessment was for (`<key>`) stays
 * open for ever, although Foreman ran for it and answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { docOf, evidenceWorld, publishCheckpoint, sweeps, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('the wake log after a Foreman assessment', () => {
  it('CONTINUE: the assessed wake is settled as assessed', async () => {
    const { w, remote, taskId } = await evidenceWorld(scope, { action: 'CONTINUE', reason: 'healthy' });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => view(w).decisions.last?.foreman_directive === 'CONTINUE');
    await sweeps(w, 2);
    const wakes = docOf(w).wake.requests;
    expect(wakes.map((r) => [r.target, r.dedupeKey])).toEqual([['foreman', 'artifact:task-s1:ckpt-500']]);
    expect(wakes[0]!.settled).toMatchObject({ outcome: 'assessed' });
  });

  it('STEER_WORKER: the assessed Foreman wake is settled too, not only its Argus follow-up', async () => {
    const { w, remote, taskId } = await evidenceWorld(scope, { action: 'STEER_WORKER', reason: 'steer it' });
    publishCheckpoint(remote, taskId);
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved' && view(w).attention === 'idle');
    await sweeps(w, 2);
    expect(await w.modelCalls('foreman')).toBe(1);
    const wakes = docOf(w).wake.requests;
    expect(wakes.map((r) => [r.target, r.dedupeKey])).toEqual([
      ['foreman', 'artifact:task-s1:ckpt-500'],
      ['argus', 'foreman:artifact:task-s1:ckpt-500'],
    ]);
    expect(wakes[1]!.settled).toMatchObject({ outcome: 'approved' });
    expect(wakes[0]!.settled, 'the Foreman wake Foreman answered').toBeDefined();
  });
});
