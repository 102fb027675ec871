/**
 * The control extension's front door on the JSON-RPC endpoint, mounted before the dialect's
 * own handler (the SDK's dispatcher is a fixed switch that answers -32601 to anything else).
 * With control off it steps aside entirely: custom methods then get the plain server's
 * -32601 and authority metadata is ignored, like on any remote without the extension.
 * @module
 */
import type { RequestHandler } from 'express';
import { handleControlMethod, isControlMethod, type ControlDeps } from './control-methods.js';
import { echoActivation, extensionActivated } from './extension-header.js';
import { fenceStandardMutation, standardMutationOf } from './fence-standard.js';
import { readRpc, sendError } from './json-rpc.js';

export function controlGate(deps: ControlDeps & { control: boolean }): RequestHandler {
  return (req, res, next) => {
    const rpc = deps.control ? readRpc(req) : null;
    if (!rpc) {
      next();
      return;
    }
    if (isControlMethod(rpc.method)) {
      if (!extensionActivated(req)) deps.world.stats.extensionNotActivated++;
      echoActivation(req, res);
      void handleControlMethod(deps, res, rpc);
      return;
    }
    const kind = standardMutationOf(rpc.method, rpc.params);
    if (!kind) {
      next();
      return;
    }
    fenceStandardMutation(deps, req, res, next, kind, rpc).catch((error: unknown) => sendError(res, rpc.id, error));
  };
}
