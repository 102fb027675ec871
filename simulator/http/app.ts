/**
 * Assembles the simulator's HTTP surface for one dialect. Every JSON-RPC endpoint runs the
 * same chain: parse → count and faults → auth → control gate → the dialect's dispatcher
 * (the SDK's jsonRpcHandler for 1.0 and 0.3, our own layer for 0.2).
 * @module
 */
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { AgentCard } from '@a2a-js/sdk';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { ScenarioName, SimListing, SimProtocol } from '../names.js';
import type { SimulatorLogger } from '../options.js';
import { SimExecutor } from '../sdk/executor.js';
import { SimRequestHandler } from '../sdk/request-handler.js';
import { WorldTaskStore } from '../sdk/world-task-store.js';
import { RpcError, RPC_CODES } from '../world/rpc-error.js';
import type { World } from '../world/world.js';
import { adminRouter } from './admin.js';
import { requireToken } from './auth.js';
import { protoCard, v02Card, v03Card, type CardInputs } from './cards.js';
import { controlGate } from './control-gate.js';
import { readRpc, sendError } from './json-rpc.js';
import type { FaultInjector } from './fault-spec.js';
import { countAndInjectFaults, type FaultDeps } from './faults.js';
import { v02Endpoint } from './v02-endpoint.js';

export interface AppDeps {
  origin: string;
  protocol: SimProtocol;
  control: boolean;
  enforceEpochs: boolean;
  advertiseEpochEnforcement: boolean;
  token: string | undefined;
  defaultScenario: ScenarioName;
  listing: SimListing;
  world: World;
  faults: FaultInjector;
  advanceClock: (seconds: number) => void;
  logger: SimulatorLogger | undefined;
}

/** Mirrors the 1.0 card location under the base path; the 0.2 card lives at the origin root. */
export const V1_CARD_PATH = '/a2a/.well-known/agent-card.json';
export const V02_CARD_PATH = '/.well-known/agent.json';
const REQUEST_BODY_LIMIT = '4mb';

/** A body that is not JSON gets the JSON-RPC parse error, as a real server would answer. */
function rpcBodyErrors(deps: AppDeps): ErrorRequestHandler {
  return (error: { type?: string }, _req, res, next) => {
    if (error?.type === 'entity.parse.failed') {
      deps.world.stats.request('(unparseable)');
      res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: RPC_CODES.parseError, message: 'Parse error' } });
    } else if (error?.type === 'entity.too.large') {
      res.status(413).json({ error: 'request body too large' });
    } else next(error);
  };
}

/** A remote without ListTasks: the method is not found (as on 0.3, or a server that lacks it). */
const refuseListTasks: RequestHandler = (req, res, next) => {
  const rpc = readRpc(req);
  if (rpc?.method !== 'ListTasks') return next();
  sendError(res, rpc.id, new RpcError(RPC_CODES.methodNotFound, 'Method not found: ListTasks'));
};

export function buildApp(deps: AppDeps): Express {
  const { world, origin } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.use('/_sim', adminRouter({ world, faults: deps.faults, defaultScenario: deps.defaultScenario, advanceClock: deps.advanceClock }));

  const faultDeps: FaultDeps = { faults: deps.faults, stats: world.stats, redirectSink: `${origin}/_sim/redirect-sink` };
  const rpcChain: (RequestHandler | ErrorRequestHandler)[] = [
    express.json({ limit: REQUEST_BODY_LIMIT }),
    rpcBodyErrors(deps),
    countAndInjectFaults(faultDeps),
    ...(deps.token ? [requireToken(deps.token, world.stats)] : []),
    controlGate({ world, enforceEpochs: deps.enforceEpochs, control: deps.control }),
  ];
  const cardFaults = countAndInjectFaults(faultDeps, 'agentCard');
  const cardInputs: CardInputs = {
    origin,
    control: deps.control,
    advertiseEpochEnforcement: deps.advertiseEpochEnforcement,
    secured: deps.token !== undefined,
  };

  if (deps.protocol === '0.2') {
    app.get(V02_CARD_PATH, cardFaults, (_req, res) => {
      res.json(v02Card(cardInputs));
    });
    // Non-strict routing: `/a2a` and `/a2a/` both reach the one endpoint, as with FastA2A's mount.
    app.post('/a2a', ...rpcChain, v02Endpoint({ world, control: deps.control, defaultScenario: deps.defaultScenario }));
  } else {
    const handler = new SimRequestHandler(
      protoCard(cardInputs, deps.protocol),
      new WorldTaskStore(world, deps.control, deps.listing === 'off' ? 'spec' : deps.listing),
      new SimExecutor(world, deps.control, deps.defaultScenario),
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      // The executor returns at once; no state should keep a bus alive after it.
      { keepBusAliveStates: [] },
    ).attach(world, deps.control);
    if (deps.protocol === '1.0') {
      // Not the SDK's agentCardHandler: it JSON.stringify()s the in-memory ts-proto card, so
      // oneofs such as security schemes leave as {$case, value} instead of the 1.0 JSON form.
      const wireCard = AgentCard.toJSON(protoCard(cardInputs, '1.0'));
      app.get(V1_CARD_PATH, cardFaults, (_req, res) => {
        res.json(wireCard);
      });
    } else {
      app.get(V1_CARD_PATH, cardFaults, (_req, res) => {
        res.json(v03Card(cardInputs));
      });
    }
    app.use(
      '/a2a/jsonrpc',
      ...rpcChain,
      ...(deps.listing === 'off' ? [refuseListTasks] : []),
      jsonRpcHandler({
        requestHandler: handler,
        userBuilder: UserBuilder.noAuthentication,
        ...(deps.protocol === '0.3' ? { legacyCompat: { enabled: true } } : {}),
      }),
    );
  }

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  const lastResort: ErrorRequestHandler = (error: { status?: number; message?: string }, _req, res, _next) => {
    const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 600 ? error.status : 500;
    if (status >= 500) deps.logger?.error({ err: error?.message }, 'simulator request failed');
    if (!res.headersSent) res.status(status).json({ error: status >= 500 ? 'internal error' : (error?.message ?? 'bad request') });
  };
  app.use(lastResort);
  return app;
}
