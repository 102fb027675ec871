/**
 * Local refusals, checked before any byte is sent. The remote enforces the same rules; these
 * are defense in depth so a bug upstream can never put an unfenced mutation on the wire.
 * @module
 */
import { z } from 'zod';
import type { CapabilityName } from './capabilities.js';
import type { ControlAuthority } from './control-contract.js';
import type { RemoteDescription } from './discovery.js';
import { ok, refusedLocally, type Result } from './errors.js';

/** TTL bounds of the control extension (docs/control-extension.md). */
export const LEASE_TTL_MIN_SECONDS = 60;
export const LEASE_TTL_MAX_SECONDS = 3600;

const id = z.string().min(1).max(512);
const epoch = z.number().int().nonnegative();

const authoritySchema = z.object({ controllerId: id, epoch, requestId: id });

/** A mutation without complete authority is refused as unsupported, exactly like an unfenced remote. */
export function checkAuthority(authority: unknown): Result<ControlAuthority> {
  const parsed = authoritySchema.safeParse(authority);
  return parsed.success
    ? ok(parsed.data)
    : refusedLocally('unsupported_capability', 'a mutation without complete authority (controllerId, epoch, requestId) is never sent');
}

/** Refuses a mutation the remote cannot fence. */
export function checkMutationAllowed(description: RemoteDescription, capability: CapabilityName): Result<true> {
  if (!description.mutationsEnabled) {
    return refusedLocally(
      'unsupported_capability',
      `the remote does not advertise the control extension with epoch-fenced leases, so ${capability} is refused locally`,
    );
  }
  if (!description.capabilities[capability]) {
    return refusedLocally('unsupported_capability', `the remote does not advertise ${capability}`);
  }
  return ok(true);
}

/** Refuses a control-extension read the remote does not list. */
export function checkControlMethod(description: RemoteDescription, method: string): Result<true> {
  return description.controlParams?.methods.includes(method)
    ? ok(true)
    : refusedLocally('unsupported_capability', `the remote does not advertise the control method ${method}`);
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 4096;

/** Checks required string arguments; names only, never values, go into the message. */
export function checkStrings(args: Record<string, unknown>): Result<true> {
  for (const [name, value] of Object.entries(args)) {
    if (!nonEmpty(value)) return refusedLocally('invalid_request', `${name} must be a non-empty string`);
  }
  return ok(true);
}

/** Lease calls carry their authority as plain params; the same completeness rule applies. */
export function checkLeaseArgs(
  req: { controllerId: unknown; requestId: unknown; ttlSeconds?: unknown; epoch?: unknown },
  needs: { epoch: boolean; ttl: boolean },
): Result<true> {
  const complete =
    id.safeParse(req.controllerId).success && id.safeParse(req.requestId).success && (!needs.epoch || epoch.safeParse(req.epoch).success);
  if (!complete) {
    return refusedLocally('unsupported_capability', 'a lease request without complete authority (controllerId, requestId, epoch) is never sent');
  }
  const ttl = req.ttlSeconds;
  if (needs.ttl && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < LEASE_TTL_MIN_SECONDS || ttl > LEASE_TTL_MAX_SECONDS)) {
    return refusedLocally('invalid_request', `ttlSeconds must be an integer from ${LEASE_TTL_MIN_SECONDS} to ${LEASE_TTL_MAX_SECONDS}`);
  }
  return ok(true);
}
