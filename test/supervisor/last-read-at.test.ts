/**
 * Every campaign view carries `last_read_at` (the last successful read, material or not) beside
 * `observed_at` (the last material change). It lives in memory only: an unchanged tick still
 * costs one request, no document read and no write. Real loopback remote, a clock the test moves.
 */
import { stat } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { canary } from '../fixtures/canary.js';
import { startHostileServer } from '../fixtures/hostile-server.js';
import { createScope, documentPath, envFor, readDocument, storeWrites, summaryOf, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe('last_read_at', () => {
  it('moves on every successful read, including an unchanged tick that reads and writes no document', async () => {
    const token = canary('last-read-token');
    const remote = scope.defer(await startHostileServer({ token }), (r) => r.close());
    const stateRoot = await tempStateRoot(scope);
    let clock = T0;
    const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: remote.base, token })), now: () => new Date(clock) });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    scope.defer(supervisor, (s) => s.stop());

    const created = await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: remote.taskId });
    // Create's verifying read is the first successful read; nothing was observed yet.
    expect(created).toMatchObject({ ok: true, value: { campaign: { remote: { observed_at: null, last_read_at: new Date(T0).toISOString() } } } });

    clock += 60_000;
    const observed = await supervisor.observe('c1');
    const firstRead = new Date(clock).toISOString();
    expect(observed).toMatchObject({ ok: true, value: { changed: true, campaign: { remote: { observed_at: firstRead, last_read_at: firstRead } } } });

    // An unchanged tick: one request, no document read, no write; only last_read_at moves.
    const store = supervisor.store!;
    const loads = vi.spyOn(store, 'load');
    const transacts = vi.spyOn(store, 'transact');
    const writes = await storeWrites(supervisor);
    const mtime = (await stat(documentPath(stateRoot, 'c1'))).mtimeMs;
    const getTasks = () => remote.calls.filter((c) => c.method === 'GetTask').length;
    const requestsBefore = getTasks();
    clock += 120_000;
    expect(await supervisor.sweep()).toMatchObject({ ticked: 1, errors: 0 });
    const secondRead = new Date(clock).toISOString();

    expect(getTasks()).toBe(requestsBefore + 1);
    expect(loads).not.toHaveBeenCalled();
    expect(transacts).not.toHaveBeenCalled();
    expect(await storeWrites(supervisor)).toBe(writes);
    expect((await stat(documentPath(stateRoot, 'c1'))).mtimeMs).toBe(mtime);
    expect(summaryOf(supervisor, 'c1').remote).toMatchObject({ observed_at: firstRead, last_read_at: secondRead });
    const got = await supervisor.campaigns({ action: 'get', campaign_id: 'c1' });
    expect(got).toMatchObject({ ok: true, value: { campaign: { remote: { observed_at: firstRead, last_read_at: secondRead } } } });
    // The document never holds it (memory only).
    expect(JSON.stringify(await readDocument(stateRoot, 'c1'))).not.toContain(secondRead);

    // A failed read is not a read: last_read_at stays where the last success put it.
    remote.setMode('missing-task');
    clock += 120_000;
    expect(await supervisor.observe('c1')).toMatchObject({ ok: false, error: { code: 'read_failed', read_code: 'task_not_found' } });
    expect(summaryOf(supervisor, 'c1').remote.last_read_at).toBe(secondRead);
  });
});
