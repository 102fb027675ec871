/**
 * How a supervisor gets its decision runtime: the one a host injected (the demo and tests
 * inject one wired to the SIMULATED Argus and Foreman), else one built from the config. Kept
 * out of supervisor.ts so the facade does not grow; the supervisor holds the result for its
 * lifetime, reports its availability in `/health`, hands it to the effects and closes it on stop.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { SupervisorConfig } from '../config/config.js';
import { createDecisionRuntime, type DecisionRuntime } from './decision-runtime.js';

export type { DecisionRuntime } from './decision-runtime.js';

export function supervisorDecisions(input: { config: SupervisorConfig; metrics: SupervisorMetrics; logger: Logger; injected?: DecisionRuntime | undefined }): DecisionRuntime {
  return input.injected ?? createDecisionRuntime(input.config, { metrics: input.metrics, logger: input.logger });
}
