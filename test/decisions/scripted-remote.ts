/**
 * A hand-written A2A 1.0 remote on node:http whose task frames the test sets one by one: the
 * state, the stage, the status text and the artifacts are whatever the test says, hostile text
 * included. The simulator cannot do two things the decision tests need: an artifact while the
 * attempt still runs (EVIDENCE_READY with no completed attempt), and remote text of the test's
 * choosing in the fields the envelope carries (the stage). It advertises our control extension
 * so the supervisor reads it like an OpenTraining remote, grants and reads back a lease on
 * request (so a test can hold one), refuses every mutation (a test that sees one in `calls`
 * has caught a relay), and records every call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { CONTROL_EXTENSION_DECL } from '../fixtures/wire.js';

export interface ScriptedFrame {
  state: 'working' | 'completed' | 'input-required' | 'failed';
  stage: string;
  statusText: string;
  artifacts?: { id: string; name: string }[];
}

export interface ScriptedRemote {
  /** The base URL to configure (`OPENTRAINING_A2A_URL`). */
  base: string;
  /** A new task (own context) showing `frame`; returns its id. */
  addTask(frame: ScriptedFrame): string;
  /** The task's next frame; the revision moves by one. */
  set(taskId: string, frame: ScriptedFrame): void;
  /** The calls that would act on a task (every method but reads and lease calls). */
  mutations(): { method: string; params: Record<string, unknown> }[];
  /** JSON-RPC calls received, in order. */
  calls: { method: string; params: Record<string, unknown> }[];
  close(): Promise<void>;
}

const STATES: Record<ScriptedFrame['state'], string> = {
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  failed: 'TASK_STATE_FAILED',
};

export async function startScriptedRemote(opts: { token: string }): Promise<ScriptedRemote> {
  const calls: ScriptedRemote['calls'] = [];
  const tasks = new Map<string, { contextId: string; frame: ScriptedFrame; revision: number }>();
  let origin = '';
  let epoch = 0;
  let lease: { contextId: string; holder: string; epoch: number; expiresAt: string; ttlSeconds: number } | null = null;
  const liveLease = (contextId: string) => (lease && lease.contextId === contextId && Date.parse(lease.expiresAt) > Date.now() ? lease : null);

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const card = () => ({
    name: 'Scripted Agent',
    description: 'a remote whose frames the test writes',
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    supportedInterfaces: [{ url: `${origin}/a2a/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false, extensions: [CONTROL_EXTENSION_DECL] },
  });
  const render = (id: string) => {
    const t = tasks.get(id)!;
    return {
      id,
      contextId: t.contextId,
      status: {
        state: STATES[t.frame.state],
        timestamp: new Date().toISOString(),
        message: { messageId: `${id}-m${t.revision}`, role: 'ROLE_AGENT', parts: [{ text: t.frame.statusText }] },
      },
      artifacts: (t.frame.artifacts ?? []).map((a) => ({ artifactId: a.id, name: a.name, parts: [] })),
      metadata: { [CONTROL_EXTENSION_URI]: { revision: t.revision, stage: t.frame.stage, attempt: 1, attemptId: `${id}-att-1`, lease: liveLease(t.contextId), missionComplete: false } },
    };
  };

  function rpc(res: http.ServerResponse, body: string) {
    let call: { id?: unknown; method?: string; params?: Record<string, unknown> };
    try {
      call = JSON.parse(body) as typeof call;
    } catch {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    const p = call.params ?? {};
    calls.push({ method: call.method ?? '', params: p });
    const reply = (result: unknown) => send(res, 200, { jsonrpc: '2.0', id: call.id, result });
    const refuse = (code: number, message: string) => send(res, 200, { jsonrpc: '2.0', id: call.id, error: { code, message } });
    switch (call.method) {
      case 'GetTask':
        return typeof p.id === 'string' && tasks.has(p.id) ? reply(render(p.id)) : refuse(-32001, 'task not found');
      case CONTROL_METHODS.leaseGet:
        return reply({ lease: typeof p.contextId === 'string' ? liveLease(p.contextId) : null, serverTime: new Date().toISOString() });
      case CONTROL_METHODS.leaseClaim:
      case CONTROL_METHODS.leaseRenew: {
        const ttlSeconds = Number(p.ttlSeconds ?? 600);
        const contextId = typeof p.contextId === 'string' ? p.contextId : '';
        const same = lease?.contextId === contextId && lease.holder === String(p.controllerId);
        lease = { contextId, holder: String(p.controllerId), epoch: same ? lease!.epoch : ++epoch, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString(), ttlSeconds };
        return reply({ lease, serverTime: new Date().toISOString() });
      }
      default:
        // Nothing is ever applied here.
        return refuse(-32004, 'unsupported_operation: this scripted remote is read-only');
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const authorized = req.headers.authorization === `Bearer ${opts.token}` || req.headers['x-api-key'] === opts.token;
      if (!authorized) return send(res, 401, { error: 'unauthorized' });
      if (req.method === 'GET' && req.url === '/a2a/.well-known/agent-card.json') return send(res, 200, card());
      if (req.method === 'POST' && req.url === '/a2a/rpc') return rpc(res, Buffer.concat(chunks).toString('utf8'));
      return send(res, 404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base: `${origin}/a2a`,
    addTask(frame) {
      const n = tasks.size + 1;
      const id = `task-s${n}`;
      tasks.set(id, { contextId: `ctx-s${n}`, frame, revision: 1 });
      return id;
    },
    set(taskId, frame) {
      const t = tasks.get(taskId);
      if (!t) throw new Error(`no task ${taskId}`);
      t.frame = frame;
      t.revision++;
    },
    calls,
    // Reads: GetTask, and ListTasks (the heartbeat's fleet probe, answered here as an unknown method).
    mutations: () => calls.filter((c) => c.method !== 'GetTask' && c.method !== 'ListTasks' && !c.method.startsWith('opentraining.control/lease.')),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
