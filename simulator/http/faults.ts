/**
 * Counts each A2A request by method and serves the next armed fault, if one matches.
 * Runs before authentication and before any state changes, except `lost-response`, which
 * lets the request apply and then drops the connection instead of answering.
 * @module
 */
import type { RequestHandler, Response } from 'express';
import type { StatsRecorder } from '../world/stats.js';
import type { FaultInjector, FaultSpec } from './fault-spec.js';
import { readRpc, rpcMethodOf } from './json-rpc.js';

const DEFAULT_5XX = 503;
const DEFAULT_DELAY_MS = 10_000;
const DEFAULT_OVERSIZED_BYTES = 2 * 1024 * 1024;
const DEFAULT_TRICKLE_MS = 1_000;
const DEFAULT_TRICKLE_BYTES = 4 * 1024;

export interface FaultDeps {
  faults: FaultInjector;
  stats: StatsRecorder;
  /** Where `redirect` points by default (an absolute URL on this server). */
  redirectSink: string;
}

/** `methodName` fixes the name for non-JSON-RPC routes (the card). */
export function countAndInjectFaults(deps: FaultDeps, methodName?: string): RequestHandler {
  return (req, res, next) => {
    const method = methodName ?? rpcMethodOf(req);
    deps.stats.request(method);
    // A held request is served on release (a client that gave up by then is not).
    if (deps.faults.parked(method, () => (res.socket?.destroyed ? undefined : serveOrFault(method, req, res, next)))) return;
    serveOrFault(method, req, res, next);
  };

  function serveOrFault(method: string, req: Parameters<RequestHandler>[0], res: Response, next: () => void): void {
    const fault = deps.faults.take(method, taskIdOf(req));
    if (!fault) {
      next();
      return;
    }
    deps.stats.fault(fault.kind);
    const id = JSON.stringify(readRpc(req)?.id ?? null);
    serve(fault, deps, res, id, next);
  }
}

function serve(fault: FaultSpec, deps: FaultDeps, res: Response, id: string, next: () => void): void {
  switch (fault.kind) {
    case 'http-5xx':
      res.status(fault.status ?? DEFAULT_5XX).type('text/plain').send('injected fault: upstream unavailable');
      return;
    case 'malformed-json':
      // Looks like the start of a real answer, then stops mid-object.
      res.status(200).type('application/json').send(`{"jsonrpc":"2.0","id":${id},"result":{"task":{"id":"tr`);
      return;
    case 'redirect':
      res.redirect(302, fault.location ?? deps.redirectSink);
      return;
    case 'oversized': {
      const padding = 'x'.repeat(fault.bytes ?? DEFAULT_OVERSIZED_BYTES);
      res.status(200).type('application/json').send(`{"jsonrpc":"2.0","id":${id},"result":{"padding":"${padding}"}}`);
      return;
    }
    case 'slow':
      deps.faults.delay(fault.delayMs ?? DEFAULT_DELAY_MS, () => {
        // A client that gave up is gone; an abandoned read need not be served.
        if (!res.socket?.destroyed) next();
      });
      return;
    case 'trickle': {
      // Headers at once, then the answer one byte at a time: only an overall deadline ends it.
      res.status(200).type('application/json');
      res.flushHeaders();
      const text = `{"jsonrpc":"2.0","id":${id},"result":{"padding":"${'x'.repeat(fault.bytes ?? DEFAULT_TRICKLE_BYTES)}"}}`;
      let sent = 0;
      const drip = (): void => {
        if (res.socket?.destroyed || res.writableEnded) return;
        if (sent >= text.length) {
          res.end();
          return;
        }
        res.write(text[sent++]);
        deps.faults.delay(fault.delayMs ?? DEFAULT_TRICKLE_MS, drip);
      };
      drip();
      return;
    }
    case 'rpc-error':
      res.status(200).type('application/json').send(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"injected fault: internal error"}}`);
      return;
    case 'lost-response':
      // The handler still runs and applies the mutation; only its answer is lost.
      res.json = ((_body: unknown) => {
        res.socket?.destroy();
        return res;
      }) as Response['json'];
      next();
      return;
  }
}

/** The task a JSON-RPC request is about (`params.id`), if it names one. */
function taskIdOf(req: Parameters<RequestHandler>[0]): string | undefined {
  const id = readRpc(req)?.params['id'];
  return typeof id === 'string' ? id : undefined;
}
