/**
 * The 0.2.5 dialect of the host framework's FastA2A server, as a thin layer of our own: one
 * `POST /a2a/` handling `message/send` (answers `submitted` at once), `tasks/get` and
 * `tasks/cancel`; every other method is -32601. No streaming, no push, no artifacts.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { isScenarioName, type ScenarioName } from '../names.js';
import { renderV02Task } from '../render/v02-task.js';
import { RpcError, RPC_CODES } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { invalidParams, isRecord, readRpc, sendError, sendResult } from './json-rpc.js';

export interface V02Deps {
  world: World;
  control: boolean;
  defaultScenario: ScenarioName;
}

const textOf = (message: Record<string, unknown>): string =>
  (Array.isArray(message['parts']) ? message['parts'] : [])
    .map((part: unknown) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .filter((text) => text !== '')
    .join('\n');

const idParam = (params: Record<string, unknown>): string => {
  const id = params['id'];
  if (typeof id !== 'string' || id === '') throw invalidParams('invalid params: id is required');
  return id;
};

export function v02Endpoint(deps: V02Deps): RequestHandler {
  const { world, control } = deps;
  return (req, res) => {
    const rpc = readRpc(req);
    if (!rpc) {
      sendError(res, null, new RpcError(RPC_CODES.invalidRequest, 'Invalid Request'));
      return;
    }
    try {
      switch (rpc.method) {
        case 'message/send': {
          const message = rpc.params['message'];
          if (!isRecord(message) || !Array.isArray(message['parts'])) throw invalidParams('invalid params: message with parts is required');
          const taskId = typeof message['taskId'] === 'string' && message['taskId'] !== '' ? message['taskId'] : undefined;
          const metadata = isRecord(message['metadata']) ? message['metadata'] : {};
          const task = taskId
            ? world.answer(taskId, textOf(message))
            : world.createTask({
                id: randomUUID(),
                contextId: typeof message['contextId'] === 'string' && message['contextId'] !== '' ? message['contextId'] : randomUUID(),
                scenario: isScenarioName(metadata['scenario']) ? metadata['scenario'] : deps.defaultScenario,
                instruction: textOf(message),
                userMessageId: typeof message['messageId'] === 'string' ? message['messageId'] : null,
              });
          sendResult(res, rpc.id, renderV02Task(world, task, control));
          return;
        }
        case 'tasks/get': {
          const id = idParam(rpc.params);
          const task = world.poll(id) ?? world.require(id);
          const historyLength = typeof rpc.params['historyLength'] === 'number' ? rpc.params['historyLength'] : undefined;
          sendResult(res, rpc.id, renderV02Task(world, task, control, historyLength));
          return;
        }
        case 'tasks/cancel':
          sendResult(res, rpc.id, renderV02Task(world, world.cancel(idParam(rpc.params)), control));
          return;
        default:
          throw new RpcError(RPC_CODES.methodNotFound, `Method not found: ${rpc.method}`);
      }
    } catch (error) {
      sendError(res, rpc.id, error);
    }
  };
}
