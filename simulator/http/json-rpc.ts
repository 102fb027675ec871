/**
 * Small JSON-RPC 2.0 helpers for the parts of the wire the simulator answers itself.
 * @module
 */
import type { Request, Response } from 'express';
import { RpcError, RPC_CODES } from '../world/rpc-error.js';

export type RpcId = string | number | null;

export interface RpcRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const idOf = (value: unknown): RpcId => (typeof value === 'string' || typeof value === 'number' ? value : null);

/** The request's JSON-RPC envelope, or null when the body is not one. */
export function readRpc(req: Request): RpcRequest | null {
  const body: unknown = req.body;
  if (!isRecord(body) || typeof body['method'] !== 'string') return null;
  return { id: idOf(body['id']), method: body['method'], params: isRecord(body['params']) ? body['params'] : {} };
}

/** The method name used for request counting and fault targeting. */
export function rpcMethodOf(req: Request): string {
  return readRpc(req)?.method ?? '(invalid)';
}

export function sendResult(res: Response, id: RpcId, result: unknown): void {
  res.status(200).json({ jsonrpc: '2.0', id, result });
}

export function sendError(res: Response, id: RpcId, error: unknown): void {
  const rpcError =
    error instanceof RpcError ? error : new RpcError(-32603, error instanceof Error ? error.message : 'internal error');
  res.status(200).json({ jsonrpc: '2.0', id, error: { code: rpcError.code, message: rpcError.message } });
}

export const invalidParams = (message: string) => new RpcError(RPC_CODES.invalidParams, message);
