/**
 * The campaign's invoked effects (seven for authority and reading, five for decisions), built once from their dependencies and provided once:
 * `campaignMachine.provide({ actors: createCampaignEffects(deps) })`. Each is a
 * `fromPromise(({ input }) => …)` whose output carries everything the chart needs (task id,
 * context id, outcome, error code); none keeps state between runs. A remote failure is an
 * output with a `code`, never a throw: the chart's guards decide what it means.
 * @module
 */
import { createIntentEffects } from '../authority/effects-relay.js';
import { createLeaseEffects } from '../authority/effects-lease.js';
import type { EffectDeps } from './effect-deps.js';
import { createDecisionEffects } from './effects-decisions.js';
import { createReadEffects } from './effects-read.js';

export type { EffectDeps, JournalIntentRecord } from './effect-deps.js';
export { JournalRefusedError, REMOTE_NOT_CONFIGURED } from './effect-deps.js';
export { isUnreachable, UNREACHABLE_CODES } from './effects-read.js';

export function createCampaignEffects(deps: EffectDeps) {
  const { statusReader } = createReadEffects(deps);
  const { claimLease, renewLease, readLease, rotateLease } = createLeaseEffects(deps);
  const { journalIntent, relayMutation, readBackIntent } = createIntentEffects(deps);
  const { argusTurn, argusCheck, foremanAssess, bindMission, verifyBinding } = createDecisionEffects(deps);
  return { statusReader, claimLease, renewLease, readLease, rotateLease, journalIntent, relayMutation, readBackIntent, argusTurn, argusCheck, foremanAssess, bindMission, verifyBinding };
}

export type CampaignEffects = ReturnType<typeof createCampaignEffects>;
