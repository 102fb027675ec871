/**
 * Fencing of the standard A2A mutations (submit = SendMessage / message/send, answer = the same
 * naming an existing task, cancel = CancelTask / tasks/cancel) before they reach the dialect's
 * handler. An answer is fenced by its task's own context and must find the task waiting for
 * one (fence-answer.ts).
 *
 * A mutation is fenced when it carries authority in `metadata[uri]`, or when it targets a
 * context that was ever leased; a plain A2A client can still submit to and cancel in
 * contexts nobody controls. The handler's answer is captured so a retransmission with the
 * same request id gets it verbatim.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { CONTROL_ERROR_CODES, CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';
import type { RpcOutcome } from '../world/request-ledger.js';
import { RequestLog } from '../world/request-log.js';
import { RpcError, RPC_CODES } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { replay } from './answer-once.js';
import { answeredTaskId, answerRefusal } from './fence-answer.js';
import { authorityMissing, type ControlDeps } from './control-methods.js';
import { parseAuthority } from './control-params.js';
import { extensionActivated } from './extension-header.js';
import { isRecord, sendError, type RpcRequest } from './json-rpc.js';

export type StandardMutation = 'submit' | 'cancel' | 'answer';

const KIND_BY_METHOD: Record<string, 'submit' | 'cancel'> = {
  SendMessage: 'submit',
  'message/send': 'submit',
  CancelTask: 'cancel',
  'tasks/cancel': 'cancel',
};

/** A message that names an existing task answers it; one that names none submits a new attempt. */
export function standardMutationOf(method: string, params: Record<string, unknown>): StandardMutation | undefined {
  const kind = KIND_BY_METHOD[method];
  return kind === 'submit' && answeredTaskId(params) !== undefined ? 'answer' : kind;
}

interface Target {
  taskId?: string;
  contextId?: string;
  /** The context the message itself names (an answer's must be its task's). */
  namedContextId?: string;
  rawAuthority: unknown;
  /** What the request id is bound to (transport details such as messageId left out). */
  payload: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function targetOf(world: World, kind: StandardMutation, params: Record<string, unknown>): Target {
  if (kind === 'submit' || kind === 'answer') {
    const message = isRecord(params['message']) ? params['message'] : {};
    const taskId = text(message['taskId']);
    // An answer is fenced by the context its task lives in, whatever context the message names.
    const contextId = kind === 'answer' ? (taskId ? world.get(taskId)?.contextId : undefined) : text(message['contextId']);
    const { messageId: _ignored, ...payload } = message;
    const metadata = isRecord(message['metadata']) ? message['metadata'] : {};
    return { taskId, contextId, namedContextId: text(message['contextId']), rawAuthority: metadata[CONTROL_EXTENSION_URI], payload: { message: payload } };
  }
  const taskId = text(params['id']);
  const metadata = isRecord(params['metadata']) ? params['metadata'] : {};
  return {
    taskId,
    contextId: taskId ? world.get(taskId)?.contextId : undefined,
    rawAuthority: metadata[CONTROL_EXTENSION_URI],
    payload: { id: taskId, metadata },
  };
}

function taskIdOf(outcome: RpcOutcome): string | undefined {
  if (!('result' in outcome) || !isRecord(outcome.result)) return undefined;
  const { result } = outcome;
  if (isRecord(result['task']) && typeof result['task']['id'] === 'string') return result['task']['id'];
  return typeof result['id'] === 'string' ? result['id'] : undefined;
}

const outcomeOf = (body: unknown): RpcOutcome =>
  isRecord(body) && isRecord(body['error'])
    ? { error: body['error'] as { code: number; message: string } }
    : { result: isRecord(body) ? body['result'] : undefined };

/** Wraps res.json so the handler's answer is seen (and recorded) on its way out. */
function onAnswer(res: Response, seen: (outcome: RpcOutcome) => void): void {
  let done = false;
  const original = res.json.bind(res);
  res.json = ((body: unknown) => {
    if (!done) {
      done = true;
      seen(outcomeOf(body));
    }
    return original(body);
  }) as Response['json'];
  res.on('close', () => {
    if (!done) {
      done = true;
      seen({ error: { code: -32603, message: 'the request ended without an answer' } });
    }
  });
}

export async function fenceStandardMutation(
  deps: ControlDeps,
  req: Request,
  res: Response,
  next: NextFunction,
  kind: StandardMutation,
  rpc: RpcRequest,
): Promise<void> {
  const { world } = deps;
  const target = targetOf(world, kind, rpc.params);
  const authority = parseAuthority(target.rawAuthority);
  const controlled = target.contextId !== undefined && world.leases.isControlled(target.contextId);
  const fenced = authority !== undefined || controlled;
  if (fenced && !extensionActivated(req)) world.stats.extensionNotActivated++;

  let failure: RpcError | null = null;
  if (fenced) {
    if (!authority) failure = authorityMissing();
    else if (target.contextId === undefined) failure = new RpcError(CONTROL_ERROR_CODES.leaseNotHeld, 'lease_not_held: the mutation names no leased context');
    else failure = world.leases.fence(target.contextId, authority);
  }
  // Not a fence: a naive remote refuses these too. A missing task is said before the fence.
  const refusal = fenced && kind === 'answer' && target.taskId ? answerRefusal(world, target.taskId, target.namedContextId) : null;
  const missing = refusal?.code === RPC_CODES.taskNotFound ? refusal : null;

  let settle: ((outcome: RpcOutcome, applied: boolean, taskId?: string) => void) | undefined;
  if (authority) {
    const admission = world.ledger.admit(authority.requestId, kind, target.payload, rpc.method);
    if (admission.kind === 'replay') {
      await replay(world, res, rpc.id, admission.outcome);
      return;
    }
    settle = admission.settle;
  } else {
    // No request id to admit, but the remote's log still shows that it arrived and what it did.
    const entry = world.ledger.log.record({ requestId: null, action: kind, method: rpc.method, disposition: 'pending', reason: null });
    settle = (outcome, applied) => RequestLog.settle(entry, outcome, applied);
  }
  const refused = missing ?? (failure && deps.enforceEpochs ? failure : refusal);
  if (refused) {
    if (refused === failure) world.stats.staleMutationsRejected++;
    settle?.({ error: { code: refused.code, message: refused.message } }, false);
    sendError(res, rpc.id, refused);
    return;
  }
  onAnswer(res, (outcome) => {
    const applied = 'result' in outcome;
    if (applied) {
      world.stats.applied(kind, authority?.requestId);
      if (failure) world.stats.staleMutationsApplied++;
    }
    settle?.(outcome, applied, taskIdOf(outcome) ?? target.taskId);
  });
  next();
}
