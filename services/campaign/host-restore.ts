/**
 * How a campaign's actor is (re)built from its last durable snapshot: at boot, and when a failed
 * save rewinds it. Restored the way a restart restores it: a snapshot saved mid-read settles in
 * `heartbeat.idle` (no restarted reader answers that read), a decision boundary in flight is
 * settled, never replayed (an Argus turn: "interrupted"), and the context takes the process's
 * environment of now.
 * @module
 */
import { createActor, type Actor, type AnyActorRef } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEmitted, HostEnvironment } from '../../machines/campaign.types.js';
import { settleInterrupted, withEnvironment } from '../../machines/campaign.restore.js';
import { compactActorOptions } from './actor-memory.js';

export class MachineRestoreError extends Error {
  readonly code = 'machine_version_unknown';
}

export interface RestoreDeps {
  logic: CampaignMachine;
  now(): Date;
  environment(): HostEnvironment;
  /** The root of the one actor system every campaign actor shares. */
  fleet: AnyActorRef;
}

/** @throws MachineRestoreError when XState cannot restore the snapshot. */
export function restoreActor(id: string, durable: unknown, deps: RestoreDeps): { actor: Actor<CampaignMachine>; emitted: CampaignEmitted[] } {
  try {
    const settled = settleInterrupted(durable, deps.now().toISOString());
    const snapshot = withEnvironment(settled.snapshot, deps.environment());
    // Input is ignored on restore (the context comes from the snapshot); the types ask for it.
    // Inspection is the shared system's (set on the fleet root).
    const options = { snapshot, input: { campaignId: id }, id, parent: deps.fleet };
    const actor = createActor(deps.logic, options as never);
    compactActorOptions(actor);
    return { actor, emitted: settled.emitted };
  } catch (error) {
    throw new MachineRestoreError(error instanceof Error ? error.message : String(error));
  }
}
