/**
 * The simulator's vocabularies (dialects and scenarios). A leaf module: the world, the HTTP
 * layer and the public options all import it, and it imports nothing.
 * @module
 */
export const SIM_PROTOCOLS = ['1.0', '0.3', '0.2'] as const;
export type SimProtocol = (typeof SIM_PROTOCOLS)[number];

export const SCENARIO_NAMES = ['training', 'steady', 'failed', 'blocker', 'mission', 'takeover'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const isScenarioName = (value: unknown): value is ScenarioName =>
  typeof value === 'string' && (SCENARIO_NAMES as readonly string[]).includes(value);

/**
 * How the simulator answers A2A 1.0 ListTasks: `off` (method not found, as a remote without it;
 * the default, so poll-driven scenarios keep advancing by GetTask), `spec` (the spec's order,
 * inclusive filter, a cursor that survives updates) or `sdk-memory` (@a2a-js/sdk 1.3.0's
 * in-memory store: strict filter, a cursor lost when its task is updated between pages).
 */
export const SIM_LISTINGS = ['off', 'spec', 'sdk-memory'] as const;
export type SimListing = (typeof SIM_LISTINGS)[number];
