/**
 * A stock `@a2a-js/sdk` 1.3.0 server holding N tasks: its DefaultRequestHandler and
 * InMemoryTaskStore, wired as the SDK's README shows, on 127.0.0.1. Tasks are put in the store
 * directly (what the SDK's own executor path would save), so the fleet benchmark and tests meet
 * the SDK's real ListTasks (its sort, its strict timestamp filter, its cursor) and GetTask.
 * @module
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Task, type AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface StockSdkServer {
  /** The base URL an operator would configure (`…/a2a`). */
  base: string;
  rpcUrl: string;
  ids: string[];
  contextIds: string[];
  /** Moves a task on: a new status timestamp and one more artifact (a material change). */
  touch(taskId: string): Promise<void>;
  /** JSON-RPC requests served, by method. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

/** No task is ever created over the wire here; the executor is never asked to run. */
const idleExecutor: AgentExecutor = {
  async execute(_ctx, bus) {
    bus.finished();
  },
  async cancelTask() {},
};

/** The store's owner scope for an unauthenticated caller (the SDK's `resolveUserScope`: "unknown"). */
const anonymous = {} as ServerCallContext;

/**
 * The card a stock SDK 1.0 agent serves: JSON-RPC only, no streaming, no extensions (its URL is
 * set once the server listens). The tests' stock agents serve it too (test/fixtures/foreign-servers.ts).
 */
export function stockAgentCard(about: { name: string; description: string }): AgentCard {
  return {
    ...about,
    supportedInterfaces: [{ url: 'set-after-listen', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
}

export async function startStockSdkServer(count: number): Promise<StockSdkServer> {
  const card = stockAgentCard({ name: 'Stock SDK 1.3 agent', description: 'stock @a2a-js/sdk server: DefaultRequestHandler and InMemoryTaskStore' });
  const store = new InMemoryTaskStore();
  const ids: string[] = [];
  const contextIds: string[] = [];
  const artifacts = new Map<string, number>();
  const started = Date.now();
  const render = (id: string, contextId: string, at: number) =>
    Task.fromJSON({
      id,
      contextId,
      status: { state: 'TASK_STATE_WORKING', timestamp: new Date(at).toISOString() },
      artifacts: Array.from({ length: artifacts.get(id) ?? 0 }, (_, i) => ({ artifactId: `${id}-a${i + 1}`, name: `checkpoint-${i + 1}`, parts: [{ text: 'x' }] })),
      history: [],
    });
  for (let i = 0; i < count; i++) {
    const id = `stock-task-${i + 1}`;
    const contextId = `stock-ctx-${i + 1}`;
    ids.push(id);
    contextIds.push(contextId);
    // Distinct, older timestamps: the listing order is stable until something moves.
    await store.save(render(id, contextId, started - count + i), anonymous);
  }
  const handler = new DefaultRequestHandler(card, store, idleExecutor);
  const requests = new Map<string, number>();
  const app = express();
  app.use('/a2a/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', express.json({ limit: '4mb' }), (req, _res, next) => {
    const method = typeof req.body?.method === 'string' ? (req.body.method as string) : '(invalid)';
    requests.set(method, (requests.get(method) ?? 0) + 1);
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rpcUrl = `${origin}/a2a/jsonrpc`;
  card.supportedInterfaces[0]!.url = rpcUrl;
  let last = Date.now();
  return {
    base: `${origin}/a2a`,
    rpcUrl,
    ids,
    contextIds,
    requests,
    async touch(taskId) {
      const i = ids.indexOf(taskId);
      if (i < 0) throw new Error(`no stock task ${taskId}`);
      artifacts.set(taskId, (artifacts.get(taskId) ?? 0) + 1);
      // Strictly increasing timestamps, as a remote's clock gives at its own resolution.
      last = Math.max(last + 1, Date.now());
      await store.save(render(taskId, contextIds[i]!, last), anonymous);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
