/**
 * A remote blocker mid-decision wins: the decision being made is abandoned (settled as
 * 'interrupted'), the remote's question becomes NEEDS_YOU, and whatever the abandoned mission
 * approves afterwards is never relayed, although we hold the lease. The hand-written remote
 * (scripted-remote.ts) grants the lease and records every call, so a relay would show.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeEventKeyFileName, type FakeProject } from '../../simulator/argus/fake-argus-state.js';
import { canary } from '../fixtures/canary.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { bindTask, docOf, journalOf, sweeps, toolCalls, view } from './flow-helpers.js';
import { startScriptedRemote } from './scripted-remote.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a blocker while Argus decides', () => {
  it('abandons the decision; the mission approving later relays nothing, lease held', async () => {
    const token = canary('abandon-token');
    const remote = scope.defer(await startScriptedRemote({ token }), (r) => r.close());
    const w = await decisionWorld(scope, { foreman: true, url: remote.base, token });
    w.writeForemanScript({ action: 'STEER_WORKER', reason: 'steer it' });
    // The mission never settles by itself: the test writes its approval once the decision is abandoned.
    w.writeScript({ '*': { reply: 'task', verdict: 'none' } });
    const taskId = remote.addTask({ state: 'working', stage: 'train', statusText: 'step 100' });
    await bindTask(w, taskId);
    await sweeps(w, 2);
    const claimed = await w.act('c1', { action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    expect(view(w).lease.mode).toBe('controller');

    remote.set(taskId, { state: 'working', stage: 'train', statusText: 'step 500', artifacts: [{ id: 'ckpt-500', name: 'ckpt.pt' }] });
    await w.sweepUntil(() => view(w).decisions.in_flight === 'mission');
    const eventKey = view(w).decisions.event_key!;
    expect(w.argusMessages()).toHaveLength(1);

    remote.set(taskId, { state: 'input-required', stage: 'train', statusText: 'Should I resume from the last checkpoint?', artifacts: [{ id: 'ckpt-500', name: 'ckpt.pt' }] });
    await w.sweepUntil(() => view(w).attention === 'needs-you');
    expect(view(w).pending_question).toMatchObject({ source: 'remote' });
    expect(view(w).decisions.in_flight).toBeNull();
    expect(view(w).decisions.last).toMatchObject({ event_key: eventKey, outcome: 'interrupted' });
    const argusWake = docOf(w).wake.requests.find((r) => r.target === 'argus' && r.reason === 'foreman_directive');
    expect(argusWake?.settled).toMatchObject({ outcome: 'interrupted', code: 'remote_blocked' });
    const statusPolls = toolCalls(w, 'argus_status').length;

    // The abandoned mission now approves an intervene: its own fresh verdict, its proposal on disk.
    const projectFile = path.join(w.argusHome, 'fake-argus', 'projects', `${view(w).decisions.mission.project_id}.json`);
    const project = JSON.parse(readFileSync(projectFile, 'utf8')) as FakeProject;
    const item = project.items.at(-1)!;
    project.journal.push({ id: item.id, ts: Date.now() / 1000 + 1, kind: 'mission_complete', title: 't', summary: 's', tags: [], cost_usd: 0, extra: { item_id: item.id, event_key: eventKey, success: true } });
    writeFileSync(`${projectFile}.t`, JSON.stringify(project));
    renameSync(`${projectFile}.t`, projectFile);
    const dir = path.join(w.argusHome, 'workspaces', 'c1', 'decisions');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${fakeEventKeyFileName(eventKey)}.json`), JSON.stringify({ decision_id: 'dec-late', event_key: eventKey, kind: 'intervene', instruction: 'lower the LR', reason: 'late', evidence_refs: [] }));

    await sweeps(w, 8);
    expect(remote.mutations()).toEqual([]);
    expect(journalOf(w)).toEqual([]);
    expect(toolCalls(w, 'argus_status').length).toBe(statusPolls);
    expect(w.argusMessages()).toHaveLength(1);
    expect(view(w).attention).toBe('needs-you');
    expect(view(w).lease.mode).toBe('controller');
  });
});
