/**
 * Injected faults, each served once per armed request and then gone: 5xx, malformed JSON,
 * a redirect, an oversized body, a slow answer, and a lost response whose mutation was
 * applied anyway (the in-doubt case). Plus the token check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { authority, call, getJson, rpc } from './rpc.js';
import { canary } from '../fixtures/canary.js';

let sim: RunningSimulator;
let ep: string;

beforeAll(async () => {
  sim = await startSimulator({ protocol: '1.0' });
  ep = `${sim.url}/jsonrpc`;
});
afterAll(() => sim.close());

const getTaskBody = (id: string) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id } });
const post = (body: string, init: RequestInit = {}) =>
  fetch(ep, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body, ...init });

describe('faults', () => {
  it('http-5xx answers the next N matching requests, and is not applied', async () => {
    const [id] = sim.createTasks(1, 'steady');
    sim.injectFaults({ kind: 'http-5xx', count: 2, methods: ['GetTask'] });
    expect((await post(getTaskBody(id!))).status).toBe(503);
    expect((await post(getTaskBody(id!))).status).toBe(503);
    expect(sim.task(id!)?.polls).toBe(0);
    expect((await post(getTaskBody(id!))).status).toBe(200);
    sim.injectFaults({ kind: 'http-5xx', status: 502 });
    expect((await fetch(`${sim.url}/.well-known/agent-card.json`)).status).toBe(502);
    expect(sim.stats().faultsServed['http-5xx']).toBe(3);
  });

  it('malformed-json sends a truncated JSON body', async () => {
    const [id] = sim.createTasks(1, 'steady');
    sim.injectFaults({ kind: 'malformed-json' });
    const response = await post(getTaskBody(id!));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    await expect(response.json()).rejects.toThrow();
  });

  it('redirect points elsewhere; the sink records who followed and with what', async () => {
    sim.injectFaults([{ kind: 'redirect' }, { kind: 'redirect' }]);
    const manual = await post(getTaskBody('x'), { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe(`${sim.origin}/_sim/redirect-sink`);
    const before = sim.stats();
    await post(getTaskBody('x'), { headers: { 'content-type': 'application/json', authorization: `Bearer ${canary('unasked-bearer')}` } });
    const after = sim.stats();
    expect(after.redirectSinkHits).toBe(before.redirectSinkHits + 1);
    // fetch keeps credentials on a same-origin redirect: exactly what a careful client must not do.
    expect(after.redirectSinkCredentialHits).toBe(before.redirectSinkCredentialHits + 1);
  });

  it('oversized sends ~2 MiB of valid JSON', async () => {
    sim.injectFaults({ kind: 'oversized' });
    const text = await (await post(getTaskBody('x'))).text();
    expect(text.length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(JSON.parse(text).result.padding.length).toBe(2 * 1024 * 1024);
  });

  it('slow holds the headers back: an impatient client gives up, a patient one is served', async () => {
    const [id] = sim.createTasks(1, 'steady');
    sim.injectFaults({ kind: 'slow', delayMs: 60_000 });
    await expect(post(getTaskBody(id!), { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    sim.injectFaults({ kind: 'slow', delayMs: 10 });
    expect((await post(getTaskBody(id!))).status).toBe(200);
    expect(sim.stats().faultsServed['slow']).toBe(2);
  });

  it('lost-response applies the mutation, drops the connection, and the readback says applied', async () => {
    const { ids, contextIds } = sim.createTasksDetailed(1, 'steady');
    const { lease } = await call(ep, CONTROL_METHODS.leaseClaim, { contextId: contextIds[0], controllerId: 'c', ttlSeconds: 600, requestId: 'lost-claim' });
    sim.injectFaults({ kind: 'lost-response' });
    // GetTask is not a mutation, so it passes untouched while the fault stays armed.
    expect((await rpc(ep, 'GetTask', { id: ids[0] })).status).toBe(200);
    await expect(rpc(ep, 'CancelTask', { id: ids[0], metadata: authority('c', lease.epoch, 'lost-cancel') })).rejects.toThrow();
    expect(sim.task(ids[0]!)?.state).toBe('canceled');
    expect(sim.stats().appliedByRequestId['lost-cancel']).toBe(1);
    expect(await call(ep, CONTROL_METHODS.requestGet, { requestId: 'lost-cancel' })).toMatchObject({ status: 'applied', action: 'cancel', taskId: ids[0] });
  });

  it('lost-response also hits control calls', async () => {
    sim.injectFaults({ kind: 'lost-response', methods: [CONTROL_METHODS.leaseClaim] });
    await expect(rpc(ep, CONTROL_METHODS.leaseClaim, { controllerId: 'c', ttlSeconds: 600, requestId: 'lost-claim-2' })).rejects.toThrow();
    expect(await call(ep, CONTROL_METHODS.requestGet, { requestId: 'lost-claim-2' })).toMatchObject({ status: 'applied', action: 'claim' });
  });

  it('clearFaults disarms everything', async () => {
    sim.injectFaults({ kind: 'http-5xx', count: 5 });
    sim.clearFaults();
    expect((await fetch(`${sim.url}/.well-known/agent-card.json`)).status).toBe(200);
  });
});

describe('token', () => {
  const TOKEN = canary('sim-token');
  let secured: RunningSimulator;
  let sep: string;
  beforeAll(async () => {
    secured = await startSimulator({ token: TOKEN });
    sep = `${secured.url}/jsonrpc`;
  });
  afterAll(() => secured.close());

  it('answers 401 without a valid Bearer or X-API-KEY, and serves the card publicly', async () => {
    const [id] = secured.createTasks(1, 'steady');
    expect((await rpc(sep, 'GetTask', { id })).status).toBe(401);
    expect((await rpc(sep, 'GetTask', { id }, { headers: { authorization: `Bearer ${canary('wrong-token')}` } })).status).toBe(401);
    expect((await rpc(sep, CONTROL_METHODS.leaseGet, { contextId: 'x' })).status).toBe(401);
    expect((await rpc(sep, 'GetTask', { id }, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await rpc(sep, 'GetTask', { id }, { headers: { 'x-api-key': TOKEN } })).status).toBe(200);
    expect(secured.stats().unauthorized).toBe(3);
    const card = await getJson(`${secured.url}/.well-known/agent-card.json`, { 'A2A-Version': '1.0' });
    expect(card.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'Bearer' }) },
      apiKey: { apiKeySecurityScheme: expect.objectContaining({ location: 'header', name: 'X-API-KEY' }) },
    });
    expect(JSON.stringify(card)).not.toContain(TOKEN);
    expect(card.capabilities.extensions[0].uri).toBe(CONTROL_EXTENSION_URI);
  });
});
