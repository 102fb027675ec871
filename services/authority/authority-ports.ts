/**
 * The narrow ports of the authority effects (claim, renew, lease readback, journal, relay,
 * readback by request id): the fenced remote, the clock, the durable journal and the index of
 * contexts. Nothing else: no host, no API, no store. Each effect returns plain data, which the
 * chart classifies with its named guards.
 * @module
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { MutationKind } from '../../machines/campaign.types.js';
import type { ContextIndex } from './context-index.js';

/** The intent record the journal writes before a mutation may be sent. */
export interface JournalIntentRecord {
  requestId: string;
  action: MutationKind;
  epoch: number;
  /** sha256 of the canonical `{ mutation, epoch, contextId, taskId }`. */
  payloadDigest: string;
  /** ISO instant the intent was built (the services' clock). */
  createdAt: string;
  /** The Argus decision applied (review approval): the journal refuses one it holds already. */
  decisionId?: string;
}

/**
 * The journal refused the intent (nothing was written), for a reason of the journal's own, as
 * opposed to a write that failed. `code` is the journal's (persistence/intent-journal.ts), and
 * the message is the code too, so a caller that only logs it says the same as before.
 */
export class JournalRefusedError extends Error {
  override readonly name = 'JournalRefusedError';
  constructor(readonly code: string) {
    super(code);
  }
}

export interface AuthorityPorts {
  controllerId: string;
  /** Null: no remote configured, or the supervisor is not enabled. Every effect then fails closed. */
  remote: A2AClient | null;
  /**
   * The remote as one campaign's effects see it, when hosting is per campaign (a replica on
   * PostgreSQL): fenced by THAT campaign's right, so an effect still running after its campaign
   * moved to another replica is refused locally. Absent: `remote` (one right covers every campaign).
   */
  remoteFor?(campaignId: string): A2AClient | null;
  now(): Date;
  /**
   * Durable intent write (fsync) through the campaign's write queue; resolves when on disk.
   * Rejects with a JournalRefusedError when the journal refuses the intent, otherwise with the failure.
   */
  journal(campaignId: string, intent: JournalIntentRecord): Promise<void>;
  /** One controller per remote context among the campaigns (the claim asks before it sends). */
  contexts?: ContextIndex;
}

/** The code every effect answers with when there is no remote to talk to (nothing is sent). */
export const REMOTE_NOT_CONFIGURED = 'remote_not_configured';

/** The remote one campaign's effects call (see `remoteFor`). */
export const remoteOf = (deps: Pick<AuthorityPorts, 'remote' | 'remoteFor'>, campaignId: string): A2AClient | null =>
  deps.remoteFor ? deps.remoteFor(campaignId) : deps.remote;
