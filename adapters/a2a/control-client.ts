/**
 * The control extension's methods: lease get/claim/renew/release, intervene and request
 * readback. Each mutation passes the local guards before it may reach the wire.
 * @module
 */
import { z } from 'zod';
import type { CapabilityName } from './capabilities.js';
import { CONTROL_METHODS, type LeaseResult, type RequestReadback } from './control-contract.js';
import { err, ok, remoteError, type Result } from './errors.js';
import { boundLease, payloadInvalid } from './remote-fields.js';
import { isRemoteIdentifier } from './sanitize.js';
import { checkAuthority, checkControlMethod, checkLeaseArgs, checkMutationAllowed, checkStrings } from './guards.js';
import type { Session } from './session.js';
import { leaseViewSchema } from './snapshot.js';
import type { A2AControl, InterveneResult } from './types.js';

/** The client's one way onto the wire, shared with the core methods. */
export interface RpcCaller {
  session(): Promise<Result<Session>>;
  call(session: Session, method: string, params: unknown, kind: 'read' | 'mutation'): Promise<Result<unknown>>;
  /** Configured secrets, redacted from (and refused in) anything the remote sends back. */
  readonly secrets: readonly string[];
}

const leaseResultSchema = z.object({ lease: leaseViewSchema.nullable(), serverTime: z.string() });
const interveneResultSchema = z.object({ requestId: z.string(), status: z.literal('applied') });
const readbackSchema = z.object({
  requestId: z.string(),
  status: z.enum(['applied', 'not_applied']),
  action: z.enum(['submit', 'cancel', 'intervene', 'claim', 'renew', 'release', 'answer']).optional(),
  taskId: z.string().optional(),
});

type Guard = (session: Session) => Result<true>;

/** Guards, then one call, then a typed result; a result of the wrong shape may hide an applied effect. */
async function invoke<T>(
  caller: RpcCaller,
  guard: Guard,
  method: string,
  params: unknown,
  kind: 'read' | 'mutation',
  schema: z.ZodType<T>,
): Promise<Result<T>> {
  const session = await caller.session();
  if (!session.ok) return session;
  const allowed = guard(session.value);
  if (!allowed.ok) return allowed;
  const result = await caller.call(session.value, method, params, kind);
  if (!result.ok) return result;
  const parsed = schema.safeParse(result.value);
  return parsed.success
    ? ok(parsed.data)
    : err(remoteError('remote_malformed', `the remote answer to ${method} does not have the documented shape`, 'ambiguous'));
}

/** Lease answers cross the remote-text boundary like task metadata does. */
async function leaseCall(caller: RpcCaller, guard: Guard, method: string, params: unknown, kind: 'read' | 'mutation'): Promise<Result<LeaseResult>> {
  const result = await invoke(caller, guard, method, params, kind, leaseResultSchema);
  if (!result.ok) return result;
  const lease = boundLease(result.value.lease, caller.secrets);
  if (!lease.ok) return lease;
  // A lease answer about another context than the one asked for is never taken as ours.
  const asked = (params as { contextId?: string }).contextId;
  if (lease.value && asked !== undefined && lease.value.contextId !== asked) {
    return payloadInvalid(`the remote answered ${method} with a lease on another context than the one asked for`);
  }
  return ok({ lease: lease.value, serverTime: result.value.serverTime.slice(0, 40) });
}

const mutation = (capability: CapabilityName): Guard => (s) => checkMutationAllowed(s.description, capability);
const read = (name: string): Guard => (s) => checkControlMethod(s.description, name);

export function createControlClient(caller: RpcCaller): A2AControl {
  return {
    async leaseGet({ contextId }): Promise<Result<LeaseResult>> {
      const args = checkStrings({ contextId });
      if (!args.ok) return args;
      return leaseCall(caller, read('lease.get'), CONTROL_METHODS.leaseGet, { contextId }, 'read');
    },
    async leaseClaim(req): Promise<Result<LeaseResult>> {
      const args = checkLeaseArgs(req, { epoch: false, ttl: true });
      if (!args.ok) return args;
      const params = { controllerId: req.controllerId, ttlSeconds: req.ttlSeconds, requestId: req.requestId, ...(req.contextId ? { contextId: req.contextId } : {}) };
      return leaseCall(caller, mutation('claim_control'), CONTROL_METHODS.leaseClaim, params, 'mutation');
    },
    async leaseRenew(req): Promise<Result<LeaseResult>> {
      const args = checkLeaseArgs(req, { epoch: true, ttl: true });
      if (!args.ok) return args;
      const contextOk = checkStrings({ contextId: req.contextId });
      if (!contextOk.ok) return contextOk;
      const { contextId, controllerId, epoch, ttlSeconds, requestId } = req;
      const params = { contextId, controllerId, epoch, ttlSeconds, requestId };
      return leaseCall(caller, mutation('renew_control'), CONTROL_METHODS.leaseRenew, params, 'mutation');
    },
    async leaseRelease(req): Promise<Result<LeaseResult>> {
      const args = checkLeaseArgs(req, { epoch: true, ttl: false });
      if (!args.ok) return args;
      const contextOk = checkStrings({ contextId: req.contextId });
      if (!contextOk.ok) return contextOk;
      const { contextId, controllerId, epoch, requestId } = req;
      const params = { contextId, controllerId, epoch, requestId };
      return leaseCall(caller, mutation('release_control'), CONTROL_METHODS.leaseRelease, params, 'mutation');
    },
    async intervene(req): Promise<Result<InterveneResult>> {
      const authority = checkAuthority(req.authority);
      if (!authority.ok) return authority;
      const args = checkStrings({ taskId: req.taskId, instruction: req.instruction });
      if (!args.ok) return args;
      const params = { taskId: req.taskId, instruction: req.instruction, authority: authority.value };
      return invoke(caller, mutation('intervene'), CONTROL_METHODS.intervene, params, 'mutation', interveneResultSchema);
    },
    async requestGet({ requestId }): Promise<Result<RequestReadback>> {
      const args = checkStrings({ requestId });
      if (!args.ok) return args;
      const readback = await invoke(caller, read('request.get'), CONTROL_METHODS.requestGet, { requestId }, 'read', readbackSchema);
      if (!readback.ok) return readback;
      if (readback.value.requestId !== requestId) return payloadInvalid('the remote read back another request id than the one asked for');
      if (readback.value.taskId !== undefined && !isRemoteIdentifier(readback.value.taskId, caller.secrets)) {
        return payloadInvalid('the remote readback names a task id that is not a valid identifier');
      }
      return readback;
    },
  };
}
