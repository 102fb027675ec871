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

/** Another campaign that controls `contextId` (one controller per context), if any. */
export function controllerOfContext(
  contextId: string | null,
  exceptId: string,
  snapshots: Iterable<[string, CampaignSnapshot]>,
): string | null {
  if (!contextId) return null;
  for (const [id, snapshot] of snapshots) {
    if (id === exceptId) continue;
    if (describeStates(snapshot).authority === 'controlling' && snapshot.context.lease?.contextId === contextId) return id;
  }
  return null;
}
