/**
 * The control extension's own JSON-RPC methods (docs/control-extension.md): lease get /
 * claim / renew / release, intervene, and request readback. Answered here, before the SDK's
 * dispatcher, which knows only the core A2A methods.
 * @module
 */
import type { Response } from 'express';
import { CONTROL_ERROR_CODES, CONTROL_METHODS, type ControlAuthority } from '../../adapters/a2a/control-contract.js';
import { checkTtl } from '../world/leases.js';
import { RpcError } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { answerOnce, type CallEffect } from './answer-once.js';
import {
  interveneSchema,
  leaseClaimSchema,
  leaseGetSchema,
  leaseReleaseSchema,
  leaseRenewSchema,
  parseParams,
  requestGetSchema,
} from './control-params.js';
import { sendError, sendResult, type RpcRequest } from './json-rpc.js';

const CONTROL_METHOD_SET: ReadonlySet<string> = new Set(Object.values(CONTROL_METHODS));
export const isControlMethod = (method: string): boolean => CONTROL_METHOD_SET.has(method);

export interface ControlDeps {
  world: World;
  enforceEpochs: boolean;
}

export const authorityMissing = () =>
  new RpcError(CONTROL_ERROR_CODES.authorityMissing, `authority_missing: fenced mutations carry {controllerId, epoch, requestId} in metadata`);

export async function handleControlMethod(deps: ControlDeps, res: Response, rpc: RpcRequest): Promise<void> {
  const { world } = deps;
  const serverTime = () => new Date(world.now()).toISOString();
  try {
    switch (rpc.method) {
      case CONTROL_METHODS.leaseGet: {
        const p = parseParams(leaseGetSchema, rpc.params);
        sendResult(res, rpc.id, { lease: world.leases.view(p.contextId), serverTime: serverTime() });
        return;
      }
      case CONTROL_METHODS.leaseClaim: {
        const p = parseParams(leaseClaimSchema, rpc.params);
        checkTtl(p.ttlSeconds);
        const { requestId, ...payload } = p;
        await answerOnce(world, res, rpc.id, {
          requestId,
          action: 'claim',
          payload,
          run: () => {
            const lease = world.leases.claim(p.contextId ?? world.newContextId(), p.controllerId, p.ttlSeconds);
            return { result: { lease, serverTime: serverTime() } };
          },
        });
        return;
      }
      case CONTROL_METHODS.leaseRenew: {
        const p = parseParams(leaseRenewSchema, rpc.params);
        const { requestId, ...payload } = p;
        await answerOnce(world, res, rpc.id, {
          requestId,
          action: 'renew',
          payload,
          run: () => ({ result: { lease: world.leases.renew(p.contextId, p.controllerId, p.epoch, p.ttlSeconds), serverTime: serverTime() } }),
        });
        return;
      }
      case CONTROL_METHODS.leaseRelease: {
        const p = parseParams(leaseReleaseSchema, rpc.params);
        const { requestId, ...payload } = p;
        await answerOnce(world, res, rpc.id, {
          requestId,
          action: 'release',
          payload,
          run: () => {
            world.leases.release(p.contextId, p.controllerId, p.epoch);
            return { result: { lease: null, serverTime: serverTime() } };
          },
        });
        return;
      }
      case CONTROL_METHODS.intervene: {
        const p = parseParams(interveneSchema, rpc.params);
        const run = () => intervene(deps, p.taskId, p.instruction, p.authority);
        if (!p.authority) {
          // Without a request id there is nothing to record; the fence still answers.
          const effect = world.ledger.untracked('intervene', rpc.method, run);
          world.stats.applied('intervene', undefined);
          sendResult(res, rpc.id, effect.result);
          return;
        }
        const { requestId } = p.authority;
        await answerOnce(world, res, rpc.id, { requestId, action: 'intervene', payload: p, run });
        return;
      }
      case CONTROL_METHODS.requestGet: {
        const p = parseParams(requestGetSchema, rpc.params);
        sendResult(res, rpc.id, await world.ledger.readback(p.requestId));
        return;
      }
    }
  } catch (error) {
    sendError(res, rpc.id, error);
  }
}

/** Fenced like every mutation; a naive remote (enforceEpochs false) applies and counts it. */
function intervene(deps: ControlDeps, taskId: string, instruction: string, authority: ControlAuthority | undefined): CallEffect {
  const { world } = deps;
  const task = world.require(taskId);
  const failure = authority ? world.leases.fence(task.contextId, authority) : authorityMissing();
  if (failure && deps.enforceEpochs) {
    world.stats.staleMutationsRejected++;
    throw failure;
  }
  world.intervene(taskId, instruction);
  if (failure) world.stats.staleMutationsApplied++;
  return { result: { requestId: authority?.requestId ?? null, status: 'applied' }, taskId };
}
