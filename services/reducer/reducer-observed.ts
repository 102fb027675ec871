/**
 * The lease a status read carries: the one in the task's compact control metadata, stamped
 * with the read's clock. Every successful read hands it to the chart (`LEASE_READBACK`), so
 * authority is re-checked on every tick, changed or not.
 * @module
 */
import type { TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { LeaseReadback } from '../../machines/campaign.types.js';

/** The lease as this read saw it, or null when the remote reports no holder (or no lease data). */
export function leaseReadbackOf(snapshot: TaskSnapshot, readAt: string): LeaseReadback | null {
  const lease = snapshot.control?.lease ?? null;
  return lease ? { holder: lease.holder, epoch: lease.epoch, expiresAt: lease.expiresAt, readAt } : null;
}
