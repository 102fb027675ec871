/**
 * The machine version persisted with every snapshot, and the checks that make a restore fail
 * closed: XState throws only when a state value no longer exists, while a renamed guard or a
 * changed context shape would restore "successfully" into the wrong rules.
 * @module
 */
import type { AnyMachineSnapshot } from 'xstate';

/**
 * Bump on any change to what a persisted snapshot holds (state values, context shape), with a
 * migration. Guards and event payloads are not persisted: a stricter rule needs no bump, since
 * a restored snapshot simply meets the rules of this build.
 */
export const CAMPAIGN_MACHINE_VERSION = 'campaign@6';

/** The envelope the store keeps (`CampaignDocument.machine`). */
export interface PersistedCampaignMachine {
  version: string;
  snapshot: unknown;
}

/**
 * True when no invoked effect is active, so restoring this snapshot starts nothing. Persist only
 * then: XState re-runs an in-flight promise actor from the start on restore.
 */
export const isQuiescent = (snapshot: AnyMachineSnapshot): boolean => !snapshot.hasTag('effect-in-flight');
