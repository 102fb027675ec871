/**
 * Runs a request-id-bearing call at most once. A retransmission with the same id and payload
 * gets the recorded answer (no second effect); another payload, or a tombstoned id, gets
 * -32054 from the ledger.
 * @module
 */
import type { Response } from 'express';
import type { RequestAction, RpcOutcome } from '../world/request-ledger.js';
import { RpcError } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { sendError, type RpcId } from './json-rpc.js';

export interface CallEffect {
  result: unknown;
  taskId?: string;
}

export const errorBody = (error: unknown): { code: number; message: string } =>
  error instanceof RpcError ? { code: error.code, message: error.message } : { code: -32603, message: 'internal error' };

/** A request whose first answer never got recorded (it cannot normally happen). */
const UNRECORDED: RpcOutcome = { error: { code: -32603, message: 'the original request left no recorded answer' } };

export async function replay(world: World, res: Response, rpcId: RpcId, outcome: () => Promise<RpcOutcome | undefined>): Promise<void> {
  world.stats.duplicateRequestIdHits++;
  const recorded = (await outcome()) ?? UNRECORDED;
  res.status(200).json({ jsonrpc: '2.0', id: rpcId, ...recorded });
}

export async function answerOnce(
  world: World,
  res: Response,
  rpcId: RpcId,
  call: { requestId: string; action: RequestAction; payload: unknown; run: () => CallEffect },
): Promise<void> {
  let admission;
  try {
    admission = world.ledger.admit(call.requestId, call.action, call.payload);
  } catch (error) {
    sendError(res, rpcId, error);
    return;
  }
  if (admission.kind === 'replay') {
    await replay(world, res, rpcId, admission.outcome);
    return;
  }
  let outcome: RpcOutcome;
  let effect: CallEffect | undefined;
  try {
    effect = call.run();
    outcome = { result: effect.result };
  } catch (error) {
    outcome = { error: errorBody(error) };
  }
  admission.settle(outcome, effect !== undefined, effect?.taskId);
  if (effect) world.stats.applied(call.action, call.requestId);
  res.status(200).json({ jsonrpc: '2.0', id: rpcId, ...outcome });
}
