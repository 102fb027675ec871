/**
 * The simulator's side of an answer (a SendMessage / message/send naming an existing task), in
 * every dialect through the real A2A client: fenced by the task's own context like a submit,
 * applied only to a task waiting in input-required (then `working`), recorded as `answer` in
 * the request ledger and its readback, refused with -32055 otherwise, one answer per question
 * even when two race, and a context other than the task's is refused. A plain follow-up
 * (no authority, a context nobody leased) is still served as before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CONTROL_ERROR_CODES, CONTROL_EXTENSION_URI, createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import { startSimulator, type RunningSimulator, type SimProtocol } from '../../simulator/index.js';
import { call, rpc } from './rpc.js';

const CONTROLLER = 'argus-answer-sim';
const opened: { sim: RunningSimulator; client: A2AClient }[] = [];
afterAll(async () => {
  for (const { sim, client } of opened) {
    await client.close();
    await sim.close();
  }
});

async function world(protocol: SimProtocol) {
  const sim = await startSimulator({ protocol, pollsPerStage: 1 });
  const client = createA2AClient({ baseUrl: sim.url });
  opened.push({ sim, client });
  return { sim, client };
}

let seq = 0;
const rid = () => `answer-req-${++seq}`;

async function asking(sim: RunningSimulator, client: A2AClient, scenario: 'blocker' | 'steady' = 'blocker') {
  const { ids, contextIds } = sim.createTasksDetailed(1, scenario);
  const taskId = ids[0]!;
  const contextId = contextIds[0]!;
  if (scenario === 'blocker') for (let i = 0; i < 20 && sim.task(taskId)!.state !== 'input-required'; i++) sim.advance(taskId);
  const claimed = await client.control.leaseClaim({ contextId, controllerId: CONTROLLER, ttlSeconds: 600, requestId: rid() });
  if (!claimed.ok || !claimed.value.lease) throw new Error(`claim failed: ${JSON.stringify(claimed)}`);
  return { taskId, contextId, epoch: claimed.value.lease.epoch };
}

describe.each<SimProtocol>(['1.0', '0.3', '0.2'])('answer in the %s dialect', (protocol) => {
  it('applies once to the waiting task, which moves on; the ledger and readback say answer; a second answer is refused', async () => {
    const { sim, client } = await world(protocol);
    const { taskId, contextId, epoch } = await asking(sim, client);
    const requestId = rid();
    const r = await client.reply({ taskId, contextId, text: 'yes, lower it', authority: { controllerId: CONTROLLER, epoch, requestId } });
    expect(r.ok && { id: r.value.id, contextId: r.value.contextId, state: r.value.state }).toEqual({ id: taskId, contextId, state: 'working' });
    expect(sim.task(taskId)!.state).toBe('working');
    expect(sim.stats().mutationsApplied.answer).toBe(1);
    expect(sim.ledger().entries.filter((e) => e.requestId === requestId)).toEqual([expect.objectContaining({ action: 'answer', disposition: 'applied', reason: null })]);
    expect(await client.control.requestGet({ requestId })).toEqual({ ok: true, value: { requestId, status: 'applied', action: 'answer', taskId } });

    const second = await client.reply({ taskId, contextId, text: 'again', authority: { controllerId: CONTROLLER, epoch, requestId: rid() } });
    expect(second.ok ? 'ok' : [second.error.code, second.error.outcome, second.error.rpcCode]).toEqual(['task_not_awaiting_input', 'rejected', CONTROL_ERROR_CODES.taskNotAwaitingInput]);
    expect(sim.stats().mutationsApplied.answer).toBe(1);
  });

  it('a retransmission of the applied answer gets the first answer back, with no second effect', async () => {
    const { sim, client } = await world(protocol);
    const { taskId, contextId, epoch } = await asking(sim, client);
    const authority = { controllerId: CONTROLLER, epoch, requestId: rid() };
    expect((await client.reply({ taskId, contextId, text: 'yes', authority })).ok).toBe(true);
    const again = await client.reply({ taskId, contextId, text: 'yes', authority });
    expect(again.ok && again.value.id).toBe(taskId);
    expect(sim.stats().mutationsApplied.answer).toBe(1);
    expect(sim.stats().duplicateRequestIdHits).toBe(1);
  });
});

describe('answer refusals (1.0)', () => {
  it('a task that asks nothing: -32055, nothing changes, logged as a rejected answer', async () => {
    const { sim, client } = await world('1.0');
    const { taskId, contextId, epoch } = await asking(sim, client, 'steady');
    sim.advance(taskId);
    const before = sim.task(taskId);
    const requestId = rid();
    const r = await client.reply({ taskId, contextId, text: 'x', authority: { controllerId: CONTROLLER, epoch, requestId } });
    expect(r.ok ? 'ok' : r.error.code).toBe('task_not_awaiting_input');
    expect(sim.task(taskId)).toEqual(before);
    expect(sim.ledger().entries.filter((e) => e.requestId === requestId)).toEqual([expect.objectContaining({ action: 'answer', disposition: 'rejected', reason: 'task_not_awaiting_input' })]);
    expect(await client.control.requestGet({ requestId })).toMatchObject({ ok: true, value: { status: 'not_applied', action: 'answer' } });
  });

  it('a lease on another context answers nothing: fenced by the task own context, a named mismatch is -32602', async () => {
    const { sim, client } = await world('1.0');
    const asked = await asking(sim, client);
    const mine = await asking(sim, client, 'steady');
    // Authority for the context we hold, aimed at a task that lives in another one.
    const viaOther = await client.reply({ taskId: asked.taskId, contextId: mine.contextId, text: 'x', authority: { controllerId: CONTROLLER, epoch: mine.epoch, requestId: rid() } });
    expect(viaOther.ok ? 'ok' : viaOther.error.rpcCode).toBe(-32602);
    const ep = `${sim.url}/jsonrpc`;
    const unnamed = await rpc(ep, 'SendMessage', {
      message: { messageId: 'm-x', role: 'ROLE_USER', taskId: asked.taskId, parts: [{ text: 'x' }], metadata: { [CONTROL_EXTENSION_URI]: { controllerId: 'someone-else', epoch: asked.epoch, requestId: rid() } } },
      configuration: { returnImmediately: true },
    });
    expect(unnamed.body.error?.code).toBe(CONTROL_ERROR_CODES.leaseNotHeld);
    expect(sim.task(asked.taskId)!.state).toBe('input-required');
    expect(sim.stats().mutationsApplied.answer).toBe(0);
  });

  it('twenty answers sent at once to one question: exactly one is applied', async () => {
    const { sim, client } = await world('1.0');
    const { taskId, contextId, epoch } = await asking(sim, client);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => String(i)).map((text) => client.reply({ taskId, contextId, text, authority: { controllerId: CONTROLLER, epoch, requestId: rid() } })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(new Set(results.filter((r) => !r.ok).map((r) => !r.ok && r.error.code))).toEqual(new Set(['task_not_awaiting_input']));
    expect(sim.stats().mutationsApplied.answer).toBe(1);
  });

  it('a plain follow-up in a context nobody leased is still served (plain A2A clients)', async () => {
    const { sim } = await world('1.0');
    const [taskId] = sim.createTasks(1, 'blocker');
    for (let i = 0; i < 20 && sim.task(taskId!)!.state !== 'input-required'; i++) sim.advance(taskId);
    const answered = await call(`${sim.url}/jsonrpc`, 'SendMessage', {
      message: { messageId: 'plain-1', role: 'ROLE_USER', taskId, parts: [{ text: 'yes' }] },
      configuration: { returnImmediately: true },
    });
    expect(answered.task.status.state).toBe('TASK_STATE_WORKING');
    expect(sim.ledger().entries.at(-1)).toMatchObject({ requestId: null, action: 'answer', disposition: 'applied' });
  });
});
