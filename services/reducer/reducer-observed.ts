/**
 * The bridge from a reduced tick to the campaign machine's REMOTE_OBSERVED event, so the
 * scheduler never assembles authority data by hand. The lease readback is the one in the task's
 * compact metadata, stamped with the tick's clock.
 * @module
 */
import { INTERRUPTED_STATES, type TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { LeaseReadback, RemoteObservedEvent } from '../../machines/campaign.types.js';
import type { SignificantEvent, WakeRequest } from '../../machines/vocabulary.js';

/** The lease as this tick read it, or null when the remote reports no holder (or no lease data). */
export function leaseReadbackOf(snapshot: TaskSnapshot, readAt: string): LeaseReadback | null {
  const lease = snapshot.control?.lease ?? null;
  return lease ? { holder: lease.holder, epoch: lease.epoch, expiresAt: lease.expiresAt, readAt } : null;
}

/**
 * Send it when the reduction is material, and on every tick while the campaign holds a lease
 * (authority is re-checked each tick even when nothing else changed).
 * @example
 *   const r = reduce(view, snapshot, ctx);
 *   if (r.material || holdsLease) actor.send(toRemoteObserved(r, snapshot, now));
 */
export function toRemoteObserved(
  reduced: { events: SignificantEvent[]; wakes: WakeRequest[] },
  snapshot: TaskSnapshot,
  now: Date | string,
): RemoteObservedEvent {
  const observedAt = typeof now === 'string' ? now : now.toISOString();
  return {
    type: 'REMOTE_OBSERVED',
    observedAt,
    events: reduced.events,
    wakes: reduced.wakes,
    remoteBlocked: INTERRUPTED_STATES.has(snapshot.state),
    readback: leaseReadbackOf(snapshot, observedAt),
  };
}
