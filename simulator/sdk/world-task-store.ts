/**
 * The SDK's TaskStore as a view over the world. Loads render the task fresh from the world's
 * counters, so GetTask never clones a stored proto object and 10,000 tasks cost only their
 * counters. Saves are ignored on purpose: every change is made in the world first (by the
 * executor or by SimRequestHandler), so what the SDK would write back is already there.
 * @module
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { renderProtoTask } from '../render/proto-task.js';
import type { World } from '../world/world.js';

const DEFAULT_PAGE_SIZE = 50;

export class WorldTaskStore implements TaskStore {
  constructor(
    private readonly world: World,
    private readonly control: boolean,
  ) {}

  async load(taskId: string, _context: ServerCallContext): Promise<Task | undefined> {
    const task = this.world.get(taskId);
    return task ? renderProtoTask(this.world, task, this.control) : undefined;
  }

  async save(_task: Task, _context: ServerCallContext): Promise<void> {
    // Intentionally empty: the world is the single source of truth (see the module comment).
  }

  /** Newest first, offset-paged; enough for ListTasks on a simulator. */
  async list(params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const offset = params.pageToken ? Number.parseInt(Buffer.from(params.pageToken, 'base64url').toString('utf8'), 10) || 0 : 0;
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : Number.NEGATIVE_INFINITY;
    // TASK_STATE_UNSPECIFIED (0, the proto default) means no status filter.
    const matching = [...this.world.tasks.values()]
      .reverse()
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter((task) => task.updatedAt > after)
      .map((task) => renderProtoTask(this.world, task, this.control))
      .filter((task) => !params.status || task.status?.state === params.status);
    const page = matching.slice(offset, offset + pageSize).map((task) => (params.includeArtifacts ? task : { ...task, artifacts: [] }));
    const next = offset + pageSize < matching.length ? Buffer.from(String(offset + pageSize), 'utf8').toString('base64url') : '';
    return { tasks: page, nextPageToken: next, pageSize, totalSize: matching.length };
  }
}
