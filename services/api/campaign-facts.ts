/**
 * What discovery found, as the chart's `RemoteCapabilities` (part of every actor's environment).
 * Nothing here decides anything: the chart's rules read it.
 * @module
 */
import type { RemoteDescription } from '../../adapters/a2a/discovery.js';
import type { RemoteCapabilities } from '../../machines/campaign.types.js';

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
