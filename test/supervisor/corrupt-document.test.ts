/**
 * A corrupt campaign document fails closed: reported (status and health), every action on it
 * refused with `campaign_corrupt`, its bytes never touched, and the other campaigns unaffected.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import {
  attach,
  createScope,
  documentPath,
  kindsOf,
  observe,
  startTestSupervisor,
  summaryOf,
  tempStateRoot,
} from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const GARBAGE = Buffer.from('{"documentVersion":1,"campaignId":"bad","outbox":[\u0000 not json at all', 'utf8');

describe('a corrupt campaign document', () => {
  it('is reported, refused and left byte-for-byte untouched while the others keep working', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 2 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const [goodTask, badTask] = sim.createTasks(2, 'training');

    // Create both campaigns normally, then corrupt one on disk while no supervisor runs.
    const first = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    await attach(first.supervisor, 'good', goodTask!);
    await attach(first.supervisor, 'bad', badTask!);
    await observe(first.supervisor, 'bad');
    await first.supervisor.stop();
    const badPath = documentPath(stateRoot, 'bad');
    await writeFile(badPath, GARBAGE);
    const badPolls = sim.task(badTask!)!.polls;

    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    expect(summaryOf(supervisor, 'bad')).toMatchObject({ corrupt: true, state: 'corrupt' });
    expect(summaryOf(supervisor, 'good')).toMatchObject({ corrupt: false, state: 'observing' });
    expect(supervisor.health().campaigns).toEqual({ total: 2, corrupt: 1 });
    const got = await supervisor.campaigns({ action: 'get', campaign_id: 'bad' });
    expect(got).toMatchObject({ ok: true, value: { campaign: { corrupt: true } } });

    for (const body of [
      { action: 'observe' },
      { action: 'pause' },
      { action: 'resume' },
      { action: 'close' },
      { action: 'answer', text: 'yes' },
      { action: 'claim' },
      { action: 'resolve_intent' },
    ]) {
      const r = await supervisor.campaignAction({ campaign_id: 'bad', ...body });
      expect(r, body.action).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    }
    // Its id stays taken: a create never replaces it.
    const recreate = await supervisor.campaigns({ action: 'create', campaign_id: 'bad', objective: 'x', remote_task_id: badTask! });
    expect(recreate).toMatchObject({ ok: false, error: { code: 'campaign_exists' } });

    // Sweeps skip it and work for the good one.
    for (let i = 0; i < 7; i++) await supervisor.sweep();
    await observe(supervisor, 'good', 2);
    expect(kindsOf(supervisor, 'good')).toEqual(['STAGE_TRANSITION', 'STAGE_TRANSITION', 'ATTEMPT_COMPLETED']);
    expect(sim.task(badTask!)!.polls).toBe(badPolls);

    expect(await readFile(badPath)).toEqual(GARBAGE);
    const report = JSON.parse(await readFile(path.join(stateRoot, 'corrupt', 'bad.json'), 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({ campaignId: 'bad', code: 'document_corrupt', sizeBytes: GARBAGE.length });
  });

  it('an unknown document version fails closed the same way', async () => {
    const stateRoot = await tempStateRoot(scope);
    const first = await startTestSupervisor(scope, { stateRoot, url: null });
    await attach(first.supervisor, 'future', 'task-x');
    await first.supervisor.stop();
    const file = documentPath(stateRoot, 'future');
    const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    const bytes = Buffer.from(JSON.stringify({ ...doc, documentVersion: 99 }));
    await writeFile(file, bytes);

    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
    expect(summaryOf(supervisor, 'future').corrupt).toBe(true);
    expect(supervisor.health().campaigns.corrupt).toBe(1);
    expect(await supervisor.campaignAction({ campaign_id: 'future', action: 'pause' })).toMatchObject({
      ok: false,
      error: { code: 'campaign_corrupt' },
    });
    expect(await readFile(file)).toEqual(bytes);
  });
});
