import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient, CONTROL_EXTENSION_URI, type A2AClient, type TaskSnapshot } from '../../adapters/a2a/index.js';
import { runProbe } from '../../bin/commands/probe.js';
import { startPlainV1Server, startV025Server, startV03Server, type ForeignServer } from '../fixtures/foreign-servers.js';
import { CANARY_PREFIX, canary } from '../fixtures/canary.js';

const TOKEN = canary('remote-token');
const WRONG_TOKEN = canary('wrong-token');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const authority = { controllerId: 'argus-openoperator', epoch: 1, requestId: 'req-1' };
const READ_ONLY_UNSUPPORTED = ['submit', 'claim_control', 'renew_control', 'release_control', 'intervene', 'cancel'];

let v1: ForeignServer;
let v025: ForeignServer;
let v03: ForeignServer;
const clients: A2AClient[] = [];
const client = (baseUrl: string, token?: string) => {
  const c = createA2AClient(token === undefined ? { baseUrl } : { baseUrl, token });
  clients.push(c);
  return c;
};

/** Polls until the foreign agent finished its (instant) work; bounded, no timing assertions. */
async function untilTerminal(c: A2AClient, taskId: string): Promise<TaskSnapshot> {
  for (let i = 0; i < 50; i++) {
    const r = await c.getTask(taskId);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    if (r.value.state === 'completed') return r.value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('task never completed');
}

async function probeJson(url: string, token?: string) {
  const out = await runProbe(token === undefined ? { url } : { url, token });
  expect(out.stderr).toBe('');
  expect(out.exitCode).toBe(0);
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  [v1, v025, v03] = await Promise.all([startPlainV1Server(), startV025Server(TOKEN), startV03Server()]);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([v1?.close(), v025?.close(), v03?.close()]);
});

describe('plain @a2a-js/sdk 1.3.0 server (A2A 1.0, no control extension)', () => {
  it('probes as 1.0, read-only, with the card’s own JSON-RPC endpoint', async () => {
    const report = await probeJson(v1.base, TOKEN);
    expect(report).toEqual({
      protocolVersion: '1.0',
      rpcUrl: `${v1.origin}/a2a/jsonrpc`,
      capabilities: {
        discover: true,
        submit: false,
        status: true,
        evidence: true,
        claim_control: false,
        renew_control: false,
        release_control: false,
        intervene: false,
        cancel: false,
      },
      controlExtension: false,
      mutationsEnabled: false,
      unsupported: READ_ONLY_UNSUPPORTED,
      // This stock server takes no credentials: the probe says so.
      auth: 'not_required',
    });
  });

  it('reads a task the SDK’s own client created', async () => {
    const id = await v1.createTask('hello');
    const snap = await untilTerminal(client(v1.base), id);
    expect(snap).toMatchObject({ id, state: 'completed', artifacts: [{ id: 'report-1', name: 'report.md' }], control: null });
    expect(snap.latestAgentMessageExcerpt).toBe('all done');
    expect(snap.latestAgentMessageDigest).toBe(sha256('all done'));
  });

  it('maps the SDK’s TaskNotFound to task_not_found', async () => {
    const r = await client(v1.base).getTask('no-such-task');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'task_not_found', outcome: 'rejected', rpcCode: -32001 });
  });

  it('refuses every mutation locally', async () => {
    const c = client(v1.base);
    const submit = await c.submit({ text: 'go', authority });
    const cancel = await c.cancel('t', { authority });
    const claim = await c.control.leaseClaim({ controllerId: 'argus-openoperator', ttlSeconds: 600, requestId: 'r' });
    for (const r of [submit, cancel, claim]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: 'unsupported_capability', outcome: 'not_sent' });
    }
  });
});

describe('@a2a-js/sdk 0.2.5 server behind an Agent-Zero-style auth gate', () => {
  it('probes with header auth as 0.2.5 (its card has no protocolVersion) at the trailing-slash mount root', async () => {
    const report = await probeJson(v025.base, TOKEN);
    expect(report).toMatchObject({
      protocolVersion: '0.2.5',
      rpcUrl: `${v025.origin}/a2a/`,
      controlExtension: false,
      mutationsEnabled: false,
      unsupported: READ_ONLY_UNSUPPORTED,
    });
  });

  it('reads the answer from history when the final status carries no message', async () => {
    const id = await v025.createTask('ping');
    const snap = await untilTerminal(client(v025.base, TOKEN), id);
    expect(snap).toMatchObject({ id, state: 'completed', artifacts: [], control: null, latestAgentMessageExcerpt: 'echo: ping' });
  });

  it('reports a wrong token as remote_auth_failed, with one stderr line and nothing on stdout', async () => {
    const out = await runProbe({ url: v025.base, token: WRONG_TOKEN });
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^probe failed: remote_auth_failed: [^\n]+\n$/);
    expect(out.stderr).not.toContain(WRONG_TOKEN);
  });

  it('refuses a base URL that embeds the token as a path credential, before any request', async () => {
    const r = await client(`${v025.base}/t-${TOKEN}`, TOKEN).discover();
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatchObject({ code: 'remote_url_rejected', outcome: 'not_sent' });
      expect(r.error.message).not.toContain(TOKEN);
    }
  });
});

describe('the 0.2.5 fixture really accepts /t-<token>/ path auth, which our client refuses to use', () => {
  // Secrets are compared with includes() so a failure never prints the token.
  const leaks = (text: string) => text.includes(TOKEN) || text.includes(CANARY_PREFIX);
  const WRONG = canary('wrong-path-token');
  const rpc = (url: string, method: string, params: unknown) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });

  it('(a) serves the card and tasks/get through /a2a/t-<token>/ and answers 401 to a wrong path token', async () => {
    const id = await v025.createTask('via-path');
    const card = await fetch(`${v025.base}/t-${TOKEN}/.well-known/agent.json`);
    expect(card.status).toBe(200);
    expect(await card.json()).toMatchObject({ name: 'FastA2A-like 0.2.5 agent' });

    const got = await rpc(`${v025.base}/t-${TOKEN}/`, 'tasks/get', { id });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { id, kind: 'task' } });

    // The gate is real: a wrong path token, and no credential at all, are both refused.
    const wrongCard = await fetch(`${v025.base}/t-${WRONG}/.well-known/agent.json`);
    expect(wrongCard.status).toBe(401);
    const wrongRpc = await rpc(`${v025.base}/t-${WRONG}/`, 'tasks/get', { id });
    expect(wrongRpc.status).toBe(401);
    expect((await rpc(`${v025.base}/`, 'tasks/get', { id })).status).toBe(401);
    expect(leaks(await wrongRpc.text())).toBe(false);
  });

  it('(b) the probe reaches the same server with header auth and reports it read-only', async () => {
    const out = await runProbe({ url: v025.base, token: TOKEN });
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toBe('');
    expect(leaks(out.stdout)).toBe(false);
    expect(JSON.parse(out.stdout)).toMatchObject({ protocolVersion: '0.2.5', controlExtension: false, mutationsEnabled: false });
  });

  it('(c) the probe refuses the path-token URL with remote_url_rejected and never prints the token', async () => {
    for (const url of [`${v025.base}/t-${TOKEN}`, `${v025.base}/t-${TOKEN}/`]) {
      const out = await runProbe({ url, token: TOKEN });
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr.startsWith('probe failed: remote_url_rejected: ')).toBe(true);
      expect(out.stderr.split('\n')).toHaveLength(2); // one line, newline-terminated
      expect(leaks(out.stderr)).toBe(false);
    }
  });

  it('(c) the probe refuses a /t-<token>/ URL even when no token is configured separately', async () => {
    const before = await fetch(`${v025.base}/t-${TOKEN}/.well-known/agent.json`).then((r) => r.status);
    expect(before).toBe(200);
    for (const url of [`${v025.base}/t-${TOKEN}`, `${v025.base}/t-${TOKEN}/`]) {
      const out = await runProbe({ url });
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe('');
      expect(out.stderr.startsWith('probe failed: remote_url_rejected: ')).toBe(true);
      expect(leaks(out.stderr)).toBe(false);
    }
  });
});

describe('@a2a-js/sdk 0.3.14 server', () => {
  it('probes as 0.3 and reads a task with its artifact and status message', async () => {
    const report = await probeJson(v03.base);
    expect(report).toMatchObject({ protocolVersion: '0.3', rpcUrl: `${v03.origin}/a2a/jsonrpc`, mutationsEnabled: false });
    const id = await v03.createTask('fit');
    const snap = await untilTerminal(client(v03.base), id);
    expect(snap).toMatchObject({ state: 'completed', artifacts: [{ id: 'report-1', name: 'report.md' }], latestAgentMessageExcerpt: 'done: fit' });
  });

  it('never declares the control extension, so no control URI is activated', async () => {
    const r = await client(v03.base).discover();
    expect(r).toMatchObject({ ok: true, value: { controlExtension: false } });
    expect(CONTROL_EXTENSION_URI).toMatch(/^urn:/);
  });
});
