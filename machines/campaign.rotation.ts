/**
 * Epoch rotation on takeover (issue 22 part 4): the named guard and action of the `rotating`
 * step of `controlling`. A database fence protects the database only; a replica that took a
 * campaign over makes the remote refuse the previous host's epoch by claiming again (every claim
 * grants a greater epoch, even to the holder). The rotation counts only when the lease read back
 * before the claim showed our controller at our epoch, and the readback after it shows us at
 * the greater epoch the claim granted. Pure.
 * @module
 */
import { readbackShowsOurLease } from './campaign.guards.js';
import type { CampaignContext, CampaignEvent, RotateLeaseOutput } from './campaign.types.js';

type G = { context: CampaignContext; event: CampaignEvent };

export function rotationConfirmed(context: CampaignContext, output: RotateLeaseOutput): boolean {
  const { lease, controllerId } = context;
  const { before, claimed, readback } = output;
  if (lease === null || output.code !== null || claimed === null) return false;
  return (
    readbackShowsOurLease(controllerId, lease.epoch, before) &&
    claimed.holder === controllerId &&
    claimed.epoch > lease.epoch &&
    readbackShowsOurLease(controllerId, claimed.epoch, readback)
  );
}

export const rotationGuards = {
  rotationConfirmed: ({ context }: G, p: { output: RotateLeaseOutput }) => rotationConfirmed(context, p.output),
};

/** The new grant is our hold from now on: its epoch, its expiry, confirmed by its readback. */
export function rotatedLease(context: CampaignContext, output: RotateLeaseOutput): Partial<CampaignContext> {
  const readback = output.readback;
  if (!readback || !context.lease) return {};
  return { lease: { ...context.lease, epoch: readback.epoch, expiresAt: readback.expiresAt, heldSince: readback.readAt, confirmedAt: readback.readAt }, lastErrorCode: null };
}
