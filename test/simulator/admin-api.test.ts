/**
 * The admin API under /_sim/, as an out-of-process driver (benchmark, crash test) uses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { authority, call, rpc } from './rpc.js';

let sim: RunningSimulator;
let ep: string;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '1.0' });
  ep = `${sim.url}/jsonrpc`;
});
afterAll(() => sim.close());

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${sim.origin}/_sim${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

describe('admin API', () => {
  it('creates 10,000 tasks in one call, each in its own context, all pollable', async () => {
    const { status, json } = await admin('POST', '/tasks', { count: 10_000, scenario: 'steady' });
    expect(status).toBe(200);
    expect(json.ids).toHaveLength(10_000);
    expect(new Set(json.ids).size).toBe(10_000);
    expect(new Set(json.contextIds).size).toBe(10_000);
    const task = await call(ep, 'GetTask', { id: json.ids[9_999], historyLength: 0 });
    expect(task).toMatchObject({ id: json.ids[9_999], contextId: json.contextIds[9_999], status: { state: 'TASK_STATE_WORKING' } });
    expect(sim.stats().tasksCreated).toBeGreaterThanOrEqual(10_000);
  });

  it('adds attempts to an existing context', async () => {
    const first = await admin('POST', '/tasks', { count: 1 });
    const second = await admin('POST', '/tasks', { count: 2, contextId: first.json.contextIds[0] });
    expect(second.json.contextIds).toEqual([first.json.contextIds[0], first.json.contextIds[0]]);
    expect((await admin('GET', `/tasks/${second.json.ids[1]}`)).json).toMatchObject({ attempt: 3, scenario: 'training' });
  });

  it('advances one task or all of them', async () => {
    const { json } = await admin('POST', '/tasks', { count: 1, scenario: 'training' });
    const id = json.ids[0];
    expect((await admin('POST', '/advance', { taskId: id, times: 4 })).json).toEqual({ advanced: 4 });
    expect((await admin('GET', `/tasks/${id}`)).json).toMatchObject({ state: 'working', stage: 'train', polls: 4 });
    expect((await admin('POST', '/advance', {})).json.advanced).toBeGreaterThan(1);
    expect((await admin('POST', '/advance', { taskId: 'nope' })).status).toBe(404);
  });

  it('forces a takeover and moves the clock', async () => {
    const { json } = await admin('POST', '/tasks', { count: 1, scenario: 'steady' });
    const contextId = json.contextIds[0];
    const taken = await admin('POST', '/takeover', { contextId, controllerId: 'rival-controller', ttlSeconds: 120 });
    expect(taken.json.lease).toMatchObject({ contextId, holder: 'rival-controller', epoch: 1, ttlSeconds: 120 });
    const task = await call(ep, 'GetTask', { id: json.ids[0] });
    expect(task.metadata[CONTROL_EXTENSION_URI].lease.holder).toBe('rival-controller');
    expect((await admin('POST', '/clock', { advanceSeconds: 121 })).status).toBe(200);
    expect((await call(ep, CONTROL_METHODS.leaseGet, { contextId })).lease).toBeNull();
  });

  it('arms and clears faults', async () => {
    expect((await admin('POST', '/faults', { kind: 'http-5xx', count: 1, methods: ['GetTask'] })).json).toEqual({ active: 1 });
    const [id] = sim.createTasks(1);
    const failed = await fetch(ep, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
    });
    expect(failed.status).toBe(503);
    expect((await admin('POST', '/faults', { faults: [{ kind: 'slow', delayMs: 5 }, { kind: 'oversized' }] })).json).toEqual({ active: 2 });
    expect((await admin('DELETE', '/faults')).json).toEqual({ active: 0 });
  });

  it('reports stats in the documented shape', async () => {
    const { json } = await admin('GET', '/stats');
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        'requests',
        'tasksCreated',
        'mutationsApplied',
        'appliedByRequestId',
        'staleMutationsRejected',
        'staleMutationsApplied',
        'duplicateRequestIdHits',
      ]),
    );
    expect(Object.keys(json.mutationsApplied).sort()).toEqual(['answer', 'cancel', 'claim', 'intervene', 'release', 'renew', 'submit']);
    expect(json.requests.GetTask).toBeGreaterThanOrEqual(1);
    expect(json).toEqual(sim.stats());
  });

  it('lists every mutation request it received, applied, rejected with the reason, or replayed', async () => {
    const { ids, contextIds } = sim.createTasksDetailed(1, 'steady');
    const [taskId, contextId] = [ids[0]!, contextIds[0]!];
    const since = (await admin('GET', '/ledger')).json.nextSeq as number;
    const claimed = await call(ep, CONTROL_METHODS.leaseClaim, { contextId, controllerId: 'ledger-test', ttlSeconds: 600, requestId: 'l-claim' });
    const epoch = claimed.lease.epoch as number;
    const cancel = (requestId: string, e: number) => rpc(ep, 'CancelTask', { id: taskId, metadata: authority('ledger-test', e, requestId) });
    await cancel('l-stale', epoch - 1);
    await call(ep, CONTROL_METHODS.intervene, { taskId, instruction: 'checkpoint', authority: { controllerId: 'ledger-test', epoch, requestId: 'l-int' } });
    await call(ep, CONTROL_METHODS.intervene, { taskId, instruction: 'checkpoint', authority: { controllerId: 'ledger-test', epoch, requestId: 'l-int' } });
    await rpc(ep, 'CancelTask', { id: taskId });
    await call(ep, CONTROL_METHODS.requestGet, { requestId: 'l-never' });
    await cancel('l-never', epoch);
    await cancel('l-cancel', epoch);

    const page = (await admin('GET', `/ledger?since=${since}`)).json;
    const brief = page.entries.map((e: any) => [e.requestId, e.method, e.disposition, e.reason]);
    expect(brief).toEqual([
      ['l-claim', CONTROL_METHODS.leaseClaim, 'applied', null],
      ['l-stale', 'CancelTask', 'rejected', 'lease_stale_epoch'],
      ['l-int', CONTROL_METHODS.intervene, 'applied', null],
      ['l-int', CONTROL_METHODS.intervene, 'replayed', 'duplicate_request_id'],
      [null, 'CancelTask', 'rejected', 'authority_missing'],
      ['l-never', 'CancelTask', 'rejected', 'request_id_tombstoned'],
      ['l-cancel', 'CancelTask', 'applied', null],
    ]);
    expect(page.entries.map((e: any) => e.seq)).toEqual(brief.map((_: unknown, i: number) => since + i));
    expect(page.nextSeq).toBe(since + brief.length);
    expect(page).toEqual(sim.ledger(since));
    expect((await admin('GET', `/ledger?since=${page.nextSeq}`)).json.entries).toEqual([]);
    expect((await admin('GET', '/ledger?since=zero')).status).toBe(400);
  });

  it('refuses malformed bodies with 400', async () => {
    expect((await admin('POST', '/tasks', { count: 0 })).status).toBe(400);
    expect((await admin('POST', '/tasks', { count: 1, scenario: 'nonsense' })).status).toBe(400);
    expect((await admin('POST', '/faults', { kind: 'meteor' })).status).toBe(400);
    expect((await admin('POST', '/takeover', {})).status).toBe(400);
  });
});
