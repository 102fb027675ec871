/**
 * The fencing half of the control extension: every mutation (submit, cancel, intervene)
 * checked against the context's lease and epoch, request-id idempotency, readback with
 * tombstones, takeover, and the naive remote that applies stale mutations and counts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_ERROR_CODES, CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { authority, call, errorCode, getJson, rpc } from './rpc.js';

const CONTROLLER = 'argus-openoperator';
const { leaseClaim, intervene, requestGet } = CONTROL_METHODS;

let sim: RunningSimulator;
let ep: string;
let seq = 0;
const rid = (prefix = 'req') => `${prefix}-${++seq}`;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '1.0', clock: () => Date.UTC(2026, 0, 1) });
  ep = `${sim.url}/jsonrpc`;
});
afterAll(() => sim.close());

/** A running task in a context leased by CONTROLLER; returns ids and the epoch. */
async function leasedTask(scenario: 'steady' | 'blocker' = 'steady') {
  const { ids, contextIds } = sim.createTasksDetailed(1, scenario);
  const { lease } = await call(ep, leaseClaim, { contextId: contextIds[0], controllerId: CONTROLLER, ttlSeconds: 600, requestId: rid('claim') });
  return { taskId: ids[0]!, contextId: contextIds[0]!, epoch: lease.epoch as number };
}

const submitParams = (contextId: string, meta?: Record<string, unknown>, text = 'next attempt') => ({
  message: { messageId: rid('msg'), role: 'ROLE_USER', contextId, parts: [{ text }], metadata: meta, extensions: [CONTROL_EXTENSION_URI] },
  configuration: { returnImmediately: true },
});

describe('fenced mutations', () => {
  it('rejects a submit in a leased context without authority, with a stale epoch, or from a non-holder', async () => {
    const { contextId, epoch } = await leasedTask();
    expect(await errorCode(ep, 'SendMessage', submitParams(contextId))).toBe(CONTROL_ERROR_CODES.authorityMissing);
    expect(await errorCode(ep, 'SendMessage', submitParams(contextId, authority(CONTROLLER, epoch - 1, rid())))).toBe(CONTROL_ERROR_CODES.leaseStaleEpoch);
    expect(await errorCode(ep, 'SendMessage', submitParams(contextId, authority('someone-else', epoch, rid())))).toBe(CONTROL_ERROR_CODES.leaseNotHeld);
    const created = await call(ep, 'SendMessage', submitParams(contextId, authority(CONTROLLER, epoch, rid())));
    expect(created.task.metadata[CONTROL_EXTENSION_URI]).toMatchObject({ attempt: 2, attemptId: 'att-2', lease: { holder: CONTROLLER, epoch } });
  });

  it('rejects every mutation once the lease expired', async () => {
    const { taskId, contextId, epoch } = await leasedTask();
    sim.advanceClock(601);
    expect(await errorCode(ep, 'SendMessage', submitParams(contextId, authority(CONTROLLER, epoch, rid())))).toBe(CONTROL_ERROR_CODES.leaseNotHeld);
    expect(await errorCode(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch, rid()) })).toBe(CONTROL_ERROR_CODES.leaseNotHeld);
    expect(await errorCode(ep, intervene, { taskId, instruction: 'x', authority: authority(CONTROLLER, epoch, rid())[CONTROL_EXTENSION_URI] })).toBe(
      CONTROL_ERROR_CODES.leaseNotHeld,
    );
  });

  it('fences cancel and intervene the same way, and intervene answers an input-required task', async () => {
    const { taskId, epoch } = await leasedTask('blocker');
    for (let i = 0; i < 20 && sim.task(taskId)?.state !== 'input-required'; i++) sim.advance(taskId);
    expect(await errorCode(ep, intervene, { taskId, instruction: 'lower the LR' })).toBe(CONTROL_ERROR_CODES.authorityMissing);
    expect(await errorCode(ep, 'CancelTask', { id: taskId })).toBe(CONTROL_ERROR_CODES.authorityMissing);
    const requestId = rid('intervene');
    const applied = await call(ep, intervene, { taskId, instruction: 'lower the LR', authority: { controllerId: CONTROLLER, epoch, requestId } });
    expect(applied).toEqual({ requestId, status: 'applied' });
    expect(sim.task(taskId)?.state).toBe('working');
    const canceled = await call(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch, rid()) });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('leaves contexts nobody leased to plain A2A clients', async () => {
    const [taskId] = sim.createTasks(1, 'steady');
    expect((await call(ep, 'CancelTask', { id: taskId })).status.state).toBe('TASK_STATE_CANCELED');
    // Authority for a context nobody leased is not honoured.
    const [other] = sim.createTasks(1, 'steady');
    expect(await errorCode(ep, 'CancelTask', { id: other, metadata: authority(CONTROLLER, 1, rid()) })).toBe(CONTROL_ERROR_CODES.leaseNotHeld);
  });

  it('rejects malformed authority as invalid params', async () => {
    const { taskId } = await leasedTask();
    const bad = { [CONTROL_EXTENSION_URI]: { controllerId: CONTROLLER, epoch: 'one', requestId: 'r' } };
    expect(await errorCode(ep, 'CancelTask', { id: taskId, metadata: bad })).toBe(-32602);
  });
});

describe('request ids', () => {
  it('answers a retransmission with the original result and applies it once', async () => {
    const { contextId, epoch } = await leasedTask();
    const requestId = rid('submit');
    const params = submitParams(contextId, authority(CONTROLLER, epoch, requestId));
    const before = sim.stats();
    const first = await call(ep, 'SendMessage', params);
    const again = await call(ep, 'SendMessage', { ...params, message: { ...params.message, messageId: 'a-new-transport-id' } });
    expect(again).toEqual(first);
    const after = sim.stats();
    expect(after.tasksCreated - before.tasksCreated).toBe(1);
    expect(after.mutationsApplied.submit - before.mutationsApplied.submit).toBe(1);
    expect(after.appliedByRequestId[requestId]).toBe(1);
    expect(after.duplicateRequestIdHits - before.duplicateRequestIdHits).toBe(1);
  });

  it('refuses a request id re-used with another payload', async () => {
    const { taskId, contextId, epoch } = await leasedTask();
    const requestId = rid('reuse');
    await call(ep, 'SendMessage', submitParams(contextId, authority(CONTROLLER, epoch, requestId), 'one'));
    expect(await errorCode(ep, 'SendMessage', submitParams(contextId, authority(CONTROLLER, epoch, requestId), 'two'))).toBe(
      CONTROL_ERROR_CODES.requestIdConflict,
    );
    expect(await errorCode(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch, requestId) })).toBe(CONTROL_ERROR_CODES.requestIdConflict);
  });

  it('reads back applied and rejected requests, and tombstones ids it never saw', async () => {
    const { taskId, epoch } = await leasedTask();
    const applied = rid('cancel');
    await call(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch, applied) });
    expect(await call(ep, requestGet, { requestId: applied })).toEqual({ requestId: applied, status: 'applied', action: 'cancel', taskId });

    const stale = rid('stale');
    await rpc(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch + 5, stale) });
    expect(await call(ep, requestGet, { requestId: stale })).toMatchObject({ requestId: stale, status: 'not_applied', action: 'cancel' });

    const unseen = rid('in-doubt');
    expect(await call(ep, requestGet, { requestId: unseen })).toEqual({ requestId: unseen, status: 'not_applied' });
    // The delayed retransmission of the in-doubt request can no longer land.
    const { taskId: other, epoch: e2 } = await leasedTask();
    expect(await errorCode(ep, 'CancelTask', { id: other, metadata: authority(CONTROLLER, e2, unseen) })).toBe(CONTROL_ERROR_CODES.requestIdConflict);
    expect(sim.task(other)?.state).not.toBe('canceled');
  });

  it('replays lease calls by request id too', async () => {
    const requestId = rid('claim');
    const first = await call(ep, leaseClaim, { controllerId: CONTROLLER, ttlSeconds: 600, requestId });
    const again = await call(ep, leaseClaim, { controllerId: CONTROLLER, ttlSeconds: 600, requestId });
    expect(again).toEqual(first);
    expect(await call(ep, requestGet, { requestId })).toMatchObject({ status: 'applied', action: 'claim' });
  });
});

describe('takeover', () => {
  it('bumps the epoch for the rival; the old controller is then stale', async () => {
    const { taskId, contextId, epoch } = await leasedTask();
    const lease = sim.takeover(contextId, 'rival-controller');
    expect(lease).toMatchObject({ holder: 'rival-controller', epoch: epoch + 1 });
    const read = await call(ep, 'GetTask', { id: taskId, historyLength: 0 });
    expect(read.metadata[CONTROL_EXTENSION_URI].lease).toMatchObject({ holder: 'rival-controller', epoch: epoch + 1 });
    const rejectedBefore = sim.stats().staleMutationsRejected;
    expect(await errorCode(ep, 'CancelTask', { id: taskId, metadata: authority(CONTROLLER, epoch, rid()) })).toBe(CONTROL_ERROR_CODES.leaseStaleEpoch);
    expect(sim.stats().staleMutationsRejected).toBe(rejectedBefore + 1);
  });

  it('the takeover scenario lets rival-controller claim the context at its second poll', async () => {
    const { ids, contextIds } = sim.createTasksDetailed(1, 'takeover');
    const { lease } = await call(ep, leaseClaim, { contextId: contextIds[0], controllerId: CONTROLLER, ttlSeconds: 600, requestId: rid() });
    const first = await call(ep, 'GetTask', { id: ids[0], historyLength: 0 });
    expect(first.metadata[CONTROL_EXTENSION_URI].lease).toMatchObject({ holder: CONTROLLER, epoch: lease.epoch });
    const second = await call(ep, 'GetTask', { id: ids[0], historyLength: 0 });
    expect(second.metadata[CONTROL_EXTENSION_URI].lease).toMatchObject({ holder: 'rival-controller', epoch: lease.epoch + 1 });
  });
});

describe('activation header', () => {
  it('echoes the activated extension and counts calls that did not activate it', async () => {
    const reply = await rpc(ep, CONTROL_METHODS.leaseGet, { contextId: 'ctx-none' });
    expect(reply.headers.get('a2a-extensions')).toBe(CONTROL_EXTENSION_URI);
    const before = sim.stats().extensionNotActivated;
    await rpc(ep, CONTROL_METHODS.leaseGet, { contextId: 'ctx-none' }, { activate: false });
    expect(sim.stats().extensionNotActivated).toBe(before + 1);
    const [taskId] = sim.createTasks(1, 'steady');
    const get = await rpc(ep, 'GetTask', { id: taskId });
    expect(get.headers.get('a2a-extensions')).toBe(CONTROL_EXTENSION_URI);
  });
});

describe('a naive remote (enforceEpochs: false)', () => {
  let naive: RunningSimulator;
  let nep: string;
  beforeAll(async () => {
    naive = await startSimulator({ enforceEpochs: false });
    nep = `${naive.url}/jsonrpc`;
  });
  afterAll(() => naive.close());

  it('still claims to fence, but applies stale mutations and counts them', async () => {
    const card = await getJson(`${naive.url}/.well-known/agent-card.json`, { 'A2A-Version': '1.0' });
    expect(card.capabilities.extensions[0].params.epochEnforcement).toBe(true);
    const { ids, contextIds } = naive.createTasksDetailed(1, 'steady');
    const { lease } = await call(nep, leaseClaim, { contextId: contextIds[0], controllerId: CONTROLLER, ttlSeconds: 600, requestId: 'n-claim' });
    naive.takeover(contextIds[0]!, 'rival-controller');
    const canceled = await call(nep, 'CancelTask', { id: ids[0], metadata: authority(CONTROLLER, lease.epoch, 'n-cancel') });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const stats = naive.stats();
    expect(stats.staleMutationsApplied).toBe(1);
    expect(stats.staleMutationsRejected).toBe(0);
    expect(stats.appliedByRequestId['n-cancel']).toBe(1);
  });

  it('applies an unauthorised intervene in a leased context and counts it', async () => {
    const { ids, contextIds } = naive.createTasksDetailed(1, 'steady');
    await call(nep, leaseClaim, { contextId: contextIds[0], controllerId: CONTROLLER, ttlSeconds: 600, requestId: 'n-claim-2' });
    const before = naive.stats().staleMutationsApplied;
    expect(await call(nep, intervene, { taskId: ids[0], instruction: 'no authority' })).toMatchObject({ status: 'applied' });
    expect(naive.stats().staleMutationsApplied).toBe(before + 1);
  });
});
