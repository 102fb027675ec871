import { afterAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS, createA2AClient, type A2AClient, type Result } from '../../adapters/a2a/index.js';
import type { RecordedRequest } from '../fixtures/fault-server.js';
import { useFaultServer } from '../fixtures/fault-world.js';
import { canary } from '../fixtures/canary.js';

const TOKEN = canary('remote-token');
const remote = useFaultServer(TOKEN);
const authority = { controllerId: 'argus-openoperator', epoch: 3, requestId: 'req-42' };
const clients: A2AClient[] = [];

function client(variant: string): A2AClient {
  const c = createA2AClient({ baseUrl: remote.fault.base(variant), token: TOKEN });
  clients.push(c);
  return c;
}

const lastPost = (variant: string): RecordedRequest & { json: any } => {
  const posts = remote.fault.posts(`/${variant}/`);
  const last = posts[posts.length - 1];
  if (!last) throw new Error('no request reached the server');
  return { ...last, json: JSON.parse(last.body) };
};

function expectRefused(r: Result<unknown>, code = 'unsupported_capability') {
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.error).toMatchObject({ code, outcome: 'not_sent' });
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe('defense in depth: nothing is sent to a remote that cannot fence mutations', () => {
  it('refuses submit, cancel, intervene and every lease mutation locally', async () => {
    const c = client('v1-plain');
    const d = await c.discover();
    expect(d).toMatchObject({ ok: true, value: { mutationsEnabled: false } });
    const before = remote.fault.posts('/v1-plain/').length;
    expectRefused(await c.submit({ text: 'train', contextId: 'ctx-1', authority }));
    expectRefused(await c.cancel('task-1', { authority }));
    expectRefused(await c.control.intervene({ taskId: 'task-1', instruction: 'lower lr', authority }));
    expectRefused(await c.control.leaseClaim({ controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'r1' }));
    expectRefused(await c.control.leaseRenew({ contextId: 'ctx-1', controllerId: 'argus-openoperator', epoch: 1, ttlSeconds: 600, requestId: 'r2' }));
    expectRefused(await c.control.leaseRelease({ contextId: 'ctx-1', controllerId: 'argus-openoperator', epoch: 1, requestId: 'r3' }));
    expectRefused(await c.control.leaseGet({ contextId: 'ctx-1' }));
    expectRefused(await c.control.requestGet({ requestId: 'r1' }));
    expect(remote.fault.posts('/v1-plain/').length).toBe(before);
  });

  it('refuses a mutation without complete authority, even where the remote fences', async () => {
    const c = client('v1');
    expect((await c.discover()).ok).toBe(true);
    const before = remote.fault.posts('/v1/').length;
    const noAuthority = { controllerId: 'argus-openoperator', requestId: 'r' } as unknown as typeof authority;
    expectRefused(await c.submit({ text: 'train', authority: noAuthority }));
    expectRefused(await c.submit({ text: 'train', authority: { ...authority, epoch: -1 } }));
    expectRefused(await c.cancel('task-1', { authority: undefined as unknown as typeof authority }));
    expectRefused(await c.control.intervene({ taskId: 't', instruction: 'x', authority: { ...authority, requestId: '' } }));
    expectRefused(await c.control.leaseRenew({ contextId: 'ctx-1', controllerId: 'argus-openoperator', epoch: 1.5, ttlSeconds: 600, requestId: 'r' }));
    expectRefused(await c.control.leaseClaim({ controllerId: 'argus-openoperator', ttlSeconds: 30, requestId: 'r' }), 'invalid_request');
    expectRefused(await c.control.leaseClaim({ controllerId: 'argus-openoperator', ttlSeconds: 7200, requestId: 'r' }), 'invalid_request');
    expectRefused(await c.submit({ text: '', authority }), 'invalid_request');
    expect(remote.fault.posts('/v1/').length).toBe(before);
  });
});

describe('fenced mutations on the wire, per dialect', () => {
  it('1.0: SendMessage, returnImmediately, {text} parts, authority only in metadata', async () => {
    const c = client('v1');
    const r = await c.submit({ text: 'train stage 2', contextId: 'ctx-1', authority });
    expect(r.ok && r.value).toMatchObject({ id: 'task-new', contextId: 'ctx-1', state: 'submitted' });
    const { json, headers } = lastPost('v1');
    expect(json.method).toBe('SendMessage');
    expect(json.params.configuration).toEqual({ returnImmediately: true });
    expect(json.params.message).toEqual({
      messageId: authority.requestId,
      role: 'ROLE_USER',
      parts: [{ text: 'train stage 2' }],
      contextId: 'ctx-1',
      metadata: { [CONTROL_EXTENSION_URI]: authority },
      extensions: [CONTROL_EXTENSION_URI],
    });
    expect(headers['a2a-version']).toBe('1.0');
    expect(headers['a2a-extensions']).toBe(CONTROL_EXTENSION_URI);
    expect(headers['x-a2a-extensions']).toBeUndefined();
  });

  it('0.3: message/send, blocking:false, kind fields, both extension headers', async () => {
    const c = client('v03');
    const r = await c.submit({ text: 'train stage 2', contextId: 'ctx-1', authority });
    expect(r.ok && r.value.state).toBe('submitted');
    const { json, headers } = lastPost('v03');
    expect(json.method).toBe('message/send');
    expect(json.params.configuration).toEqual({ blocking: false });
    expect(json.params.message).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'train stage 2' }] });
    expect(json.params.message.metadata).toEqual({ [CONTROL_EXTENSION_URI]: authority });
    expect(headers['a2a-version']).toBe('0.3');
    expect(headers['a2a-extensions']).toBe(CONTROL_EXTENSION_URI);
    expect(headers['x-a2a-extensions']).toBe(CONTROL_EXTENSION_URI);
  });

  it('0.2.5: found via agent.json, posts to the trailing-slash mount root', async () => {
    const c = client('v025');
    const d = await c.discover();
    expect(d.ok && d.value).toMatchObject({ protocolVersion: '0.2.5', rpcUrl: `${remote.fault.origin}/v025/a2a/`, mutationsEnabled: true });
    const r = await c.getTask('history-only');
    expect(r.ok && r.value).toMatchObject({ state: 'completed', latestAgentMessageExcerpt: 'final answer: loss 0.12' });
    const { json, path, headers } = lastPost('v025');
    expect(path).toBe('/v025/a2a/');
    expect(json).toMatchObject({ method: 'tasks/get', params: { id: 'history-only', historyLength: 1 } });
    expect(headers['a2a-version']).toBeUndefined();
  });

  it.each([
    ['v1', 'CancelTask'],
    ['v03', 'tasks/cancel'],
    ['v025', 'tasks/cancel'],
  ])('%s cancel is %s with authority in metadata', async (variant, method) => {
    const r = await client(variant).cancel('task-9', { authority });
    expect(r.ok && r.value).toMatchObject({ id: 'task-9', state: 'canceled' });
    expect(lastPost(variant).json).toMatchObject({ method, params: { id: 'task-9', metadata: { [CONTROL_EXTENSION_URI]: authority } } });
  });

  it('GetTask in 1.0 asks for no history and reads the lease back from task metadata', async () => {
    const r = await client('v1').getTask('ok');
    expect(lastPost('v1').json).toMatchObject({ method: 'GetTask', params: { id: 'ok', historyLength: 0 } });
    expect(r.ok && r.value.control).toEqual({
      revision: 7,
      stage: 'training',
      attempt: 1,
      attemptId: 'att-1',
      lease: { contextId: 'ctx-1', holder: 'argus-openoperator', epoch: 3, expiresAt: '2026-01-01T00:10:00.000Z', ttlSeconds: 600 },
      missionComplete: false,
    });
  });

  it('a submission answered with a bare message is malformed and ambiguous', async () => {
    const r = await client('v1').submit({ text: 'reply-with-message', authority });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'remote_malformed', outcome: 'ambiguous' });
  });
});

describe('control-extension methods', () => {
  it.each(['v1', 'v03', 'v025'])('%s: lease claim/renew/release, intervene, readback', async (variant) => {
    const c = client(variant);
    const claim = await c.control.leaseClaim({ contextId: 'ctx-1', controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'c-1' });
    expect(claim.ok && claim.value.lease).toMatchObject({ contextId: 'ctx-1', holder: 'argus-openoperator' });
    expect(lastPost(variant).json).toMatchObject({
      method: CONTROL_METHODS.leaseClaim,
      params: { contextId: 'ctx-1', controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'c-1' },
    });

    const renew = await c.control.leaseRenew({ contextId: 'ctx-1', controllerId: 'argus-openoperator', epoch: 3, ttlSeconds: 900, requestId: 'r-1' });
    expect(renew.ok && renew.value.lease?.epoch).toBe(3);
    expect(lastPost(variant).json.method).toBe(CONTROL_METHODS.leaseRenew);

    const got = await c.control.leaseGet({ contextId: 'ctx-1' });
    expect(got.ok).toBe(true);

    const intervene = await c.control.intervene({ taskId: 'task-1', instruction: 'halve the learning rate', authority });
    expect(intervene.ok && intervene.value).toEqual({ requestId: authority.requestId, status: 'applied' });
    const sent = lastPost(variant).json;
    expect(sent).toMatchObject({ method: CONTROL_METHODS.intervene, params: { taskId: 'task-1', instruction: 'halve the learning rate', authority } });

    const readback = await c.control.requestGet({ requestId: 'maybe-1' });
    expect(readback.ok && readback.value).toEqual({ requestId: 'maybe-1', status: 'not_applied' });

    const release = await c.control.leaseRelease({ contextId: 'ctx-1', controllerId: 'argus-openoperator', epoch: 3, requestId: 'x-1' });
    expect(release.ok && release.value.lease).toBeNull();

    const headers = lastPost(variant).headers;
    expect(headers['a2a-extensions']).toBe(CONTROL_EXTENSION_URI);
  });

  it('a claim without contextId asks the remote to open a context', async () => {
    await client('v1').control.leaseClaim({ controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'c-2' });
    expect(lastPost('v1').json.params).toEqual({ controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'c-2' });
  });

  it('authority never appears in task text', async () => {
    await client('v1').submit({ text: 'plain words only', contextId: 'ctx-1', authority });
    const { json } = lastPost('v1');
    expect(JSON.stringify(json.params.message.parts)).not.toContain(authority.requestId);
    expect(JSON.stringify(json.params.message.parts)).not.toContain(authority.controllerId);
  });
});
