/**
 * A campaign's state history (issue 20, item 3): every change of authority or attention is
 * recorded with its time and cause in the save that makes it (operator action, remote reading,
 * lease); a save that moves no state adds nothing; an unchanged tick writes nothing at all with
 * the history in place; the history survives a restart. Real loopback simulator, real temp
 * state root, reads driven by hand.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import type { Supervisor } from '../../services/runtime/supervisor.js';
import { attach, createScope, documentPath, observe, readDocument, startTestSupervisor, storeWrites, tempStateRoot, ticks } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

async function act(s: Supervisor, id: string, action: string): Promise<void> {
  const r = await s.campaignAction({ campaign_id: id, action });
  if (!r.ok) throw new Error(`${action} ${id}: ${r.error.code}`);
}

async function historyOf(s: Supervisor, id: string) {
  const r = await s.campaigns({ action: 'history', campaign_id: id });
  if (!r.ok) throw new Error(`history ${id}: ${r.error.code}`);
  return r.value as { current: { state: string; attention: string; since: string | null }; history: { at: string; from: unknown; to: unknown; cause: string; detail: string }[] };
}
const changes = (h: Awaited<ReturnType<typeof historyOf>>) => h.history.map(({ from, to, cause, detail }) => ({ from, to, cause, detail }));
const pair = (state: string, attention = 'idle') => ({ state, attention });

describe('the state history', () => {
  it('records each change with its cause: operator actions, a lease lost to a takeover, a remote reading', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const { ids, contextIds } = sim.createTasksDetailed(1, 'steady');
    await attach(supervisor, 'h', ids[0]!);
    for (const action of ['claim', 'pause', 'resume', 'claim']) await act(supervisor, 'h', action);
    sim.takeover(contextIds[0]!, 'rival-controller', 600);
    await observe(supervisor, 'h');
    const [blocked] = sim.createTasks(1, 'blocker');
    await attach(supervisor, 'b', blocked!);
    for (let i = 0; i < 4 && (await historyOf(supervisor, 'b')).current.attention !== 'needs-you'; i++) await observe(supervisor, 'b');

    const h = await historyOf(supervisor, 'h');
    expect(changes(h)).toEqual([
      { from: null, to: pair('observing'), cause: 'operator', detail: 'create' },
      { from: pair('observing'), to: pair('controlling'), cause: 'operator', detail: 'claim' },
      { from: pair('controlling'), to: pair('paused'), cause: 'operator', detail: 'pause' },
      { from: pair('paused'), to: pair('observing'), cause: 'operator', detail: 'resume' },
      { from: pair('observing'), to: pair('controlling'), cause: 'operator', detail: 'claim' },
      { from: pair('controlling'), to: pair('control-lost'), cause: 'lease', detail: 'lease_lost_readback' },
    ]);
    // Newest last, each at or after the one before; the current state dates from the last entry.
    const times = h.history.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(h.current).toEqual({ state: 'control-lost', attention: 'idle', since: h.history.at(-1)!.at });

    expect(changes(await historyOf(supervisor, 'b'))).toEqual([
      { from: null, to: pair('observing'), cause: 'operator', detail: 'create' },
      { from: pair('observing'), to: pair('observing', 'needs-you'), cause: 'remote', detail: 'read: NEEDS_YOU' },
    ]);

    // Kept in the document itself, so a restart shows the same history.
    const before = await historyOf(supervisor, 'h');
    await supervisor.stop();
    const again = (await startTestSupervisor(scope, { stateRoot, url: sim.url })).supervisor;
    expect((await historyOf(again, 'h')).history).toEqual(before.history);
  });

  it('a save that moves no state adds no entry (a stage transition is written, not a state change)', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const [taskId] = sim.createTasks(1, 'training');
    await attach(supervisor, 't', taskId!);
    const writes = await storeWrites(supervisor);
    await observe(supervisor, 't', 3);
    expect(await storeWrites(supervisor)).toBeGreaterThan(writes);
    expect((await readDocument(stateRoot, 't')).outbox.events.map((e) => e.kind)).toContain('STAGE_TRANSITION');
    expect(changes(await historyOf(supervisor, 't'))).toEqual([{ from: null, to: pair('observing'), cause: 'operator', detail: 'create' }]);
  });
});

describe('documents the history did not write', () => {
  it('one from before the history reads as an empty history with no known start, and its next change is recorded', async () => {
    const stateRoot = await tempStateRoot(scope);
    const first = await startTestSupervisor(scope, { stateRoot, url: null });
    await attach(first.supervisor, 'old', 'task-x');
    await first.supervisor.stop();
    const file = documentPath(stateRoot, 'old');
    const { history: _dropped, ...older } = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify(older));

    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
    expect(await historyOf(supervisor, 'old')).toMatchObject({ current: { state: 'observing', attention: 'idle', since: null }, history: [] });
    await act(supervisor, 'old', 'pause');
    const h = await historyOf(supervisor, 'old');
    expect(changes(h)).toEqual([{ from: pair('observing'), to: pair('paused'), cause: 'operator', detail: 'pause' }]);
    expect(h.current.since).toBe(h.history[0]!.at);
  });

  it('a corrupt one answers campaign_corrupt and is left as it is', async () => {
    const stateRoot = await tempStateRoot(scope);
    const first = await startTestSupervisor(scope, { stateRoot, url: null });
    await attach(first.supervisor, 'bad', 'task-x');
    await first.supervisor.stop();
    const garbage = Buffer.from('{"documentVersion": 2, "not": "a document"}');
    await writeFile(documentPath(stateRoot, 'bad'), garbage);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: null });
    expect(await supervisor.campaigns({ action: 'history', campaign_id: 'bad' })).toMatchObject({ ok: false, error: { code: 'campaign_corrupt' } });
    expect(await readFile(documentPath(stateRoot, 'bad'))).toEqual(garbage);
  });
});

describe('an unchanged heartbeat with the history in place', () => {
  it('writes nothing: no store write, the same document, the same history', async () => {
    const N = 4;
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const { supervisor } = await startTestSupervisor(scope, { stateRoot, url: sim.url });
    const ids = sim.createTasks(N, 'steady');
    for (const [i, taskId] of ids.entries()) {
      await attach(supervisor, `q-${i}`, taskId);
      // A history of several entries (claim, pause, resume), back to observing: no lease to renew.
      for (const action of ['claim', 'pause', 'resume']) await act(supervisor, `q-${i}`, action);
    }
    // The first sweep may record the first sight of each task; after it, the remote moves only noise.
    await supervisor.sweep();
    const docs = await Promise.all(ids.map((_, i) => readDocument(stateRoot, `q-${i}`)));
    for (const doc of docs) expect(doc.history?.map((e) => e.detail)).toEqual(['create', 'claim', 'pause', 'resume']);
    const writes = await storeWrites(supervisor);
    const mtimes = await Promise.all(ids.map((_, i) => stat(documentPath(stateRoot, `q-${i}`)).then((s) => s.mtimeMs)));

    for (let sweep = 1; sweep <= 5; sweep++) {
      const unchangedBefore = await ticks(supervisor, 'unchanged');
      expect(await supervisor.sweep()).toMatchObject({ ticked: N, errors: 0 });
      expect(await ticks(supervisor, 'unchanged')).toBe(unchangedBefore + N);
    }

    expect(await storeWrites(supervisor)).toBe(writes);
    expect(await Promise.all(ids.map((_, i) => stat(documentPath(stateRoot, `q-${i}`)).then((s) => s.mtimeMs)))).toEqual(mtimes);
    expect(await Promise.all(ids.map((_, i) => readDocument(stateRoot, `q-${i}`)))).toEqual(docs);
  });
});
