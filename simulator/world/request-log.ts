/**
 * Every mutation request the remote received, in arrival order, with what became of it:
 * applied, rejected (and why), or replayed from the ledger (a retransmitted request id).
 * A crash harness compares it with the supervisor's intent journal, so it records requests
 * the ledger never admits too (a conflicting or tombstoned id, a mutation without authority).
 * Bounded: the oldest entries are dropped first and counted.
 * @module
 */
import type { RequestReadback } from '../../adapters/a2a/control-contract.js';

export type RequestAction = NonNullable<RequestReadback['action']>;

/** The JSON-RPC outcome as sent (without the envelope id), replayed verbatim on a duplicate. */
export type RpcOutcome = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

export type Disposition = 'pending' | 'applied' | 'rejected' | 'replayed';

export interface LedgerEntry {
  /** Arrival order, from 1; never reused, so `since` pages through the log. */
  seq: number;
  /** The request id the caller sent, or null when it sent none. */
  requestId: string | null;
  action: RequestAction;
  /** The JSON-RPC method it arrived as. */
  method: string;
  disposition: Disposition;
  /** Why it was not applied (snake_case), e.g. `lease_stale_epoch`, `request_id_conflict`, `duplicate_request_id`. */
  reason: string | null;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  /** Pass as `since` to read only what arrives next. */
  nextSeq: number;
  /** Entries lost to the bound since the simulator started. */
  dropped: number;
}

export const REQUEST_LOG_LIMIT = 50_000;

const NAMED_CODES: Record<number, string> = {
  [-32001]: 'task_not_found',
  [-32002]: 'task_not_cancelable',
  [-32004]: 'unsupported_operation',
  [-32602]: 'invalid_params',
  [-32603]: 'internal_error',
};

/** The snake_case code an error message starts with (`lease_stale_epoch: ...`), else one named by its number. */
export function reasonOf(error: { code: number; message: string }): string {
  const prefix = /^([a-z][a-z0-9_]*):/.exec(error.message);
  return prefix ? prefix[1]! : (NAMED_CODES[error.code] ?? `rpc_error_${error.code}`);
}

export type ArrivalListener = (entry: Readonly<LedgerEntry>) => void;

export class RequestLog {
  private readonly entries: LedgerEntry[] = [];
  private readonly listeners = new Set<ArrivalListener>();
  private seq = 0;
  private dropped = 0;

  constructor(private readonly limit = REQUEST_LOG_LIMIT) {}

  /**
   * Calls `listener` synchronously as each mutation request arrives, before it is applied: an
   * in-process driver (the demo) can look at what the caller had already written at that instant.
   */
  onArrival(listener: ArrivalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records an arrival; the returned entry is settled later with `settle`. */
  record(fields: Omit<LedgerEntry, 'seq'>): LedgerEntry {
    const entry: LedgerEntry = { seq: ++this.seq, ...fields };
    for (const listener of this.listeners) {
      try {
        listener({ ...entry });
      } catch {
        // An observer's failure is its own; the request is handled as if it were not there.
      }
    }
    this.entries.push(entry);
    if (this.entries.length > this.limit) {
      this.entries.shift();
      this.dropped++;
    }
    return entry;
  }

  static settle(entry: LedgerEntry, outcome: RpcOutcome, applied: boolean): void {
    entry.disposition = applied ? 'applied' : 'rejected';
    entry.reason = applied ? null : 'error' in outcome ? reasonOf(outcome.error) : 'not_applied';
  }

  /** Entries with `seq >= since` (copies: the caller cannot change the record). */
  page(since = 1): LedgerPage {
    const first = this.entries[0]?.seq ?? this.seq + 1;
    const entries = this.entries.slice(Math.max(0, since - first)).map((e) => ({ ...e }));
    return { entries, nextSeq: this.seq + 1, dropped: this.dropped };
  }
}
