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
