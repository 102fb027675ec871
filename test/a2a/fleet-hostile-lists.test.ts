/**
 * Hostile ListTasks answers: the list is remote text like a GetTask answer. Each hostile case is
 * refused for the tasks it concerns (no answer is handed to their reads, so they are read with
 * GetTask), never adopted, and counted by reason. A scripted loopback remote answers the real
 * client (the real boundary: adapters/a2a/list-tasks.ts → normalizeTask), read by the real
 * fleet reader (services/campaign/fleet-read.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import { FleetRead, type FleetRefusal, type FleetTarget } from '../../services/campaign/fleet-read.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { startJsonRpcAgent, type JsonRpcAgent } from '../fixtures/json-rpc-agent.js';

const TOKEN = canary('fleet-list-token');
const logs = captureLogs();

type Page = { tasks: unknown[]; nextPageToken?: string; totalSize?: number } | { rpcError: number } | { httpStatus: number };
/** Milliseconds the remote waits before answering each full-listing call (by call number). */
let delays: number[] = [];
/** What the remote answers to each full-listing request of the current case (the catch-up finds nothing new). */
let script: (params: Record<string, unknown>, call: number) => Page = () => ({ tasks: [] });
let listCalls = 0;
let agent: JsonRpcAgent;
let base = '';

const task = (id: string, contextId: string, state = 'TASK_STATE_WORKING', at = '2026-12-02T10:00:00.000Z') => ({
  id,
  contextId,
  status: { state, timestamp: at },
  artifacts: [],
});
const ours: FleetTarget[] = [1, 2, 3, 4].map((i) => ({ taskId: `t${i}`, contextId: `c${i}` }));
const listed = () => ours.map((t) => task(t.taskId, t.contextId!));

beforeAll(async () => {
  agent = await startJsonRpcAgent('hostile lister', (rpc, res) => {
    if (rpc.method !== 'ListTasks') {
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'Method not found' } }));
      return;
    }
    const catchUp = rpc.params['statusTimestampAfter'] !== undefined;
    if (catchUp) {
      listCalls++;
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { tasks: [], nextPageToken: '' } }));
      return;
    }
    const call = listCalls++;
    const page = script(rpc.params, call);
    const answer = () => {
      if ('httpStatus' in page) {
        res.statusCode = page.httpStatus;
        res.end('{}');
      } else if ('rpcError' in page) res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: page.rpcError, message: 'scripted' } }));
      else res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: page }));
    };
    setTimeout(answer, delays[call] ?? 0);
  });
  base = agent.base;
});
afterAll(() => agent.close());

async function listOnce(answer: typeof script): Promise<{ reader: FleetRead; refused: Map<FleetRefusal, number>; client: A2AClient }> {
  script = answer;
  listCalls = 0;
  delays = [];
  const client = createA2AClient({ baseUrl: base, token: TOKEN, logger: logs.logger });
  const refused = new Map<FleetRefusal, number>();
  const reader = new FleetRead({ remote: () => client, now: () => new Date(), logger: logs.logger, onRefused: (reason, n) => refused.set(reason, (refused.get(reason) ?? 0) + n) });
  await reader.prepare(ours);
  await client.close();
  return { reader, refused, client };
}

/** Which of our tasks got an answer from the listing (the rest are read with GetTask). */
const answered = (reader: FleetRead) => ours.filter((t) => reader.take(t.taskId, t.contextId) !== undefined).map((t) => t.taskId);

describe('a hostile ListTasks answer', () => {
  it('a clean list answers every task (the baseline the cases below depart from)', async () => {
    const { reader, refused } = await listOnce(() => ({ tasks: listed(), nextPageToken: '', totalSize: 4 }));
    expect(answered(reader)).toEqual(['t1', 't2', 't3', 't4']);
    expect(refused.size).toBe(0);
  });

  it("lists another caller's task: ignored, never adopted, counted", async () => {
    const { reader, refused } = await listOnce(() => ({ tasks: [...listed(), task('their-task', 'their-ctx')], nextPageToken: '' }));
    expect(reader.take('their-task', null)).toBeUndefined();
    expect(answered(reader)).toEqual(['t1', 't2', 't3', 't4']);
    expect(refused.get('foreign')).toBe(1);
  });

  it('lists an id twice: that task is refused (read with GetTask), the others answered', async () => {
    const { reader, refused } = await listOnce(() => ({ tasks: [...listed(), task('t2', 'c2')], nextPageToken: '' }));
    expect(answered(reader)).toEqual(['t1', 't3', 't4']);
    expect(refused.get('duplicate')).toBe(1);
  });

  it('lists an id twice with different states: neither state is adopted', async () => {
    const { reader, refused } = await listOnce(() => ({ tasks: [...listed(), task('t3', 'c3', 'TASK_STATE_COMPLETED')], nextPageToken: '' }));
    expect(answered(reader)).toEqual(['t1', 't2', 't4']);
    expect(refused.get('conflicting')).toBe(1);
  });

  it('lists a task in another context than the campaign is bound to: refused', async () => {
    const tasks = listed();
    tasks[3] = task('t4', 'someone-elses-ctx', 'TASK_STATE_COMPLETED');
    const { reader, refused } = await listOnce(() => ({ tasks, nextPageToken: '' }));
    expect(answered(reader)).toEqual(['t1', 't2', 't3']);
    expect(refused.get('context_mismatch')).toBe(1);
  });

  it('answers a page larger than asked: the whole page is refused', async () => {
    const filler = Array.from({ length: 100 }, (_, i) => task(`x${i}`, `xc${i}`));
    const { reader, refused } = await listOnce(() => ({ tasks: [...listed(), ...filler], nextPageToken: '' }));
    expect(answered(reader)).toEqual([]);
    expect(refused.get('oversized_page')).toBe(1);
    // A hostile page decides nothing about the method: the next beat probes again.
    expect(reader.listing).toBeUndefined();
  });

  it('answers a cursor that loops: the listing stops, what was not listed is read with GetTask', async () => {
    const { reader, refused } = await listOnce((params) => ({ tasks: params['pageToken'] ? [listed()[1]] : [listed()[0]], nextPageToken: 'again' }));
    expect(answered(reader)).toEqual(['t1', 't2']);
    expect(refused.get('cursor_loop')).toBe(1);
    expect(listCalls).toBe(3); // page, the repeated cursor's page, the catch-up
  });

  it('answers a task that fails the GetTask boundary (an invalid identifier): refused, never adopted', async () => {
    const tasks = listed();
    tasks[0] = task('t1\u0000evil', 'c1');
    const { reader, refused } = await listOnce(() => ({ tasks, nextPageToken: '' }));
    expect(answered(reader)).toEqual(['t2', 't3', 't4']);
    expect(refused.get('malformed')).toBe(1);
  });

  it('echoes our credential in a listed task: redacted as in a GetTask answer', async () => {
    const tasks: unknown[] = listed();
    tasks[0] = { ...task('t1', 'c1'), status: { state: 'TASK_STATE_WORKING', message: { role: 'ROLE_AGENT', parts: [{ text: `token is ${TOKEN}` }] } } };
    const { reader } = await listOnce(() => ({ tasks, nextPageToken: '' }));
    const answer = reader.take('t1', 'c1');
    expect(answer?.snapshot.latestAgentMessageExcerpt).toBeDefined();
    expect(answer?.snapshot.latestAgentMessageExcerpt).not.toContain(TOKEN);
  });
});

describe('what a ListTasks answer cannot decide', () => {
  it('a totalSize far beyond the fleet, with a fresh cursor on every page: listing stops at the pages the fleet can fill', async () => {
    const strangers = (call: number) => Array.from({ length: 100 }, (_, i) => task(`s${call}-${i}`, `sc${call}-${i}`));
    const { reader, refused } = await listOnce((_params, call) => ({ tasks: strangers(call), nextPageToken: `fresh-${call}`, totalSize: 1_000_000_000 }));
    // Four tasks fill one page: two pages at most (none of ours listed, so no catch-up follows);
    // ours are read with GetTask.
    expect(listCalls).toBe(2);
    expect(answered(reader)).toEqual([]);
    expect(refused.get('cursor_loop')).toBeUndefined();
  });

  it('a probe that fails for a reason that is not about the method decides nothing: 503, 429, internal error', async () => {
    for (const page of [{ httpStatus: 503 }, { httpStatus: 429 }, { rpcError: -32603 }]) {
      const { reader } = await listOnce(() => page);
      expect(reader.listing, JSON.stringify(page)).toBeUndefined();
    }
  });

  it('a probe refused as an unknown or unsupported method switches to per-task reads', async () => {
    for (const page of [{ rpcError: -32601 }, { rpcError: -32004 }, { httpStatus: 404 }]) {
      const { reader } = await listOnce(() => page);
      expect(reader.listing, JSON.stringify(page)).toBe(false);
    }
  });

  it('overlapping beats: the newer listing wins even when the older answers last, and the older sweep cannot clear it', async () => {
    script = (_params, call) => ({ tasks: ours.map((t) => task(t.taskId, t.contextId!, call === 0 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED')), nextPageToken: '' });
    listCalls = 0;
    delays = [400];
    const client = createA2AClient({ baseUrl: base, token: TOKEN, logger: logs.logger });
    const reader = new FleetRead({ remote: () => client, now: () => new Date(), logger: logs.logger });
    const older = reader.prepare(ours);
    await new Promise((r) => setTimeout(r, 100));
    const newer = reader.prepare(ours);
    await Promise.all([older, newer]);
    reader.clear(reader.current - 1); // the older sweep ends: not its answers, so nothing is cleared
    await client.close();
    expect(reader.take('t1', 'c1')?.snapshot.state).toBe('completed');
  });
});

