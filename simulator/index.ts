/**
 * The bundled OpenTraining simulator: a real A2A server (1.0 and 0.3 through @a2a-js/sdk,
 * 0.2.5 FastA2A-like through a thin layer of our own) with the control extension, scripted
 * scenarios, injectable faults and an admin API. Loopback only.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimClock } from './clock.js';
import { buildApp } from './http/app.js';
import { FaultInjector } from './http/fault-spec.js';
import type { RunningSimulator, SimulatorOptions } from './options.js';
import { World } from './world/world.js';

export type { FaultKind, FaultSpec } from './http/fault-spec.js';
export { FAULT_KINDS } from './http/fault-spec.js';
export type { CreatedTasks, RunningSimulator, ScenarioName, SimListing, SimProtocol, SimulatorLogger, SimulatorOptions } from './options.js';
export { SCENARIO_NAMES, SIM_LISTINGS, SIM_PROTOCOLS, isScenarioName } from './names.js';
export type { SimulatorStats } from './world/stats.js';
export type { ArrivalListener, Disposition, LedgerEntry, LedgerPage } from './world/request-log.js';
export type { TaskSummary } from './world/world.js';
export { BLOCKER_QUESTION, RIVAL_CONTROLLER_ID } from './world/scenarios.js';

export const SIMULATOR_HOST = '127.0.0.1';
const DEFAULT_POLLS_PER_STAGE = 3;
const DEFAULT_TAKEOVER_AT_POLL = 2;

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, SIMULATOR_HOST, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) throw new RangeError(`${name} must be a positive integer`);
  return resolved;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const protocol = options.protocol ?? '1.0';
  const control = options.control ?? true;
  const defaultScenario = options.scenario ?? 'training';
  const enforceEpochs = options.enforceEpochs ?? true;
  const clock = new SimClock(options.clock);
  const world = new World({
    now: clock.now,
    pollsPerStage: positiveInt('pollsPerStage', options.pollsPerStage, DEFAULT_POLLS_PER_STAGE),
    takeoverAtPoll: positiveInt('takeoverAtPoll', options.takeoverAtPoll, DEFAULT_TAKEOVER_AT_POLL),
  });
  const faults = new FaultInjector();
  const advanceClock = (seconds: number) => clock.advance(seconds);

  // Listen first: the cards carry the real origin, which is known only once the port is.
  const server = createServer();
  const port = await listen(server, options.port ?? 0);
  const origin = `http://${SIMULATOR_HOST}:${port}`;
  server.on(
    'request',
    buildApp({
      origin,
      protocol,
      control,
      enforceEpochs,
      advertiseEpochEnforcement: options.advertiseEpochEnforcement ?? true,
      token: options.token || undefined,
      defaultScenario,
      listing: options.listing ?? 'off',
      world,
      faults,
      advanceClock,
      logger: options.logger,
    }),
  );
  options.logger?.info({ origin, protocol, control, enforceEpochs }, 'simulator listening');

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/a2a`,
    origin,
    port,
    protocol,
    control,
    close() {
      closing ??= new Promise<void>((resolve) => {
        faults.dispose();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
    createTasks: (count, scenario, contextId) => world.createMany(count, scenario ?? defaultScenario, contextId).ids,
    createTasksDetailed: (count, scenario, contextId) => world.createMany(count, scenario ?? defaultScenario, contextId),
    advance: (taskId) => {
      if (taskId === undefined) return world.advanceAll();
      const task = world.require(taskId);
      const before = task.revision;
      world.poll(taskId);
      return task.revision === before ? 0 : 1;
    },
    moveTask: (taskId, state) => world.moveTo(taskId, state),
    addCheckpoint: (taskId) => world.addCheckpoint(taskId),
    hold: (methods) => faults.hold(methods),
    takeover: (contextId, controllerId, ttlSeconds) => world.leases.force(contextId, controllerId, ttlSeconds),
    lease: (contextId) => world.leases.view(contextId),
    injectFaults: (spec) => faults.inject(spec),
    clearFaults: () => faults.clear(),
    releaseHeld: () => faults.releaseAll(),
    get holding() {
      return faults.holding;
    },
    advanceClock,
    task: (taskId) => {
      const task = world.get(taskId);
      return task ? world.summary(task) : undefined;
    },
    stats: () => world.stats.snapshot(),
    ledger: (since) => world.ledger.log.page(since),
    onMutationRequest: (listener) => world.ledger.log.onArrival(listener),
  };
}
