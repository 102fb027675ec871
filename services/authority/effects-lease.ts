/**
 * The lease effects: claim (learning the context from the task when the binding has none, then
 * reading the lease back), renew at our epoch, and the readback taken right before a mutation.
 * Each answers with what the remote said or the stable code of why it could not; the chart's
 * guards decide what that means. Nothing here throws for a remote failure.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { LeaseView } from '../../adapters/a2a/index.js';
import type {
  ClaimLeaseInput,
  ClaimLeaseOutput,
  LeaseReadback,
  ReadLeaseInput,
  ReadLeaseOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
  RotateLeaseInput,
  RotateLeaseOutput,
} from '../../machines/campaign.types.js';
import { REMOTE_NOT_CONFIGURED, remoteOf, type AuthorityPorts } from './authority-ports.js';

/** The remote's lease as a readback stamped with the instant its answer arrived. */
export const toReadback = (lease: LeaseView | null, readAt: Date): LeaseReadback | null =>
  lease ? { holder: lease.holder, epoch: lease.epoch, expiresAt: lease.expiresAt, readAt: readAt.toISOString() } : null;

export function createLeaseEffects(deps: AuthorityPorts) {
  const { controllerId } = deps;

  const claimLease = fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => {
    const refused = (contextId: string | null, code: string): ClaimLeaseOutput => ({
      claimed: null,
      readback: null,
      contextId,
      ttlSeconds: input.ttlSeconds,
      code,
    });
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) return refused(input.binding.contextId, REMOTE_NOT_CONFIGURED);
    // `lease_held` when another campaign controls it; `io_failed` (fail closed, nothing sent) when
    // the index could not answer (replicas: the shared database).
    const heldElsewhere = async (context: string): Promise<string | null> => {
      try {
        return (await deps.contexts?.hold(context, input.campaignId)) ? 'lease_held' : null;
      } catch {
        return 'io_failed';
      }
    };

    // An attached task's context is the one to lease: learn it before claiming, never guess.
    let contextId = input.binding.contextId;
    if (!contextId && input.binding.taskId) {
      const read = await remote.getTask(input.binding.taskId);
      if (!read.ok) return refused(null, read.error.code);
      contextId = read.value.contextId;
    }
    // One controller per context among the campaigns: asked before anything is sent.
    const taken = contextId ? await heldElsewhere(contextId) : null;
    if (taken) return refused(contextId, taken);
    const claimed = await remote.control.leaseClaim({
      ...(contextId ? { contextId } : {}),
      controllerId,
      ttlSeconds: input.ttlSeconds,
      requestId: randomUUID(),
    });
    if (!claimed.ok) return refused(contextId, claimed.error.code);
    const granted = claimed.value.lease;
    // The remote chose the context: one another campaign holds is not ours to control.
    const grantedTaken = granted && granted.contextId !== contextId ? await heldElsewhere(granted.contextId) : null;
    if (grantedTaken) return refused(granted!.contextId, grantedTaken);
    // The claim's own answer is not enough: the lease is read back before it counts.
    const readback = granted ? await remote.control.leaseGet({ contextId: granted.contextId }) : null;
    const at = deps.now();
    return {
      claimed: toReadback(granted, at),
      readback: readback?.ok ? toReadback(readback.value.lease, at) : null,
      contextId: granted?.contextId ?? contextId,
      ttlSeconds: granted?.ttlSeconds ?? input.ttlSeconds,
      code: readback && !readback.ok ? readback.error.code : null,
    };
  });

  const renewLease = fromPromise<RenewLeaseOutput, RenewLeaseInput>(async ({ input }) => {
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) return { lease: null, code: REMOTE_NOT_CONFIGURED };
    const left = Date.parse(input.renewBy) - deps.now().getTime();
    if (!(left > 0)) return { lease: null, code: 'lease_renewal_deadline' };
    const renewal = remote.control.leaseRenew({
      contextId: input.contextId,
      controllerId,
      epoch: input.epoch,
      ttlSeconds: input.ttlSeconds,
      requestId: randomUUID(),
    });
    // The renewal deadline: an answer still missing then is a failed renewal, so the chart gives
    // the lease up before it expires instead of waiting on a remote that may answer too late.
    const renewed = await withinDeadline(renewal, left);
    if (renewed === null) return { lease: null, code: 'lease_renewal_deadline' };
    if (!renewed.ok) return { lease: null, code: renewed.error.code };
    return { lease: toReadback(renewed.value.lease, deps.now()), code: null };
  });

  /** `leaseGet` right before a mutation is journaled (a readback from an earlier tick is never fresh), and a takeover's readback before it claims again. */
  const readLease = fromPromise<ReadLeaseOutput, ReadLeaseInput>(async ({ input }) => {
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) return { readback: null, code: REMOTE_NOT_CONFIGURED };
    const read = await remote.control.leaseGet({ contextId: input.contextId });
    if (!read.ok) return { readback: null, code: read.error.code };
    return { readback: toReadback(read.value.lease, deps.now()), code: null };
  });

  /**
   * The claim step of a takeover's rotation (issue 22 part 4), entered only once the chart judged
   * the readback before it (`rotationMayClaim`): claim again (the remote grants a greater epoch,
   * so it refuses the one the previous host may still send with), then read the lease back. It
   * reports what the remote said and judges nothing: a claim refused as held elsewhere is
   * `lease_lost_readback` (as on any readback that shows another holder), a
   * call that did not answer is `epoch_rotation_failed` (a claim whose answer was lost may have
   * granted an epoch unknown to us). The readback the chart judged comes back as `before`.
   */
  const rotateLease = fromPromise<RotateLeaseOutput, RotateLeaseInput>(async ({ input }) => {
    const answer = (code: string | null, claimed: RotateLeaseOutput['claimed'] = null, readback: RotateLeaseOutput['readback'] = null): RotateLeaseOutput => ({ before: input.before, claimed, readback, code });
    const remote = remoteOf(deps, input.campaignId);
    if (!remote) return answer(REMOTE_NOT_CONFIGURED);
    const claim = await remote.control.leaseClaim({ contextId: input.contextId, controllerId, ttlSeconds: input.ttlSeconds, requestId: randomUUID() });
    if (!claim.ok) return answer(claim.error.code === 'lease_held' ? 'lease_lost_readback' : 'epoch_rotation_failed');
    const claimed = toReadback(claim.value.lease, deps.now());
    const after = await remote.control.leaseGet({ contextId: input.contextId });
    if (!after.ok) return answer('epoch_rotation_failed', claimed);
    return answer(null, claimed, toReadback(after.value.lease, deps.now()));
  });

  return { claimLease, renewLease, readLease, rotateLease };
}

/** `work`'s answer, or null when `ms` pass first (the work itself is bounded by the remote deadline). */
function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const timer = setTimeout(() => resolve(null), ms);
    timer.unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
