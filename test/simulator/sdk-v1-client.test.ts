/**
 * A third party's view: the 1.0 simulator driven by @a2a-js/sdk's own client (ClientFactory,
 * JSON-RPC transport). If the SDK can discover, submit, poll and cancel, the simulator is a
 * valid A2A 1.0 server and not merely something our own client agrees with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, ServiceParameters, withA2AExtensions, type Client } from '@a2a-js/sdk/client';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS, type ControlTaskMetadata } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { call } from './rpc.js';
import { nonBlocking, userMessage } from './sdk-message.js';
import { canary } from '../fixtures/canary.js';

let sim: RunningSimulator;
let client: Client;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '1.0' });
  // Relative card resolution needs the trailing slash to stay under /a2a.
  client = await new ClientFactory().createFromUrl(`${sim.url}/`);
});
afterAll(() => sim.close());

const control = (task: Task) => task.metadata?.[CONTROL_EXTENSION_URI] as ControlTaskMetadata;
const isTask = (value: unknown): value is Task => typeof value === 'object' && value !== null && 'status' in value;

async function submit(text = 'train the baseline'): Promise<Task> {
  const result = await client.sendMessage(nonBlocking(userMessage(text)));
  if (!isTask(result)) throw new Error('expected a task');
  return result;
}

describe('1.0 simulator through the @a2a-js/sdk client', () => {
  it('publishes a 1.0 card with a JSONRPC interface and the control extension', async () => {
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${sim.url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    const extension = card.capabilities?.extensions.find((e) => e.uri === CONTROL_EXTENSION_URI);
    expect(extension?.params).toMatchObject({ epochEnforcement: true, requestReadback: true, leaseScope: 'context' });
  });

  it('answers a non-blocking SendMessage at once with a submitted task carrying compact metadata', async () => {
    const task = await submit();
    expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(control(task)).toMatchObject({ revision: 1, stage: null, attempt: 1, attemptId: 'att-1', lease: null });
  });

  it('progresses on every GetTask until completed with an evaluation artifact', async () => {
    const task = await submit();
    const seen: { state: TaskState; stage: string | null; revision: number }[] = [];
    let last: Task = task;
    for (let i = 0; i < 20 && last.status?.state !== TaskState.TASK_STATE_COMPLETED; i++) {
      last = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
      seen.push({ state: last.status!.state, stage: control(last).stage, revision: control(last).revision });
    }
    expect(last.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen).toHaveLength(10);
    expect(new Set(seen.map((s) => s.stage))).toEqual(new Set(['prepare', 'train', 'evaluate']));
    const revisions = seen.map((s) => s.revision);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(last.history).toEqual([]);
    expect(last.artifacts.map((a) => a.name)).toEqual(['evaluation']);
    expect(last.artifacts[0]!.parts[0]!.content).toMatchObject({ $case: 'text' });
  });

  it('cancels a running task, and refuses to cancel a finished one', async () => {
    const task = await submit();
    await client.getTask({ tenant: '', id: task.id });
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const again = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const [done] = sim.createTasks(1, 'failed');
    for (let i = 0; i < 20 && sim.task(done!)?.state !== 'failed'; i++) sim.advance(done!);
    await expect(client.cancelTask({ tenant: '', id: done!, metadata: undefined })).rejects.toThrow();
  });

  it('reports an unknown task as TaskNotFound', async () => {
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toMatchObject({ name: expect.stringMatching(/TaskNotFound/) });
  });

  it('fences a cancel sent by the SDK client once the context is leased', async () => {
    const task = await submit();
    const claim = await call(`${sim.url}/jsonrpc`, CONTROL_METHODS.leaseClaim, {
      contextId: task.contextId,
      controllerId: 'argus-openoperator',
      ttlSeconds: 600,
      requestId: 'sdk-claim-1',
    });
    const options = { serviceParameters: ServiceParameters.create(withA2AExtensions(CONTROL_EXTENSION_URI)) };
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, options)).rejects.toMatchObject({ envelopeCode: -32053 });
    const authority = { [CONTROL_EXTENSION_URI]: { controllerId: 'argus-openoperator', epoch: claim.lease.epoch, requestId: 'sdk-cancel-1' } };
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: authority }, options);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(control(canceled).lease).toMatchObject({ holder: 'argus-openoperator', epoch: claim.lease.epoch });
  });

  it('parses the card of a secured simulator and authenticates per call', async () => {
    const token = canary('sdk-token');
    const secured = await startSimulator({ token });
    try {
      const securedClient = await new ClientFactory().createFromUrl(`${secured.url}/`);
      const card = await securedClient.getAgentCard();
      expect(card.securitySchemes['bearer']?.scheme?.$case).toBe('httpAuthSecurityScheme');
      const [id] = secured.createTasks(1, 'steady');
      await expect(securedClient.getTask({ tenant: '', id: id! })).rejects.toThrow();
      const task = await securedClient.getTask({ tenant: '', id: id! }, { serviceParameters: { authorization: `Bearer ${token}` } });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    } finally {
      await secured.close();
    }
  });
});
