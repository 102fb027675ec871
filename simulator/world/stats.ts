/**
 * Counters a test or benchmark reads back to prove what reached the remote and what it did.
 * @module
 */
import type { RequestAction } from './request-ledger.js';

export interface SimulatorStats {
  /** Requests by JSON-RPC method (card fetches as `agentCard`), counted on arrival. */
  requests: Record<string, number>;
  tasksCreated: number;
  mutationsApplied: Record<RequestAction, number>;
  /** Effects per request id (a retransmission answered from the ledger does not count). */
  appliedByRequestId: Record<string, number>;
  staleMutationsRejected: number;
  staleMutationsApplied: number;
  duplicateRequestIdHits: number;
  /** Control calls and fenced mutations that arrived without the activation header. */
  extensionNotActivated: number;
  /** Injected faults actually served, by kind. */
  faultsServed: Record<string, number>;
  /** Hits on the redirect target, and how many of them carried credentials (must stay 0). */
  redirectSinkHits: number;
  redirectSinkCredentialHits: number;
  unauthorized: number;
}

const zeroMutations = (): Record<RequestAction, number> => ({ submit: 0, cancel: 0, intervene: 0, claim: 0, renew: 0, release: 0, answer: 0 });

export class StatsRecorder {
  private readonly requests = new Map<string, number>();
  private readonly byRequestId = new Map<string, number>();
  private readonly faults = new Map<string, number>();
  private readonly mutations = zeroMutations();
  tasksCreated = 0;
  staleMutationsRejected = 0;
  staleMutationsApplied = 0;
  duplicateRequestIdHits = 0;
  extensionNotActivated = 0;
  redirectSinkHits = 0;
  redirectSinkCredentialHits = 0;
  unauthorized = 0;

  request(method: string): void {
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
  }

  fault(kind: string): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  applied(action: RequestAction, requestId: string | undefined): void {
    this.mutations[action]++;
    if (requestId !== undefined) this.byRequestId.set(requestId, (this.byRequestId.get(requestId) ?? 0) + 1);
  }

  snapshot(): SimulatorStats {
    return {
      requests: Object.fromEntries(this.requests),
      tasksCreated: this.tasksCreated,
      mutationsApplied: { ...this.mutations },
      appliedByRequestId: Object.fromEntries(this.byRequestId),
      staleMutationsRejected: this.staleMutationsRejected,
      staleMutationsApplied: this.staleMutationsApplied,
      duplicateRequestIdHits: this.duplicateRequestIdHits,
      extensionNotActivated: this.extensionNotActivated,
      faultsServed: Object.fromEntries(this.faults),
      redirectSinkHits: this.redirectSinkHits,
      redirectSinkCredentialHits: this.redirectSinkCredentialHits,
      unauthorized: this.unauthorized,
    };
  }
}
