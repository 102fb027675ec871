/**
 * The 0.2.5 dialect (the host framework's FastA2A server), with plain fetch JSON-RPC as the
 * host framework's own client speaks it: card only at the origin root, one endpoint,
 * lowercase states, `kind` fields, results in history and no artifacts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { call, errorCode, getJson } from './rpc.js';

let sim: RunningSimulator;
let endpoint: string;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '0.2' });
  endpoint = `${sim.url}/`;
});
afterAll(() => sim.close());

const send = (text: string, extra: Record<string, unknown> = {}) =>
  call(endpoint, 'message/send', { message: { kind: 'message', role: 'user', messageId: `m-${text}`, parts: [{ kind: 'text', text }], ...extra } }, { version: null });

describe('0.2.5 FastA2A-like dialect', () => {
  it('publishes its card only at the origin root, naming the /a2a/ endpoint', async () => {
    const card = await getJson(`${sim.origin}/.well-known/agent.json`);
    expect(card).toMatchObject({ url: `${sim.origin}/a2a/`, protocolVersion: '0.2.5' });
    expect(card.capabilities.extensions[0].uri).toBe(CONTROL_EXTENSION_URI);
    expect((await fetch(`${sim.url}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await fetch(`${sim.origin}/.well-known/agent-card.json`)).status).toBe(404);
  });

  it('answers message/send with a submitted task at once', async () => {
    const task = await send('train');
    expect(task).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(task.history[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'train' }] });
  });

  it('progresses on tasks/get and puts the result in history, with no artifacts', async () => {
    const { id } = await send('train to the end');
    const states: string[] = [];
    let task: any;
    for (let i = 0; i < 20 && task?.status.state !== 'completed'; i++) {
      task = await call(endpoint, 'tasks/get', { id }, { version: null });
      states.push(task.status.state);
    }
    expect(states).toEqual([...Array(9).fill('working'), 'completed']);
    expect(task.artifacts).toBeUndefined();
    const last = task.history.at(-1);
    expect(last).toMatchObject({ kind: 'message', role: 'agent' });
    expect(last.parts[0].text).toContain('accuracy');
    const lean = await call(endpoint, 'tasks/get', { id, historyLength: 0 }, { version: null });
    expect(lean.history).toBeUndefined();
  });

  it('cancels, refuses unknown methods and unknown tasks like FastA2A', async () => {
    const { id } = await send('cancel me');
    expect((await call(endpoint, 'tasks/cancel', { id }, { version: null })).status.state).toBe('canceled');
    expect(await errorCode(endpoint, 'message/stream', {}, { version: null })).toBe(-32601);
    expect(await errorCode(endpoint, 'tasks/get', { id: 'nope' }, { version: null })).toBe(-32001);
    expect(await errorCode(endpoint, 'tasks/cancel', { id }, { version: null })).toBe(undefined);
  });

  it('accepts the endpoint with or without the trailing slash', async () => {
    const task = await call(sim.url, 'message/send', { message: { kind: 'message', role: 'user', messageId: 'x', parts: [{ kind: 'text', text: 'x' }] } });
    expect(task.kind).toBe('task');
  });
});
