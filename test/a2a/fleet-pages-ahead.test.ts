/**
 * The fleet listing asks for the next page before this page's tasks pass the boundary (so the
 * remote's work on page k+1 overlaps ours on page k), with the same requests in the same order
 * and every task still through `normalizeTask`: the real client's boundary (a loopback remote,
 * adapters/a2a/list-tasks.ts) read by the real fleet reader (services/campaign/fleet-read.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient, type TaskPage } from '../../adapters/a2a/index.js';
import type { Result } from '../../adapters/a2a/errors.js';
import { FleetRead, type FleetTarget } from '../../services/campaign/fleet-read.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { startJsonRpcAgent, type JsonRpcAgent } from '../fixtures/json-rpc-agent.js';

const logs = captureLogs();
const PAGES = 3;
const ours: FleetTarget[] = Array.from({ length: PAGES * 100 }, (_, i) => ({ taskId: `t${i}`, contextId: `c${i}` }));
const task = (i: number) => ({ id: `t${i}`, contextId: `c${i}`, status: { state: 'TASK_STATE_WORKING', timestamp: '2026-12-02T10:00:00.000Z' }, artifacts: [] });
/** Page tokens the remote was asked for, in order ('' for the first page, 'after' for the catch-up). */
const asked: string[] = [];
let agent: JsonRpcAgent;
let base = '';

beforeAll(async () => {
  agent = await startJsonRpcAgent('pager', (rpc, res) => {
    const params = rpc.params as { pageToken?: string; statusTimestampAfter?: string };
    if (params.statusTimestampAfter !== undefined) {
      asked.push('after');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { tasks: [], nextPageToken: '' } }));
      return;
    }
    const page = params.pageToken ? Number(params.pageToken.slice(1)) : 0;
    asked.push(params.pageToken ?? '');
    const tasks = Array.from({ length: 100 }, (_, i) => task(page * 100 + i));
    res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { tasks, nextPageToken: page + 1 < PAGES ? `p${page + 1}` : '', totalSize: PAGES * 100 } }));
  });
  base = agent.base;
});
afterAll(() => agent.close());

describe('the fleet listing pages ahead', () => {
  it("asks for page k+1 before page k's tasks are read, and still reads every task through the boundary", async () => {
    const client = createA2AClient({ baseUrl: base, logger: logs.logger });
    /** What happened, in order: a request sent, or a page's tasks first looked at. */
    const events: string[] = [];
    const watched: A2AClient = {
      ...client,
      listTasks: async (req): Promise<Result<TaskPage>> => {
        const name = req.statusTimestampAfter ? 'after' : (req.pageToken ?? 'p0');
        events.push(`ask ${name}`);
        const answer = await client.listTasks!(req);
        if (!answer.ok) return answer;
        const page = answer.value;
        // The client's page, watched: the tasks pass the boundary on first look.
        return {
          ok: true,
          value: {
            get tasks() {
              events.push(`read ${name}`);
              return page.tasks;
            },
            get refused() {
              return page.refused;
            },
            size: page.size,
            nextPageToken: page.nextPageToken,
            totalSize: page.totalSize,
          },
        };
      },
    };
    const reader = new FleetRead({ remote: () => watched, now: () => new Date(), logger: logs.logger });
    const report = await reader.prepare(ours);
    await client.close();
    expect(report).toMatchObject({ mode: 'listed', requests: PAGES + 1, answered: PAGES * 100, totalSize: PAGES * 100 });
    expect(asked).toEqual(['', 'p1', 'p2', 'after']);
    // Page k+1 is on the wire before page k is read; the catch-up waits for every page (it needs the newest timestamp).
    expect(events).toEqual(['ask p0', 'ask p1', 'read p0', 'ask p2', 'read p1', 'read p2', 'ask after', 'read after']);
    expect(ours.every((t) => reader.take(t.taskId, t.contextId)?.snapshot.id === t.taskId)).toBe(true);
  });
});
