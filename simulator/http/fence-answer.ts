/**
 * The reply to a remote question: a SendMessage / message/send that names an existing task is
 * not a new attempt but an answer to that task (ledger action `answer`). Fenced like a submit
 * (holder and epoch of the task's own context); on top of the fence, a fenced answer is refused
 * unless the task is waiting for one (`input-required`): -32055 `task_not_awaiting_input`, and
 * nothing changes. A plain A2A follow-up (no authority, in a context nobody leased) is left to
 * the dialect's handler as before.
 * @module
 */
import { CONTROL_ERROR_CODES } from '../../adapters/a2a/control-contract.js';
import { RpcError, RPC_CODES } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { isRecord } from './json-rpc.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The task a SendMessage names, if it names one: then the message is an answer to it. */
export function answeredTaskId(params: Record<string, unknown>): string | undefined {
  const message = params['message'];
  return isRecord(message) ? text(message['taskId']) : undefined;
}

/**
 * Why a fenced answer cannot be applied, apart from the fence itself; null when it can. The
 * context the message names must be the task's own: a lease on another context answers nothing.
 */
export function answerRefusal(world: World, taskId: string, namedContextId: string | undefined): RpcError | null {
  const task = world.get(taskId);
  if (!task) return new RpcError(RPC_CODES.taskNotFound, `Task not found: ${taskId}`);
  if (namedContextId !== undefined && namedContextId !== task.contextId) {
    return new RpcError(RPC_CODES.invalidParams, `task_context_mismatch: task ${taskId} is not in context ${namedContextId}`);
  }
  // Checked and applied in one turn of the event loop (the SDK's path to the executor awaits
  // nothing but settled promises), so of two answers racing for one question only one finds it.
  if (!task.awaitingAnswer) {
    return new RpcError(CONTROL_ERROR_CODES.taskNotAwaitingInput, `task_not_awaiting_input: task ${taskId} is ${task.state} and asks no question`);
  }
  return null;
}
