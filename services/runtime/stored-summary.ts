/**
 * The view of a campaign ANOTHER replica hosts, from its document in the shared store (issue 22,
 * part 5: `list` on any replica shows every campaign). The same projection as a hosted
 * campaign's (`projectCampaign`), over the snapshot its owner last saved, restored the way a
 * takeover restores it (version check and migration, this process's environment) but never
 * started: nothing runs, nothing is sent. What only the owner's memory holds (`last_read_at`,
 * the remote's status text, when a read last failed) is null here; `hosted_by` names the owner.
 * @module
 */
import { createActor } from 'xstate';
import { campaignMachine, checkRestorable } from '../../machines/campaign.machine.js';
import { withEnvironment } from '../../machines/campaign.restore.js';
import type { HostEnvironment } from '../../machines/campaign.types.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { factsOf, type CampaignSnapshot } from '../campaign/facts.js';
import { projectCampaign } from '../api/campaign-projection.js';
import type { CampaignSummary } from '../api/read-model.js';

export interface StoredSummaryDeps {
  /** This process's environment (capabilities, Argus, cadence): the rules' facts of now. */
  environment(): HostEnvironment;
  /** The operator actions the chart allows on a snapshot (CampaignActions.allowedFor). */
  allowedActions(snapshot: CampaignSnapshot): string[];
  now(): Date;
}

/** The snapshot a document holds, restored (not started); null when this build cannot restore it. */
export function storedSnapshot(doc: CampaignDocument, environment: HostEnvironment): CampaignSnapshot | null {
  if (!doc.machine) return null;
  const check = checkRestorable(doc.machine, { taskId: doc.remote.taskId, contextId: doc.remote.contextId });
  if (!check.ok) return null;
  try {
    const options = { snapshot: withEnvironment(check.snapshot, environment), input: { campaignId: doc.campaignId }, id: doc.campaignId };
    return createActor(campaignMachine, options as never).getSnapshot();
  } catch {
    return null;
  }
}

/** The view, with `hosted_by`; null when the snapshot cannot be restored (the owner reports it). */
export function storedSummary(doc: CampaignDocument, owner: string | null, deps: StoredSummaryDeps): CampaignSummary | null {
  // A document that passed validation but cannot be projected is shown as corrupt (null), never
  // allowed to fail the whole `list` of every replica.
  try {
    const snapshot = storedSnapshot(doc, deps.environment());
    if (!snapshot) return null;
    const allowed = () => deps.allowedActions(snapshot);
    const summary = projectCampaign(factsOf(doc), snapshot, { lastReadAt: null, allowedActions: allowed, readAt: { now: deps.now, allowedActions: allowed } });
    return Object.assign(summary, { hosted_by: owner });
  } catch {
    return null;
  }
}
