/**
 * The bridge against the SIMULATED Argus MCP server as a real child over real stdio: project
 * creation, turns of each kind, the scripted daemon settling missions (decision file + journal),
 * operator answers, and state that survives a restart of the child.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ArgusBridge } from '../../adapters/argus/index.js';
import { alive, fakeArgus, until, type FakeFixture } from './fake-argus-fixture.js';

const fixtures: FakeFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.dispose()));
});
async function fixture(...args: Parameters<typeof fakeArgus>): Promise<FakeFixture> {
  const f = await fakeArgus(...args);
  fixtures.push(f);
  return f;
}
async function project(f: FakeFixture, bridge: ArgusBridge = f.bridge): Promise<string> {
  const created = await bridge.createProject(f.workdir, 'camp-1');
  if (!created.ok) throw new Error(created.error.message);
  return created.value.projectId;
}
const envelope = (key: string) => `Fixed instructions.\nEVENT_KEY: ${key}\nDecision contract.\n`;
const calls = (f: FakeFixture, tool: string) => f.records().filter((r) => r.type === 'call' && r.tool === tool);

describe('the Argus bridge over stdio (SIMULATED Argus)', () => {
  it('creates a project on an existing workdir and refuses a missing one with Argus’s own code', async () => {
    const f = await fixture();
    expect(await project(f)).toMatch(/^s-[0-9a-f]{8}$/);
    expect(await f.bridge.createProject(path.join(f.workdir, 'missing'), 'x')).toMatchObject({ ok: false, error: { code: 'invalid_workdir' } });
    expect(f.records().filter((r) => r.type === 'start')).toHaveLength(1); // one child for every call
  });

  it('a turn without EVENT_KEY is a chat; with one, a task whose mission settles on a later status read', async () => {
    const f = await fixture();
    const id = await project(f);
    expect(await f.bridge.message(id, 'How is it going?')).toMatchObject({ ok: true, value: { kind: 'chat' } });
    const turn = await f.bridge.message(id, envelope('camp-1:ev:1'));
    if (!turn.ok || turn.value.kind !== 'task') throw new Error(`not a task: ${JSON.stringify(turn)}`);
    expect(turn.value.itemId).toMatch(/^[0-9a-f]{12}$/);
    expect(f.modelCalls()).toBe(2);

    const st = await f.bridge.status(id);
    if (!st.ok) throw new Error(st.error.message);
    expect(f.modelCalls()).toBe(2); // status reads are not model calls
    expect(st.value.journal.map((j) => [j.kind, j.itemId, j.eventKey])).toEqual([
      ['mission_started', turn.value.itemId, 'camp-1:ev:1'],
      ['mission_complete', turn.value.itemId, 'camp-1:ev:1'],
    ]);
    const file = path.join(f.workdir, 'decisions', 'camp-1_ev_1.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ event_key: 'camp-1:ev:1', kind: 'observe', decision_id: `sim-${turn.value.itemId}` });
  });

  it('follows the script: pending until settleAfterMs, then failed; a blocked mission raises a question', async () => {
    const f = await fixture();
    f.writeScript({ 'camp-1:slow': { verdict: 'failed', settleAfterMs: 400, proposal: { decision_id: 'd-1', event_key: '$EVENT_KEY', kind: 'cancel', reason: 'r', evidence_refs: [] } }, 'camp-1:block': { verdict: 'blocked', question: 'Stop at epoch 3?' } });
    const id = await project(f);
    const slow = await f.bridge.message(id, envelope('camp-1:slow:1'));
    const first = await f.bridge.status(id);
    expect(first.ok && first.value.journal.map((j) => j.kind)).toEqual(['mission_started']);
    expect(first.ok && first.value.daemonAlive).toBe(true);
    expect(existsSync(path.join(f.workdir, 'decisions', 'camp-1_slow_1.json'))).toBe(false);
    await new Promise((r) => setTimeout(r, 450));
    const settled = await f.bridge.status(id);
    expect(settled.ok && settled.value.journal.at(-1)).toMatchObject({ kind: 'mission_failed', itemId: slow.ok && slow.value.kind === 'task' ? slow.value.itemId : 'none', eventKey: 'camp-1:slow:1' });
    expect(JSON.parse(readFileSync(path.join(f.workdir, 'decisions', 'camp-1_slow_1.json'), 'utf8'))).toMatchObject({ decision_id: 'd-1', event_key: 'camp-1:slow:1', kind: 'cancel' });

    const blocked = await f.bridge.message(id, envelope('camp-1:block:1'));
    const st = await f.bridge.status(id);
    const itemId = blocked.ok && blocked.value.kind === 'task' ? blocked.value.itemId : null;
    expect(st.ok && st.value.pendingQuestions).toEqual([{ itemId, question: 'Stop at epoch 3?' }]);
    expect(st.ok && st.value.backlog.find((b) => b.id === itemId)).toMatchObject({ status: 'paused_operator', pendingQuestion: 'Stop at epoch 3?' });
  });

  it('a pending_question reply, then the operator’s answer dispatches the continuation as a task', async () => {
    const f = await fixture();
    f.writeScript({ 'camp-1:ask': { reply: 'pending_question', question: 'Which checkpoint?' } });
    const id = await project(f);
    const asked = await f.bridge.message(id, envelope('camp-1:ask:1'));
    if (!asked.ok || asked.value.kind !== 'pending_question' || !asked.value.itemId) throw new Error(JSON.stringify(asked));
    expect(asked.value.question).toBe('Which checkpoint?');
    const answer = await f.bridge.message(id, `OPERATOR_ANSWER_FOR: ${asked.value.itemId}\nThe operator answers: the latest.\n${envelope('camp-1:answer:1')}`);
    if (!answer.ok || answer.value.kind !== 'task' || !answer.value.itemId) throw new Error(JSON.stringify(answer));
    expect(answer.value.itemId).not.toBe(asked.value.itemId);
    const st = await f.bridge.status(id);
    expect(st.ok && st.value.pendingQuestions).toEqual([]);
    expect(st.ok && st.value.journal.at(-1)).toMatchObject({ kind: 'mission_complete', itemId: answer.value.itemId, eventKey: 'camp-1:answer:1' });
  });

  it('a restarted child (after close, and after a SIGKILL) sees the same project from its files', async () => {
    const f = await fixture();
    const id = await project(f);
    await f.bridge.message(id, envelope('camp-1:ev:1'));
    const firstPid = f.records().find((r) => r.type === 'start')?.pid as number;
    await f.bridge.close();
    expect(alive(firstPid)).toBe(false); // close kills the child
    expect(await f.bridge.status(id)).toMatchObject({ ok: false, error: { code: 'argus_unavailable' } }); // a closed bridge stays closed

    const second = f.newBridge();
    const st = await second.status(id);
    expect(st.ok && st.value.journal.map((j) => j.kind)).toEqual(['mission_started', 'mission_complete']);
    const starts = () => f.records().filter((r) => r.type === 'start').map((r) => r.pid as number);
    const pid = starts().at(-1) as number;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid));
    await new Promise((r) => setTimeout(r, 50)); // let the transport see the exit
    expect(await second.status(id)).toMatchObject({ ok: true, value: { journal: [{ kind: 'mission_started' }, { kind: 'mission_complete' }] } });
    expect(starts()).toHaveLength(3);
    expect(new Set(starts()).size).toBe(3);
    expect(calls(f, 'argus_message')).toHaveLength(1); // a restart replays nothing
  });

  it('stop reports whether a daemon ran; unknown projects get Argus’s project_not_found', async () => {
    const f = await fixture();
    f.writeScript({ '*': { verdict: 'none' } });
    const id = await project(f);
    expect(await f.bridge.stop(id)).toEqual({ ok: true, value: { stopped: false } });
    await f.bridge.message(id, envelope('camp-1:ev:1'));
    expect(await f.bridge.stop(id, true)).toEqual({ ok: true, value: { stopped: true } });
    expect(calls(f, 'argus_stop').at(-1)?.arguments).toEqual({ project_id: id, force: true });
    expect(await f.bridge.status('s-00000000')).toMatchObject({ ok: false, error: { code: 'project_not_found' } });
    expect(await f.bridge.message('not an id', 'x')).toMatchObject({ ok: false, error: { code: 'invalid_project_id' } });
  });
});
