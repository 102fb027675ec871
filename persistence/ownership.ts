/**
 * The right to host campaigns. Exactly one process hosts a campaign's actor; whoever wants to
 * host asks here first and keeps the lease until it stops.
 *
 * The embedded default (`owner-lock.ts`) grants one owner for a whole state root. The
 * scale-out step implements this same interface on PostgreSQL with per-campaign rows
 * (claim / renew / release the right to host one campaign, a dead replica's campaigns
 * re-homed within one lease TTL), and carries `fencing` on every store write so a write from
 * a deposed owner is refused. Nothing in `machines/` depends on which one is used.
 * @module
 */

export interface Ownership {
  /** Takes the right to host, or says who has it. Never waits for a live owner to go. */
  acquire(): Promise<OwnershipLease | OwnershipRefusal>;
}

export interface OwnershipLease {
  readonly ok: true;
  /** Strictly greater than every fencing number granted before for this scope. */
  readonly fencing: number;
  /** True once another process replaced our claim; the holder must stop writing. */
  readonly compromised: boolean;
  /** Gives the right back (idempotent). A lease never released is taken over once its holder is dead. */
  release(): Promise<void>;
}

export interface OwnershipRefusal {
  readonly ok: false;
  /** `state_root_locked`: a live process owns it; `state_root_unusable`: the folder cannot hold a lock. */
  readonly code: 'state_root_locked' | 'state_root_unusable';
  /** One sentence, e.g. `/var/lib/argus is owned by pid 4242`. */
  readonly message: string;
  readonly pid?: number;
}
