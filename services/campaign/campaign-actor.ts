/**
 * Restore a campaign's actor from its document, feed it events, and take the persisted
 * snapshot back — the express-workflow shape: restore, send, save. Actors live only for the
 * duration of one step; an unchanged heartbeat tick never creates one.
 * @module
 */
import { createActor, type AnyActorLogic, type SnapshotFrom } from 'xstate';
import { CAMPAIGN_MACHINE_VERSION, campaignMachine, type CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEmitted, CampaignEvent } from '../../machines/campaign.types.js';
import { checkRestorable, isQuiescent } from '../../machines/campaign.version.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';

export type CampaignSnapshot = SnapshotFrom<CampaignMachine>;

export interface StepResult {
  snapshot: CampaignSnapshot;
  persisted: { version: string; snapshot: unknown };
  emitted: CampaignEmitted[];
}

export class MachineRestoreError extends Error {
  readonly code = 'machine_version_unknown';
}

/** The first persisted snapshot of a new campaign. */
export function initialMachine(input: { campaignId: string; controllerId: string; maxAttempts: number }) {
  const actor = createActor(campaignMachine, { input });
  actor.start();
  const persisted = { version: CAMPAIGN_MACHINE_VERSION, snapshot: actor.getPersistedSnapshot() };
  actor.stop();
  return persisted;
}

/** Reads the snapshot without starting anything (for summaries and `can()` checks). */
export function peekSnapshot(doc: CampaignDocument, logic: CampaignMachine = campaignMachine): CampaignSnapshot {
  if (!doc.machine) throw new MachineRestoreError('campaign has no machine snapshot');
  const check = checkRestorable(doc.machine);
  if (!check.ok) throw new MachineRestoreError(`machine version ${check.version} is not ${CAMPAIGN_MACHINE_VERSION}`);
  return logic.resolveState(check.snapshot as never) as CampaignSnapshot;
}

/**
 * Applies events synchronously (no invoked effect may start: use `runCampaignEffect` for those).
 * Throws if an event would leave an effect in flight, because that snapshot must not be saved.
 */
export function stepCampaign(doc: CampaignDocument, events: CampaignEvent[], logic: CampaignMachine = campaignMachine): StepResult {
  const { actor, emitted } = restore(doc, logic);
  for (const event of events) actor.send(event);
  const snapshot = actor.getSnapshot();
  if (!isQuiescent(snapshot)) {
    actor.stop();
    throw new Error('stepCampaign started an effect; use runCampaignEffect');
  }
  const persisted = { version: CAMPAIGN_MACHINE_VERSION, snapshot: actor.getPersistedSnapshot() };
  actor.stop();
  return { snapshot, persisted, emitted };
}

/**
 * Sends one event that starts an invoked effect (claim, renew, relay, readback) with the given
 * actor implementations, and resolves once the machine is quiescent again.
 */
export async function runCampaignEffect(
  doc: CampaignDocument,
  event: CampaignEvent,
  actors: Partial<Record<'claimLease' | 'renewLease' | 'relayMutation' | 'readBackIntent', AnyActorLogic>>,
): Promise<StepResult> {
  const logic = campaignMachine.provide({ actors: actors as never });
  const { actor, emitted } = restore(doc, logic);
  const done = new Promise<CampaignSnapshot>((resolve, reject) => {
    const sub = actor.subscribe({
      next: (s) => {
        if (isQuiescent(s)) {
          sub.unsubscribe();
          resolve(s);
        }
      },
      error: reject,
    });
  });
  actor.send(event);
  const snapshot = isQuiescent(actor.getSnapshot()) ? actor.getSnapshot() : await done;
  const persisted = { version: CAMPAIGN_MACHINE_VERSION, snapshot: actor.getPersistedSnapshot() };
  actor.stop();
  return { snapshot, persisted, emitted };
}

function restore(doc: CampaignDocument, logic: CampaignMachine) {
  if (!doc.machine) throw new MachineRestoreError('campaign has no machine snapshot');
  const check = checkRestorable(doc.machine);
  if (!check.ok) throw new MachineRestoreError(`machine version ${check.version} is not ${CAMPAIGN_MACHINE_VERSION}`);
  // Input is ignored on restore; the context comes from the snapshot.
  const actor = createActor(logic, { snapshot: check.snapshot, input: { campaignId: doc.campaignId } } as never);
  const emitted: CampaignEmitted[] = [];
  actor.on('*', (e) => emitted.push(e as CampaignEmitted));
  actor.start();
  return { actor, emitted };
}

/** 'observing' | 'controlling' | ... | 'paused' | 'closed' and the attention state, for summaries. */
export function describeStates(snapshot: CampaignSnapshot): { authority: string; attention: string } {
  const value = snapshot.value as unknown;
  if (typeof value === 'string') return { authority: value, attention: 'idle' };
  const active = (value as { active?: { authority?: unknown; attention?: unknown } }).active;
  const top = (v: unknown) => (typeof v === 'string' ? v : v && typeof v === 'object' ? Object.keys(v)[0] ?? 'unknown' : 'unknown');
  return { authority: top(active?.authority), attention: top(active?.attention) };
}
