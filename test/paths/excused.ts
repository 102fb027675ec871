/**
 * Paths the running system cannot be made to take here, each with its reason (issue 21: at most
 * five). An excused path is still run every time; it only does not count as undriven.
 */
export const EXCUSED: Record<string, string> = {
  'campaign.active.authority.controlling.relaying --xstate.error.actor.relayMutation[#0]--> campaign.active.authority.ambiguous-intent':
    'The relay effect answers every throw itself, as `ambiguous` (bytes may have left the process; services/authority/effects-relay.ts), so it never rejects: this onError is the chart failing safe if it ever did. The pure traversal takes it; no remote or client fault reaches it.',
  'campaign.active.authority.controlling.renewing --LEASE_LAPSED[#0 leaseLapsed]--> campaign.active.authority.control-lost':
    "It needs a status read sent after the lease expired while the renewal the same tick started is still in flight. One tick starts both in the same turn, on the same clock: the renewal's own deadline check (which sees the expiry first and gives the lease up) cannot be made to run before the read is stamped without a hook inside the product. The same arrow out of `ready` is driven, and `renewing`'s other lease-loss arrows are.",
};
