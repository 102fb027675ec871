/**
 * The facts an operator event carries for the chart to decide on: the remote's capabilities
 * (from discovery), the binding, the bound task's last observed state, and whether another
 * campaign of this supervisor controls the same remote context. The chart's rules read them;
 * nothing here decides anything.
 * @module
 */
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import { describeStates } from '../../machines/campaign.projection.js';
import type { BindingFacts, RemoteCapabilities } from '../../machines/campaign.types.js';
import type { CampaignFacts, CampaignSnapshot } from '../campaign/projection.js';

/** What discovery found the remote may do; null when it was not discovered (or there is no remote). */
export function capabilitiesOf(description: RemoteDescription | null): RemoteCapabilities | null {
  if (!description) return null;
  const fenced = description.mutationsEnabled;
  const c = description.capabilities;
  return {
    claim: fenced && c.claim_control,
    renew: fenced && c.renew_control,
    release: fenced && c.release_control,
    submit: fenced && c.submit,
    intervene: fenced && c.intervene,
    cancel: fenced && c.cancel,
    epochEnforced: description.controlParams?.epochEnforcement === true,
    requestReadback: description.controlParams?.requestReadback === true,
  };
}

/** The binding as of now: the document's, with the context the last read saw when it has none. */
export function bindingOf(facts: CampaignFacts, snapshot: CampaignSnapshot): BindingFacts {
  const remote = snapshot.context.remote;
  const seen = remote && remote.taskId === facts.binding.taskId ? remote.contextId : null;
  return { taskId: facts.binding.taskId, contextId: facts.binding.contextId ?? seen ?? snapshot.context.lease?.contextId ?? null };
}

/** The bound task's state as last observed; 'unobserved' when it was bound after the last read. */
export function boundTaskStateOf(facts: CampaignFacts, snapshot: CampaignSnapshot): string | null {
  const taskId = facts.binding.taskId;
  if (taskId === null) return null;
  const remote = snapshot.context.remote;
  return remote && remote.taskId === taskId ? remote.state : 'unobserved';
}

/**
 * Which campaigns of this supervisor control which remote context (one controller per context),
 * kept as views change so a claim's fact costs a lookup, not a scan of every campaign.
 */
export class ContextControllers {
  private readonly byContext = new Map<string, Set<string>>();
  private readonly byCampaign = new Map<string, string>();

  /** Records where `campaignId` stands now: controlling a context, or not. */
  note(campaignId: string, snapshot: CampaignSnapshot | null): void {
    const controlled = snapshot && describeStates(snapshot).authority === 'controlling' ? (snapshot.context.lease?.contextId ?? null) : null;
    const previous = this.byCampaign.get(campaignId) ?? null;
    if (previous === controlled) return;
    if (previous !== null) {
      this.byContext.get(previous)?.delete(campaignId);
      if (this.byContext.get(previous)?.size === 0) this.byContext.delete(previous);
      this.byCampaign.delete(campaignId);
    }
    if (controlled === null) return;
    this.byCampaign.set(campaignId, controlled);
    const holders = this.byContext.get(controlled) ?? new Set<string>();
    holders.add(campaignId);
    this.byContext.set(controlled, holders);
  }

  /** Another campaign that controls `contextId`, if any. */
  controllerOf(contextId: string | null, exceptId: string): string | null {
    if (!contextId) return null;
    for (const id of this.byContext.get(contextId) ?? []) if (id !== exceptId) return id;
    return null;
  }
}
