/**
 * `control: false` is a plain, read-only-for-us remote: no extension in the card, custom
 * methods refused like any server that never heard of them, no extension metadata on tasks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { SIM_PROTOCOLS, startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { endpointOf, versionOf } from './endpoints.js';
import { authority, call, errorCode, getJson } from './rpc.js';

describe.each(SIM_PROTOCOLS)('control: false over the %s dialect', (protocol) => {
  let sim: RunningSimulator;
  const opts = { version: versionOf(protocol) };

  beforeAll(async () => {
    sim = await startSimulator({ protocol, control: false });
  });
  afterAll(() => sim.close());

  it('declares no extension in its card', async () => {
    const cardUrl = protocol === '0.2' ? `${sim.origin}/.well-known/agent.json` : `${sim.url}/.well-known/agent-card.json`;
    const card = await getJson(cardUrl, { 'A2A-Version': protocol === '1.0' ? '1.0' : '0.3' });
    expect(card.capabilities.extensions ?? []).toEqual([]);
  });

  it('answers every control method with -32601', async () => {
    for (const method of Object.values(CONTROL_METHODS)) {
      expect(await errorCode(endpointOf(sim), method, { contextId: 'ctx-1', controllerId: 'a', ttlSeconds: 600, requestId: 'r' }, opts)).toBe(-32601);
    }
  });

  it('carries no extension metadata and ignores authority on mutations', async () => {
    const [id] = sim.createTasks(1, 'steady');
    const get = protocol === '1.0' ? 'GetTask' : 'tasks/get';
    const task = await call(endpointOf(sim), get, { id }, opts);
    expect(task.metadata?.[CONTROL_EXTENSION_URI]).toBeUndefined();
    const cancel = protocol === '1.0' ? 'CancelTask' : 'tasks/cancel';
    const canceled = await call(endpointOf(sim), cancel, { id, metadata: authority('whoever', 99, 'ignored') }, opts);
    expect(canceled.status.state).toMatch(/cancel/i);
  });
});
