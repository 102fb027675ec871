/**
 * Paths the running system cannot be made to take here, each with its reason (issue 21: at most
 * five). An excused path is still run every time; it only does not count as undriven.
 */
export const EXCUSED: Record<string, string> = {
  'campaign.active.authority.controlling.relaying --xstate.error.actor.relayMutation[#0]--> campaign.active.authority.ambiguous-intent':
    'The relay effect answers every throw itself, as `ambiguous` (bytes may have left the process; services/authority/effects-relay.ts), so it never rejects: this onError is the chart failing safe if it ever did. The pure traversal takes it; no remote or client fault reaches it.',
  'campaign.active.authority.controlling.renewing --LEASE_LAPSED[#0 leaseLapsed]--> campaign.active.authority.control-lost':
    "It needs a status read sent after the lease expired while the renewal the same tick started is still in flight. One tick starts both in the same turn, on the same clock: the renewal's own deadline check (which sees the expiry first and gives the lease up) cannot be made to run before the read is stamped without a hook inside the product. The same arrow out of `ready` is driven, and `renewing`'s other lease-loss arrows are.",
  'campaign.active.authority.controlling.journaling --xstate.done.actor.journalIntent[#0 journalRefused]--> campaign.active.authority.controlling.ready':
    "The journal refuses an intent whose Argus decision id is consumed already. The mission check reads the same ledger in the same process just before, and a consumed id settles there as `decisionConsumed` and never reaches the journal; the owner lock keeps every other writer out of the state root. So no running system of one owner reaches it: it is the store's atomic enforcement of the rule (persistence/intent-journal.ts, pinned by test/persistence/decision-consumed.test.ts), kept for a store shared by replicas (step 11).",
  'campaign.active.attention.awaiting-review.checking --xstate.done.actor.argusCheck[#3 decisionConsumed]--> campaign.active.attention.idle':
    "A check finds its decision consumed only when an earlier relay journaled the same decision id. That ledger is the store's, not the chart's, so the model's shortest path has no such relay, and the model has no longer one: after a relay the event is settled and the bound task finished, and a second mission needs a new task the decision alphabet does not read (a plan built through the relay reaches 21 states, none a check). The running system's branch is pinned end to end by test/decisions/verdict-gate.test.ts (the next attempt's proposal reuses the decision id: consumed, not relayed).",
};
