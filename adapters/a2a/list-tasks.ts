/**
 * A2A 1.0 `ListTasks` over JSON-RPC: one page of the caller's tasks, every task through the same
 * remote-text boundary as a GetTask answer (normalizeTask: shape, identifiers, sanitizing, caps).
 * The page itself is remote text too: a page larger than asked, or an envelope of the wrong
 * shape, is refused whole. A task that fails the boundary is dropped and counted, never adopted:
 * the caller reads it with GetTask instead. Only 1.0 has the method over JSON-RPC (0.3 lists
 * it as gRPC/REST only), so older dialects are refused locally.
 * @module
 */
import { z } from 'zod';
import { err, ok, refusedLocally, remoteError, type Result } from './errors.js';
import { normalizeTask } from './normalize.js';
import type { TaskSnapshot } from './snapshot.js';

/** The spec's bounds on `pageSize` (1 to 100). */
export const LIST_PAGE_MAX = 100;
/** A page token is sent back verbatim: a cursor longer than this is not a cursor. */
export const PAGE_TOKEN_MAX = 1024;

export interface ListTasksRequest {
  pageSize: number;
  pageToken?: string;
  /** RFC 3339 instant; the spec includes tasks whose status timestamp is at or after it. */
  statusTimestampAfter?: string;
}

export interface TaskPage {
  /** The page's tasks that passed the boundary, in the remote's order. */
  tasks: TaskSnapshot[];
  /** Tasks on the page refused at the boundary (malformed, invalid identifiers). */
  refused: number;
  /** `""` on the last page (the spec: always present; absent is read as the last page). */
  nextPageToken: string;
  /** The remote's count of matching tasks, when it gave a usable one. */
  totalSize: number | null;
  /**
   * Entries on the page before the boundary (`tasks.length + refused`), known before any task is
   * read: a caller can ask for the next page first and read this one while the remote answers.
   */
  size?: number;
}

const envelopeSchema = z.object({
  tasks: z.array(z.unknown()).default([]),
  nextPageToken: z.string().max(PAGE_TOKEN_MAX).nullish(),
  totalSize: z.number().int().nonnegative().nullish(),
});

/** The JSON-RPC params: compact tasks (no history), artifacts included so the view equals GetTask's. */
export function listTasksParams(req: ListTasksRequest): Record<string, unknown> {
  return {
    pageSize: req.pageSize,
    historyLength: 0,
    includeArtifacts: true,
    ...(req.pageToken ? { pageToken: req.pageToken } : {}),
    ...(req.statusTimestampAfter ? { statusTimestampAfter: req.statusTimestampAfter } : {}),
  };
}

export function checkListRequest(req: ListTasksRequest, protocolVersion: string): Result<true> {
  if (protocolVersion !== '1.0') return refusedLocally('unsupported_capability', 'ListTasks exists over JSON-RPC only in A2A 1.0');
  if (!Number.isInteger(req.pageSize) || req.pageSize < 1 || req.pageSize > LIST_PAGE_MAX) {
    return refusedLocally('invalid_request', `pageSize must be an integer from 1 to ${LIST_PAGE_MAX}`);
  }
  return ok(true);
}

/** Reads one ListTasks result through the boundary. */
export function readTaskPage(result: unknown, asked: number, secrets: readonly string[]): Result<TaskPage> {
  const parsed = envelopeSchema.safeParse(result);
  if (!parsed.success) return err(remoteError('remote_malformed', 'the remote task list does not have the shape of a ListTasks answer', 'ambiguous'));
  const { tasks, nextPageToken, totalSize } = parsed.data;
  if (tasks.length > asked) {
    return err(remoteError('remote_payload_invalid', `the remote answered a page of ${tasks.length} tasks where ${asked} were asked`, 'ambiguous'));
  }
  // Every task passes the boundary on first look at `tasks` or `refused` (once): the envelope,
  // the cursor and the page size are checked now, the tasks while the next page is on the wire.
  let read: { tasks: TaskSnapshot[]; refused: number } | null = null;
  const normalized = () => {
    if (read) return read;
    const out: TaskSnapshot[] = [];
    let refused = 0;
    for (const raw of tasks) {
      const task = normalizeTask(raw, secrets);
      if (task.ok) out.push(task.value);
      else refused++;
    }
    return (read = { tasks: out, refused });
  };
  return ok({
    get tasks() {
      return normalized().tasks;
    },
    get refused() {
      return normalized().refused;
    },
    size: tasks.length,
    nextPageToken: nextPageToken ?? '',
    totalSize: totalSize ?? null,
  });
}
