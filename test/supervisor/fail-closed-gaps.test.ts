/**
 * Small fail-closed gaps (issue 7, defect 8): a document whose machine snapshot has a version
 * this build does not know gets a report in `corrupt/` like any corrupt document, and a
 * document corrupted while the supervisor serves it makes the next observe (and every action)
 * answer `campaign_corrupt`, never `ok: true`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { attach, createScope, documentPath, observe, startTestSupervisor, summaryOf, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const readReport = async (stateRoot: string, id: string) =>
  JSON.parse(await readFile(path.join(stateRoot, 'corrupt', `${id}.json`), 'utf8')) as Record<string, unknown>;

describe('fail-closed gaps', () => {
  it('an unknown machine version is reported in corrupt/ and every action is refused', async () => {
    const stateRoot = await tempStateRoot(scope);
    const first = await startTestSupervisor(scope, { stateRoot, url: null });
    await attach(first.supervisor, 'future', 'task-x');
    await first.supervisor.stop();
    const file = documentPath(stateRoot, 'future');
    const doc = JSON.parse(await readFile(file, 'utf8')) as { machine: { version: string } };
    const bytes = Buffer.from(JSON.stringify({ ...doc, machine: { ...doc.machine, version: 'campaign@999' } }));
    await writeFile(file, bytes);

    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
    expect(summaryOf(supervisor, 'future').corrupt).toBe(true);
    expect(await readReport(stateRoot, 'future')).toMatchObject({ campaignId: 'future', code: 'machine_version_unknown', sizeBytes: bytes.length });
    for (const action of ['observe', 'pause', 'claim']) {
      expect(await supervisor.campaignAction({ campaign_id: 'future', action }), action).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    }
    expect(await readFile(file)).toEqual(bytes);
  });

  it('a document corrupted while serving makes the next observe and every action answer campaign_corrupt', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 2 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const [taskId, otherTask] = sim.createTasks(2, 'steady');
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    await attach(supervisor, 'c1', taskId!);
    await attach(supervisor, 'c2', otherTask!);
    await observe(supervisor, 'c1');
    const garbage = Buffer.from('{"documentVersion":1,"campaignId":"c1", truncated by a bad disk');
    await writeFile(documentPath(stateRoot, 'c1'), garbage);

    expect(await supervisor.observe('c1')).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    for (const action of ['observe', 'pause', 'resume', 'claim']) {
      expect(await supervisor.campaignAction({ campaign_id: 'c1', action }), action).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    }
    expect(summaryOf(supervisor, 'c1').corrupt).toBe(true);
    expect(supervisor.health().campaigns.corrupt).toBe(1);
    expect(await readReport(stateRoot, 'c1')).toMatchObject({ code: 'document_corrupt', sizeBytes: garbage.length });
    expect(await readFile(documentPath(stateRoot, 'c1'))).toEqual(garbage);
    // The other campaign is unaffected.
    expect((await supervisor.observe('c2')).ok).toBe(true);
  });

  it('an action that is the first to find the corruption is refused too', async () => {
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
    await attach(supervisor, 'c1', 'task-x');
    await writeFile(documentPath(stateRoot, 'c1'), '{}');
    expect(await supervisor.campaignAction({ campaign_id: 'c1', action: 'pause' })).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    expect(summaryOf(supervisor, 'c1').corrupt).toBe(true);
  });
});
