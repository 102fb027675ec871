/**
 * Controller leases per A2A context, with a monotonic fencing epoch.
 *
 * Every successful claim is a new grant and takes a strictly greater epoch, whoever asks —
 * including the holder re-claiming its own live lease — and so does a forced takeover; only
 * renew keeps the epoch. Two installations that share a controller id therefore never hold
 * the same epoch, and the one claimed over sees a different epoch on its next readback.
 * @module
 */
import { CONTROL_ERROR_CODES, type ControlAuthority, type LeaseView } from '../../adapters/a2a/control-contract.js';
import { RpcError, RPC_CODES } from './rpc-error.js';

export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 3600;
/** TTL of a lease taken by force (takeover) when none is given. */
export const FORCED_TTL_SECONDS = 600;

interface LeaseRecord {
  epoch: number;
  holder: string | null;
  expiresAt: number;
  ttlSeconds: number;
  /** Lease changes so far; folded into every task revision of the context. */
  changes: number;
}

export class LeaseBook {
  /** Only contexts that were ever claimed have a record. */
  private readonly records = new Map<string, LeaseRecord>();

  constructor(private readonly now: () => number) {}

  /** The live lease, or null when nobody holds an unexpired one. */
  view(contextId: string): LeaseView | null {
    const record = this.records.get(contextId);
    if (!record || !this.live(record)) return null;
    return {
      contextId,
      holder: record.holder!,
      epoch: record.epoch,
      expiresAt: new Date(record.expiresAt).toISOString(),
      ttlSeconds: record.ttlSeconds,
    };
  }

  /** A context that was ever claimed: every mutation in it must carry authority. */
  isControlled(contextId: string): boolean {
    return this.records.has(contextId);
  }

  changes(contextId: string): number {
    return this.records.get(contextId)?.changes ?? 0;
  }

  claim(contextId: string, controllerId: string, ttlSeconds: number): LeaseView {
    checkTtl(ttlSeconds);
    const record = this.records.get(contextId);
    if (record && this.live(record) && record.holder !== controllerId) {
      throw new RpcError(CONTROL_ERROR_CODES.leaseHeld, 'lease_held: another controller holds an unexpired lease on this context');
    }
    this.write(contextId, controllerId, ttlSeconds, 1);
    return this.view(contextId)!;
  }

  renew(contextId: string, controllerId: string, epoch: number, ttlSeconds: number): LeaseView {
    checkTtl(ttlSeconds);
    this.requireHolder(contextId, controllerId, epoch);
    this.write(contextId, controllerId, ttlSeconds, 0);
    return this.view(contextId)!;
  }

  release(contextId: string, controllerId: string, epoch: number): void {
    this.requireHolder(contextId, controllerId, epoch);
    const record = this.records.get(contextId)!;
    record.holder = null;
    record.changes++;
  }

  /** Takes the lease regardless of the current holder (the rival in the takeover scenario). */
  force(contextId: string, controllerId: string, ttlSeconds = FORCED_TTL_SECONDS): LeaseView {
    this.write(contextId, controllerId, ttlSeconds, 1);
    return this.view(contextId)!;
  }

  /**
   * The fencing check for a mutation. Order: epoch first (a token from an older tenure is
   * stale whoever holds the lease now: -32051), then holder and expiry (-32052).
   */
  fence(contextId: string, authority: ControlAuthority): RpcError | null {
    const record = this.records.get(contextId);
    if (!record) return new RpcError(CONTROL_ERROR_CODES.leaseNotHeld, 'lease_not_held: nobody holds a lease on this context');
    if (authority.epoch !== record.epoch) {
      return new RpcError(CONTROL_ERROR_CODES.leaseStaleEpoch, `lease_stale_epoch: epoch ${authority.epoch} is not the current epoch`);
    }
    if (record.holder !== authority.controllerId || !this.live(record)) {
      return new RpcError(CONTROL_ERROR_CODES.leaseNotHeld, 'lease_not_held: the caller does not hold an unexpired lease');
    }
    return null;
  }

  private requireHolder(contextId: string, controllerId: string, epoch: number): void {
    const failure = this.fence(contextId, { controllerId, epoch, requestId: '' });
    if (failure) throw failure;
  }

  private live(record: LeaseRecord): boolean {
    return record.holder !== null && record.expiresAt > this.now();
  }

  private write(contextId: string, holder: string, ttlSeconds: number, epochStep: 0 | 1): void {
    const record = this.records.get(contextId) ?? { epoch: 0, holder: null, expiresAt: 0, ttlSeconds, changes: 0 };
    record.epoch += epochStep;
    record.holder = holder;
    record.ttlSeconds = ttlSeconds;
    record.expiresAt = this.now() + ttlSeconds * 1000;
    record.changes++;
    this.records.set(contextId, record);
  }
}

export function checkTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < MIN_TTL_SECONDS || ttlSeconds > MAX_TTL_SECONDS) {
    throw new RpcError(RPC_CODES.invalidParams, `ttlSeconds must be an integer between ${MIN_TTL_SECONDS} and ${MAX_TTL_SECONDS}`);
  }
}
