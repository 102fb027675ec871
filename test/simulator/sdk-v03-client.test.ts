/**
 * The 0.3 simulator (the SDK's legacy compatibility layer behind a 0.3-shaped card) driven
 * by the last 0.3 SDK's own client, `A2AClient` from @a2a-js/sdk@0.3.14.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from 'a2a-sdk-v03/client';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { authority } from './rpc.js';

let sim: RunningSimulator;
let client: A2AClient;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '0.3' });
  client = await A2AClient.fromCardUrl(`${sim.url}/.well-known/agent-card.json`);
});
afterAll(() => sim.close());

/** The 0.3 client returns JSON-RPC envelopes; unwrap or fail with the error. */
function ok<T>(response: { result?: T; error?: unknown } | object): T {
  if ('error' in response && response.error) throw new Error(JSON.stringify(response.error));
  return (response as { result: T }).result;
}

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message' as const,
  role: 'user' as const,
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  parts: [{ kind: 'text' as const, text }],
  ...extra,
});

async function submitTask(extra: Record<string, unknown> = {}) {
  const result: any = ok(await client.sendMessage({ message: message('train the baseline', extra), configuration: { blocking: false } }));
  expect(result.kind).toBe('task');
  return result as { id: string; contextId: string; status: { state: string } };
}

describe('0.3 simulator through the a2a-sdk 0.3.14 client', () => {
  it('serves a 0.3-shaped card naming its JSON-RPC url', async () => {
    const card: any = await client.getAgentCard();
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${sim.url}/jsonrpc`, preferredTransport: 'JSONRPC' });
    expect(card.capabilities.extensions[0].uri).toBe(CONTROL_EXTENSION_URI);
    expect(card.supportedInterfaces).toBeUndefined();
  });

  it('answers message/send (blocking: false) with a submitted task, and polls to completion', async () => {
    const task = await submitTask();
    expect(task.status.state).toBe('submitted');
    const states: string[] = [];
    let last: any;
    for (let i = 0; i < 20 && last?.status.state !== 'completed'; i++) {
      last = ok(await client.getTask({ id: task.id, historyLength: 0 }));
      states.push(last.status.state);
    }
    expect(states.at(-1)).toBe('completed');
    expect(states.slice(0, -1).every((s) => s === 'working')).toBe(true);
    expect(last.kind).toBe('task');
    expect(last.artifacts[0]).toMatchObject({ name: 'evaluation' });
    expect(last.artifacts[0].parts[0]).toMatchObject({ kind: 'text' });
    expect(last.metadata[CONTROL_EXTENSION_URI]).toMatchObject({ stage: 'evaluate', attempt: 1 });
  });

  it('cancels with tasks/cancel and reports an unknown task as -32001', async () => {
    const task = await submitTask();
    const canceled: any = ok(await client.cancelTask({ id: task.id }));
    expect(canceled.status.state).toBe('canceled');
    const missing: any = await client.getTask({ id: 'no-such-task' });
    expect(missing.error.code).toBe(-32001);
  });

  it('reaches the control extension through callExtensionMethod and fences tasks/cancel', async () => {
    const task = await submitTask();
    const claim: any = ok(
      await client.callExtensionMethod(CONTROL_METHODS.leaseClaim, {
        contextId: task.contextId,
        controllerId: 'argus-openoperator',
        ttlSeconds: 300,
        requestId: 'v03-claim-1',
      }),
    );
    expect(claim.lease).toMatchObject({ contextId: task.contextId, holder: 'argus-openoperator', epoch: 1 });
    const stale: any = await client.cancelTask({ id: task.id, metadata: authority('argus-openoperator', 0, 'v03-cancel-0') });
    expect(stale.error.code).toBe(-32051);
    const canceled: any = ok(await client.cancelTask({ id: task.id, metadata: authority('argus-openoperator', 1, 'v03-cancel-1') }));
    expect(canceled.status.state).toBe('canceled');
    expect(sim.stats().appliedByRequestId['v03-cancel-1']).toBe(1);
  });

  it('fences a new attempt in the leased context (metadata on the message)', async () => {
    const first = await submitTask();
    ok(await client.callExtensionMethod(CONTROL_METHODS.leaseClaim, { contextId: first.contextId, controllerId: 'c', ttlSeconds: 300, requestId: 'v03-claim-2' }));
    const missing: any = await client.sendMessage({ message: message('again', { contextId: first.contextId }), configuration: { blocking: false } });
    expect(missing.error.code).toBe(-32053);
    const second: any = ok(
      await client.sendMessage({
        message: message('again', { contextId: first.contextId, metadata: authority('c', 1, 'v03-submit-1'), extensions: [CONTROL_EXTENSION_URI] }),
        configuration: { blocking: false },
      }),
    );
    expect(second.contextId).toBe(first.contextId);
    expect(second.metadata[CONTROL_EXTENSION_URI]).toMatchObject({ attempt: 2, attemptId: 'att-2' });
  });
});
