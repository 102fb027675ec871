/**
 * The answer to a remote question against a hostile remote (test/fixtures/hostile-server.ts,
 * plain node:http, not the simulator). The wire shape is checked from what the remote
 * received: one SendMessage naming the task and its context, one text part, the authority in
 * metadata only. Then the remote lies in its answer: another task, another context, a task id
 * with control characters or our token, megabytes. Each lie is a stable code, the relay never
 * reports it applied, nothing of the lie comes back, and the request is never sent twice.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import type { Mutation } from '../../machines/campaign.types.js';
import { createCampaignEffects } from '../../services/campaign/effects.js';
import { canary } from '../fixtures/canary.js';
import { FORBIDDEN_CHARS } from '../fixtures/hostile-harness.js';
import { HOSTILE_CONTEXT_ID, HOSTILE_TASK_ID, startHostileServer, type HostileMode, type HostileServer } from '../fixtures/hostile-server.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { run } from '../services/effects-fixture.js';

const CONTROLLER = 'argus-answer-hostile';
const EPOCH = 4;
const token = canary('answer-hostile-token');
let remote: HostileServer;
let client: A2AClient;
let lines: string[];
let effects: ReturnType<typeof createCampaignEffects>;

beforeAll(async () => {
  remote = await startHostileServer({ token });
  const logs = captureLogs('trace');
  lines = logs.lines;
  client = createA2AClient({ baseUrl: remote.base, token, logger: logs.logger });
  effects = createCampaignEffects({
    controllerId: CONTROLLER,
    remote: client,
    now: () => new Date(),
    journal: async () => undefined,
    publishedKeys: async () => new Set(),
  });
});
afterAll(async () => {
  await client?.close();
  await remote?.close();
});

const binding = { taskId: HOSTILE_TASK_ID, contextId: HOSTILE_CONTEXT_ID };
const TEXT = 'yes, lower the learning rate to 1e-4';
const mutation: Mutation = { kind: 'answer', text: TEXT, questionKey: 'q-1' };

async function relay(mode: HostileMode) {
  remote.setMode(mode);
  const sendsBefore = remote.calls.filter((c) => c.method === 'SendMessage').length;
  const requestId = randomUUID();
  const out = await run(effects.relayMutation, { campaignId: 'c-hostile', controllerId: CONTROLLER, epoch: EPOCH, requestId, mutation, binding });
  const sends = remote.calls.filter((c) => c.method === 'SendMessage');
  return { requestId, out, sent: sends.length - sendsBefore, last: sends[sends.length - 1]! };
}

describe('answer on the wire', () => {
  it('one SendMessage to the existing task: taskId and contextId set, one text part, authority only in metadata', async () => {
    const { requestId, out, sent, last } = await relay('honest');
    expect(out).toEqual({ outcome: 'applied', requestId, taskId: null });
    expect(sent).toBe(1);
    expect(last.params).toEqual({
      message: {
        messageId: requestId,
        role: 'ROLE_USER',
        parts: [{ text: TEXT }],
        contextId: HOSTILE_CONTEXT_ID,
        taskId: HOSTILE_TASK_ID,
        metadata: { [CONTROL_EXTENSION_URI]: { controllerId: CONTROLLER, epoch: EPOCH, requestId } },
        extensions: [CONTROL_EXTENSION_URI],
      },
      configuration: { returnImmediately: true },
    });
  });
});

describe('a hostile answer to the reply', () => {
  it.each<[HostileMode, string]>([
    ['wrong-task', 'remote_payload_invalid'],
    ['wrong-context', 'remote_payload_invalid'],
    ['reply-poison-id', 'remote_payload_invalid'],
    ['reply-token-id', 'remote_payload_invalid'],
    ['reply-huge', 'remote_too_large'],
  ])('%s → %s: in doubt (never applied), sent once, nothing of it comes back', async (mode, code) => {
    const logsBefore = lines.length;
    const { requestId, out, sent } = await relay(mode);
    expect(out).toEqual({ outcome: 'ambiguous', requestId, code });
    expect(sent).toBe(1);
    const said = JSON.stringify(out) + lines.slice(logsBefore).join('');
    expect(said).not.toContain(token);
    expect(said).not.toContain('task-OTHER');
    expect(said).not.toContain('ctx-OTHER');
    expect(said).not.toContain('hhhhhhhh');
    expect(FORBIDDEN_CHARS.test(JSON.stringify(out))).toBe(false);
  });

  it('the client itself refuses each lie with the same code and outcome', async () => {
    for (const [mode, code] of [
      ['wrong-task', 'remote_payload_invalid'],
      ['reply-token-id', 'remote_payload_invalid'],
      ['reply-huge', 'remote_too_large'],
    ] as const) {
      remote.setMode(mode);
      const r = await client.reply({ taskId: HOSTILE_TASK_ID, contextId: HOSTILE_CONTEXT_ID, text: 'x', authority: { controllerId: CONTROLLER, epoch: EPOCH, requestId: randomUUID() } });
      expect(r.ok ? 'ok' : [r.error.code, r.error.outcome]).toEqual([code, 'ambiguous']);
    }
    remote.setMode('honest');
  });
});
