/**
 * Wires the fleet listing (services/campaign/fleet-read.ts) into the heartbeat: before a beat's
 * TICKs go out, the due campaigns' bound tasks are listed; once the beat has reported, whatever
 * no read took is dropped. Lease readback and renewal stay per campaign (control-extension calls).
 * @module
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { Logger } from '../../adapters/logger.js';
import { FleetRead, type FleetSweepReport, type FleetTarget } from '../campaign/fleet-read.js';
import type { CampaignHost } from '../campaign/campaign-host.js';
import type { SupervisorMetrics } from '../metrics/metrics.js';
import type { HeartbeatOptions } from './heartbeat.js';

export interface FleetSweepDeps {
  remote: () => A2AClient | null;
  host: (campaignId: string) => CampaignHost | undefined;
  metrics: SupervisorMetrics;
  logger: Logger;
  now: () => Date;
}

export interface FleetSweep {
  readonly read: FleetRead;
  /** The heartbeat's hooks: list before the TICKs, drop leftovers after the report. */
  readonly heartbeat: Pick<HeartbeatOptions, 'prepare' | 'finished'>;
  /** The last beat's listing (null before the first), with its wall time (ms, real time). */
  readonly last: (FleetSweepReport & { listMs: number }) | null;
  /** False: beats read per task (the benchmark compares both paths on one fleet). */
  enabled: boolean;
}

export function createFleetSweep(deps: FleetSweepDeps): FleetSweep {
  const read = new FleetRead({
    remote: deps.remote,
    now: deps.now,
    logger: deps.logger.child({ component: 'fleet-read' }),
    onRefused: (reason, n) => deps.metrics.fleetListRefusals.inc({ reason }, n),
  });
  let last: (FleetSweepReport & { listMs: number }) | null = null;
  function* targets(ids: readonly string[]): Generator<FleetTarget> {
    for (const id of ids) {
      const binding = deps.host(id)?.getSnapshot().context.binding;
      if (binding?.taskId) yield { taskId: binding.taskId, contextId: binding.contextId ?? null };
    }
  }
  return {
    read,
    get last() {
      return last;
    },
    get enabled() {
      return read.enabled;
    },
    set enabled(on: boolean) {
      read.enabled = on;
    },
    heartbeat: {
      prepare: async (ids) => {
        try {
          const started = performance.now();
          const report = await read.prepare(targets(ids));
          last = { ...report, listMs: performance.now() - started };
        } catch (error) {
          // A listing that throws reads nothing: this beat reads every task with GetTask.
          read.clear();
          deps.logger.warn({ err: String(error) }, 'fleet listing failed; this beat reads per task');
        }
        return read.current;
      },
      // Only this sweep's leftovers: a newer beat's listing stays for its own reads.
      finished: (generation) => read.clear(typeof generation === 'number' ? generation : undefined),
    },
  };
}
