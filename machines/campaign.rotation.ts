/**
 * Epoch rotation on takeover (issue 22 part 4): the named guards, inputs and actions of the
 * rotation steps (campaign.rotating.ts). A database fence protects the database only; a replica
 * that took a campaign over makes the remote refuse the previous host's epoch by claiming again
 * (every claim grants a greater epoch, even to the holder).
 *
 * Two steps, each judged here, so the effects only report what the remote said: the lease read
 * back first may be claimed again only while it shows our controller at the epoch we hold, before
 * its renewal deadline (`rotationMayClaim`); the claim counts only when its grant names us at a
 * greater epoch and the readback after it shows us at that epoch (`rotationConfirmed`).
 *
 * The epoch "we hold" is the lease's in `controlling`, and in `ambiguous-intent` the one we held
 * when the intent went into doubt (`lastEpoch`: leaving controlling keeps it), on the campaign's
 * context. Pure.
 * @module
 */
import { readbackShowsOurLease } from './campaign.guards.js';
import { LEASE_RENEW_MARGIN_MS, LEASE_TTL_BOUNDS } from './campaign.types.js';
import type { CampaignContext, CampaignEvent, LeaseReadback, ReadLeaseOutput, RotateLeaseInput, RotateLeaseOutput } from './campaign.types.js';

type G = { context: CampaignContext; event: CampaignEvent };

const instant = (iso: string): number => Date.parse(iso);

/** The hold a rotation fences: the lease we hold, or (in doubt) the epoch and context we held. */
export function heldForRotation(context: CampaignContext): { epoch: number; contextId: string } | null {
  if (context.lease) return { epoch: context.lease.epoch, contextId: context.lease.contextId };
  const contextId = context.binding.contextId;
  return context.lastEpoch !== null && contextId ? { epoch: context.lastEpoch, contextId } : null;
}

/**
 * The intent went into doubt while we held a lease (its epoch and context are known): the remote
 * may still hold it for us, and the previous host may still have the intent's request in flight
 * at that epoch. Whether the remote still shows it is for the readback to say.
 */
export const inDoubtUnderHold = (context: CampaignContext): boolean => context.lease === null && heldForRotation(context) !== null;

/** Read at or after `expiresAt − LEASE_RENEW_MARGIN_MS`: a claim sent now could land after the hold ended. */
const pastRenewalDeadline = (readback: LeaseReadback): boolean => instant(readback.readAt) >= instant(readback.expiresAt) - LEASE_RENEW_MARGIN_MS;

/**
 * The readback before the claim shows our controller at the epoch we hold, with time to claim
 * before its renewal deadline. Anything else is never claimed: a lease that lapsed or moved
 * would be re-acquired by the claim, which only the operator may do.
 */
export function rotationMayClaim(context: CampaignContext, output: ReadLeaseOutput): boolean {
  const held = heldForRotation(context);
  if (held === null || output.code !== null || output.readback === null) return false;
  return readbackShowsOurLease(context.controllerId, held.epoch, output.readback) && !pastRenewalDeadline(output.readback);
}

/** Why a rotation's readback allowed no claim, as the campaign's error code. */
export function rotationRefusal(context: CampaignContext, output: ReadLeaseOutput): string {
  const held = heldForRotation(context);
  if (output.code !== null) return 'epoch_rotation_failed';
  if (held && output.readback && readbackShowsOurLease(context.controllerId, held.epoch, output.readback)) return 'lease_renewal_deadline';
  return 'lease_lost_readback';
}

export function rotationConfirmed(context: CampaignContext, output: RotateLeaseOutput): boolean {
  const held = heldForRotation(context);
  const { before, claimed, readback } = output;
  if (held === null || output.code !== null || claimed === null) return false;
  return (
    readbackShowsOurLease(context.controllerId, held.epoch, before) &&
    claimed.holder === context.controllerId &&
    claimed.epoch > held.epoch &&
    readbackShowsOurLease(context.controllerId, claimed.epoch, readback)
  );
}

export const rotationGuards = {
  inDoubtUnderHold: ({ context }: G) => inDoubtUnderHold(context),
  rotationMayClaim: ({ context }: G, p: { output: ReadLeaseOutput }) => rotationMayClaim(context, p.output),
  rotationConfirmed: ({ context }: G, p: { output: RotateLeaseOutput }) => rotationConfirmed(context, p.output),
};

/** The rotation's readback: of the context we hold (or held, in doubt). */
export const rotationReadInput = (context: CampaignContext) => ({ campaignId: context.campaignId, contextId: heldForRotation(context)?.contextId ?? '' });

/**
 * The claim's input. In `controlling`, the lease's own TTL: the hold goes on. In doubt, the time
 * the hold read back had left (within the remote's bounds): the rotation fences the old epoch
 * and nobody renews it afterwards, so it is not meant to keep the context from others longer.
 */
export function rotationClaimInput(context: CampaignContext, before: LeaseReadback | null): RotateLeaseInput {
  const held = heldForRotation(context);
  const left = before ? Math.ceil((instant(before.expiresAt) - instant(before.readAt)) / 1000) : LEASE_TTL_BOUNDS.min;
  const ttlSeconds = context.lease?.ttlSeconds ?? Math.min(LEASE_TTL_BOUNDS.max, Math.max(LEASE_TTL_BOUNDS.min, left));
  return { campaignId: context.campaignId, contextId: held?.contextId ?? '', epoch: held?.epoch ?? -1, ttlSeconds, before };
}

/** The new grant is our hold from now on: its epoch, its expiry, confirmed by its readback. */
export function rotatedLease(context: CampaignContext, output: RotateLeaseOutput): Partial<CampaignContext> {
  const readback = output.readback;
  if (!readback || !context.lease) return {};
  return { lease: { ...context.lease, epoch: readback.epoch, expiresAt: readback.expiresAt, heldSince: readback.readAt, confirmedAt: readback.readAt }, lastErrorCode: null };
}

/**
 * In doubt, the rotation gives no control back (only a readback by request id leaves
 * `ambiguous-intent`, to `observing`): the greater epoch is only remembered as the last we held.
 */
export function rotatedInDoubt(output: RotateLeaseOutput): Partial<CampaignContext> {
  return output.readback ? { lastEpoch: output.readback.epoch } : {};
}
