/**
 * Request ids of fenced mutations and lease calls: what each did, so a retransmission gets
 * the original answer instead of a second effect, and a readback can settle an in-doubt one.
 *
 * Reading back an id the remote never saw tombstones it: the request can no longer land
 * later (a delayed retransmission gets -32054), which is what makes `not_applied` final.
 *
 * Every admission, replay and conflict is also written to `log`, the remote's own account of
 * what it received (read through the admin API as `/_sim/ledger`).
 * @module
 */
import { createHash } from 'node:crypto';
import type { RequestReadback } from '../../adapters/a2a/control-contract.js';
import { CONTROL_ERROR_CODES, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { RequestLog, type RequestAction, type RpcOutcome } from './request-log.js';
import { RpcError } from './rpc-error.js';

export type { RequestAction, RpcOutcome } from './request-log.js';

interface RequestRecord {
  digest: string;
  action: RequestAction;
  applied: boolean;
  taskId?: string;
  outcome?: RpcOutcome;
  /** Resolves when the first request with this id has its outcome. */
  settled?: Promise<void>;
}

export type Admission =
  | { kind: 'new'; settle: (outcome: RpcOutcome, applied: boolean, taskId?: string) => void }
  | { kind: 'replay'; outcome: () => Promise<RpcOutcome | undefined> };

/** The wire method of a control-extension action (standard mutations pass their own). */
const CONTROL_METHOD_OF: Partial<Record<RequestAction, string>> = {
  claim: CONTROL_METHODS.leaseClaim,
  renew: CONTROL_METHODS.leaseRenew,
  release: CONTROL_METHODS.leaseRelease,
  intervene: CONTROL_METHODS.intervene,
};

export class RequestLedger {
  private readonly records = new Map<string, RequestRecord>();
  private readonly tombstones = new Set<string>();
  readonly log = new RequestLog();

  /** Decides whether a request id is fresh, a retransmission, or a conflict (throws -32054). */
  admit(requestId: string, action: RequestAction, payload: unknown, method = CONTROL_METHOD_OF[action] ?? action): Admission {
    const digest = digestOf(action, payload);
    const arrival = { requestId, action, method };
    if (this.tombstones.has(requestId)) {
      this.log.record({ ...arrival, disposition: 'rejected', reason: 'request_id_tombstoned' });
      throw conflict('request id was tombstoned by a readback and can no longer be applied');
    }
    const existing = this.records.get(requestId);
    if (existing) {
      if (existing.digest !== digest) {
        this.log.record({ ...arrival, disposition: 'rejected', reason: 'request_id_reused' });
        throw conflict('request id was already used with another payload');
      }
      this.log.record({ ...arrival, disposition: 'replayed', reason: 'duplicate_request_id' });
      return {
        kind: 'replay',
        outcome: async () => {
          await existing.settled;
          return existing.outcome;
        },
      };
    }
    let resolve!: () => void;
    const record: RequestRecord = { digest, action, applied: false, settled: new Promise<void>((r) => (resolve = r)) };
    this.records.set(requestId, record);
    const entry = this.log.record({ ...arrival, disposition: 'pending', reason: null });
    return {
      kind: 'new',
      settle: (outcome, applied, taskId) => {
        RequestLog.settle(entry, outcome, applied);
        record.outcome = outcome;
        record.applied = applied;
        if (taskId !== undefined) record.taskId = taskId;
        delete record.settled;
        resolve();
      },
    };
  }

  /** Runs a mutation that carries no request id: nothing to admit, but the log shows what it did. */
  untracked<T>(action: RequestAction, method: string, run: () => T): T {
    const entry = this.log.record({ requestId: null, action, method, disposition: 'pending', reason: null });
    try {
      const effect = run();
      RequestLog.settle(entry, { result: null }, true);
      return effect;
    } catch (error) {
      const rpc = error instanceof RpcError ? error : new RpcError(-32603, 'internal error');
      RequestLog.settle(entry, { error: { code: rpc.code, message: rpc.message } }, false);
      throw error;
    }
  }

  /** Waits for a request still in flight, so `not_applied` is never said of one about to apply. */
  async readback(requestId: string): Promise<RequestReadback> {
    const record = this.records.get(requestId);
    if (!record) {
      this.tombstones.add(requestId);
      return { requestId, status: 'not_applied' };
    }
    await record.settled;
    const readback: RequestReadback = { requestId, status: record.applied ? 'applied' : 'not_applied', action: record.action };
    if (record.taskId !== undefined) readback.taskId = record.taskId;
    return readback;
  }
}

const conflict = (why: string) => new RpcError(CONTROL_ERROR_CODES.requestIdConflict, `request_id_conflict: ${why}`);

/** Order-insensitive JSON so the same payload always hashes the same. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digestOf(action: RequestAction, payload: unknown): string {
  return createHash('sha256').update(action).update('\n').update(stableStringify(payload)).digest('hex');
}
