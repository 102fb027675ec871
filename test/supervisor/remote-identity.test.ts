/**
 * Issue 7, defects 4 and 5, against the hand-written hostile remote over real loopback:
 * - an answer about another task (or in another context) is `remote_payload_invalid`: a failed
 *   read, never adopted, and no claim ever names the other context;
 * - create verifies the task: missing → 404 `remote_task_not_found`, unreachable → 503
 *   `remote_unavailable`, nothing stored either way;
 * - a task that disappears later raises exactly one CRITICAL that says it is missing.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../fixtures/fault-server.js';
import { forbiddenIn, startHostileFixture, type HostileFixture } from '../fixtures/hostile-harness.js';
import { createScope, documentPath, eventsOf, readDocument, summaryOf } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const create = (f: HostileFixture, campaignId = 'c1') =>
  f.post('campaigns', { action: 'create', campaign_id: campaignId, objective: 'o', remote_task_id: f.remote.taskId });
const act = (f: HostileFixture, action: string, extra: Record<string, unknown> = {}) => f.post('campaign_action', { campaign_id: 'c1', action, ...extra });
/** The machine context persisted in the document (v2: the one truth for the remote view and the lease). */
const machineContext = (doc: Awaited<ReturnType<typeof readDocument>>) =>
  (doc.machine.snapshot as { context: { remote: { taskId: string; contextId: string } | null; lease: unknown } }).context;
const claimedContexts = (f: HostileFixture) => f.remote.calls.filter((c) => c.method.endsWith('lease.claim')).map((c) => c.params.contextId);

describe('an answer about another task', () => {
  it('is a failed read (remote_payload_invalid), never adopted, and the claim after it names only the bound context', async () => {
    const f = await startHostileFixture(scope);
    expect((await create(f)).status).toBe(200);
    expect((await act(f, 'observe')).json).toMatchObject({ ok: true, changed: true, campaign: { remote: { context_id: 'ctx-A', stage: 'training' } } });

    f.remote.setMode('wrong-task');
    const lied = await act(f, 'observe');
    expect(lied.status).toBe(502);
    expect(lied.json).toMatchObject({ ok: false, error: { code: 'read_failed', read_code: 'remote_payload_invalid' } });
    expect(summaryOf(f.supervisor, 'c1')).toMatchObject({ consecutive_read_failures: 1, remote: { task_id: 'task-A', context_id: 'ctx-A' } });
    const doc = await readDocument(f.stateRoot, 'c1');
    expect(doc.remote.contextId).toBe('ctx-A');
    expect(machineContext(doc).remote).toMatchObject({ taskId: 'task-A', contextId: 'ctx-A' });
    expect(JSON.stringify(doc)).not.toContain('OTHER');

    // Counted like any failed read: the third in a row raises the one CRITICAL, named for what it is.
    await act(f, 'observe');
    await act(f, 'observe');
    const criticals = eventsOf(f.supervisor, 'c1').filter((e) => e.kind === 'CRITICAL');
    expect(criticals).toHaveLength(1);
    expect(criticals[0]!.data).toMatchObject({ reason: 'remote_payload_invalid', errorCode: 'remote_payload_invalid', consecutiveFailures: 3 });

    const claimed = await act(f, 'claim');
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimedContexts(f)).toEqual(['ctx-A']);
    for (const call of f.remote.calls) expect(JSON.stringify(call.params)).not.toContain('ctx-OTHER');
  });

  it('before any context is bound, makes the claim fail without any claim reaching the remote', async () => {
    const f = await startHostileFixture(scope);
    expect((await create(f)).status).toBe(200);
    f.remote.setMode('wrong-task');
    const claimed = await act(f, 'claim');
    expect(claimed.status).toBeGreaterThanOrEqual(400);
    expect(claimed.json.error!.message).toContain('remote_payload_invalid');
    expect(claimedContexts(f)).toEqual([]);
    expect((await readDocument(f.stateRoot, 'c1')).remote.contextId).toBeNull();
  });

  it('in another context than the bound one is invalid too', async () => {
    const f = await startHostileFixture(scope);
    await create(f);
    await act(f, 'observe');
    f.remote.setMode('wrong-context');
    expect((await act(f, 'observe')).json).toMatchObject({ ok: false, error: { code: 'read_failed', read_code: 'remote_payload_invalid' } });
    expect(summaryOf(f.supervisor, 'c1').remote.context_id).toBe('ctx-A');
    expect(machineContext(await readDocument(f.stateRoot, 'c1')).remote!.contextId).toBe('ctx-A');
  });
});

describe('a lease answer about another context', () => {
  it('is never taken as ours: the claim fails and the campaign keeps no lease on that context', async () => {
    const f = await startHostileFixture(scope);
    await create(f);
    await act(f, 'observe');
    f.remote.setMode('wrong-lease');
    const claimed = await act(f, 'claim');
    expect(claimed.status).toBeGreaterThanOrEqual(400);
    expect(claimed.json.error!.message).toContain('remote_payload_invalid');
    expect(summaryOf(f.supervisor, 'c1')).toMatchObject({ state: 'observing', lease: { mode: 'observer' }, remote: { context_id: 'ctx-A' } });
    const doc = await readDocument(f.stateRoot, 'c1');
    expect(machineContext(doc).lease).toBeNull();
    expect(JSON.stringify(doc)).not.toContain('ctx-OTHER');
  });
});

describe('create verifies the remote task', () => {
  it('answers 404 remote_task_not_found for a task the remote does not have, and stores nothing', async () => {
    const f = await startHostileFixture(scope);
    f.remote.setMode('missing-task');
    const created = await create(f);
    expect(created.status, created.text).toBe(404);
    expect(created.json).toEqual({ ok: false, error: { code: 'remote_task_not_found', message: expect.any(String) } });
    expect(existsSync(documentPath(f.stateRoot, 'c1'))).toBe(false);
    expect((await f.post('campaigns', { action: 'list' })).json).toEqual({ ok: true, campaigns: [] });
    // Nothing stored means the same id can be created once the task exists.
    f.remote.setMode('honest');
    expect((await create(f)).status).toBe(200);
  });

  it('answers 503 remote_unavailable when the remote cannot be reached, and stores nothing', async () => {
    const f = await startHostileFixture(scope, { url: `http://127.0.0.1:${await closedPort()}/a2a` });
    const created = await create(f);
    expect(created.status, created.text).toBe(503);
    expect(created.json).toEqual({ ok: false, error: { code: 'remote_unavailable', message: expect.any(String) } });
    expect(existsSync(documentPath(f.stateRoot, 'c1'))).toBe(false);
  });
});

describe('a task that disappears later', () => {
  it('raises exactly one CRITICAL saying the task is missing, not that the remote has not answered', async () => {
    const f = await startHostileFixture(scope);
    await create(f);
    await act(f, 'observe');
    f.remote.setMode('missing-task');
    for (let i = 0; i < 5; i++) expect((await act(f, 'observe')).json).toMatchObject({ ok: false, error: { code: 'read_failed', read_code: 'task_not_found' } });

    const criticals = eventsOf(f.supervisor, 'c1').filter((e) => e.kind === 'CRITICAL');
    expect(criticals).toHaveLength(1);
    expect(criticals[0]!.data).toMatchObject({ reason: 'remote_task_missing', errorCode: 'task_not_found', consecutiveFailures: 3 });
    expect(criticals[0]!.summary).toMatch(/missing/);
    expect(criticals[0]!.summary).not.toMatch(/has not answered/);
    expect(summaryOf(f.supervisor, 'c1')).toMatchObject({ consecutive_read_failures: 5, remote: { state: 'working' } });
    // The remote's poisoned error text reached the answers only sanitized and redacted.
    for (const answer of f.answers) {
      expect(answer.text).not.toContain(f.token);
      expect(forbiddenIn(answer.text)).toEqual([]);
    }
    for (const line of f.lines) expect(line).not.toContain(f.token);
  });
});
