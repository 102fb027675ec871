/**
 * The SDK's TaskStore as a view over the world. Loads render the task fresh from the world's
 * counters, so GetTask never clones a stored proto object and 10,000 tasks cost only their
 * counters. Saves are ignored on purpose: every change is made in the world first (by the
 * executor or by SimRequestHandler), so what the SDK would write back is already there.
 *
 * ListTasks (`list`) is a pure read (a listing never advances a scenario; only GetTask polls
 * do), in one of two behaviours (simulator option `listing`):
 * - `spec`: A2A 1.0 as written: newest status timestamp first (then id, descending),
 *   `statusTimestampAfter` inclusive (≥), a keyset cursor (timestamp|id) that survives
 *   updates between pages;
 * - `sdk-memory`: what @a2a-js/sdk 1.3.0's InMemoryTaskStore does: the same order, the filter
 *   strict (>), and a cursor found by exact (timestamp, id) match, so a cursor whose task was
 *   updated between pages yields an EMPTY last page (the listing silently ends early).
 * Only the page's tasks are rendered; the order is cached and re-sorted when a timestamp moved.
 * @module
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { SimListing } from '../names.js';
import { renderProtoTask, simStateOf } from '../render/proto-task.js';
import type { SimTask } from '../world/sim-task.js';
import type { World } from '../world/world.js';

const DEFAULT_PAGE_SIZE = 50;

const encodeCursor = (task: SimTask) => Buffer.from(`${task.updatedAt}|${task.id}`, 'utf8').toString('base64url');

function decodeCursor(token: string): { at: number; id: string } | null {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  const at = Number(text.slice(0, bar));
  return bar > 0 && Number.isFinite(at) ? { at, id: text.slice(bar + 1) } : null;
}

/** Newest first, then id descending (the SDK's order; ties broken the same way). */
const before = (a: SimTask, b: SimTask) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class WorldTaskStore implements TaskStore {
  private order: SimTask[] = [];
  private stamps: number[] = [];

  constructor(
    private readonly world: World,
    private readonly control: boolean,
    private readonly listing: SimListing = 'spec',
  ) {}

  async load(taskId: string, _context: ServerCallContext): Promise<Task | undefined> {
    const task = this.world.get(taskId);
    return task ? renderProtoTask(this.world, task, this.control) : undefined;
  }

  async save(_task: Task, _context: ServerCallContext): Promise<void> {
    // Intentionally empty: the world is the single source of truth (see the module comment).
  }

  async list(params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : Number.NEGATIVE_INFINITY;
    const strict = this.listing === 'sdk-memory';
    const wanted = params.status ? simStateOf(params.status) : undefined;
    // TASK_STATE_UNSPECIFIED (0, the proto default) means no status filter.
    const matching = this.sorted().filter(
      (task) =>
        (strict ? task.updatedAt > after : task.updatedAt >= after) &&
        (!params.contextId || task.contextId === params.contextId) &&
        (!params.status || task.state === wanted),
    );
    let start = 0;
    if (params.pageToken) {
      const cursor = decodeCursor(params.pageToken);
      if (strict) {
        // The SDK's pitfall, on purpose: an updated cursor task is not found, the page is empty.
        const at = cursor ? matching.findIndex((t) => t.updatedAt === cursor.at && t.id === cursor.id) : -1;
        start = at === -1 ? matching.length : at + 1;
      } else if (cursor) {
        // Keyset: the first task strictly after the cursor in the order, wherever it moved.
        start = matching.findIndex((t) => t.updatedAt < cursor.at || (t.updatedAt === cursor.at && t.id < cursor.id));
        if (start === -1) start = matching.length;
      }
    }
    const page = matching.slice(start, start + pageSize);
    const tasks = page.map((task) => {
      const rendered = renderProtoTask(this.world, task, this.control);
      return params.includeArtifacts ? rendered : { ...rendered, artifacts: [] };
    });
    const last = page[page.length - 1];
    const next = last && start + page.length < matching.length ? encodeCursor(last) : '';
    return { tasks, nextPageToken: next, pageSize, totalSize: matching.length };
  }

  /** Every task in listing order; re-sorted only when a task was added or its timestamp moved. */
  private sorted(): SimTask[] {
    const { order, stamps } = this;
    let fresh = order.length === this.world.tasks.size;
    for (let i = 0; fresh && i < order.length; i++) fresh = order[i]!.updatedAt === stamps[i];
    if (!fresh) {
      this.order = [...this.world.tasks.values()].sort(before);
      this.stamps = this.order.map((t) => t.updatedAt);
    }
    return this.order;
  }
}
