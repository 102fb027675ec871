/**
 * What the campaign's invoked effects need from the world, and nothing else: the remote client,
 * the clock, the durable journal write, the published dedupe keys and the decision runtimes.
 * The host builds one of these per supervisor; `createCampaignEffects` turns it into the actors once.
 * @module
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { MutationKind } from '../../machines/campaign.types.js';
import type { DecisionRuntime } from '../decisions/decision-runtime.js';
import type { ContextIndex } from '../authority/context-index.js';

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

export interface EffectDeps {
  controllerId: string;
  /** Null: no remote configured, or the supervisor is not enabled. Every effect then fails closed. */
  remote: A2AClient | null;
  now(): Date;
  /**
   * Durable intent write (fsync) through the campaign's write queue; resolves when on disk.
   * Rejects with a JournalRefusedError when the journal refuses the intent, otherwise with the failure.
   */
  journal(campaignId: string, intent: JournalIntentRecord): Promise<void>;
  /** Published dedupe keys of the campaign (read from its document: only on a material read). */
  publishedKeys(campaignId: string): Promise<ReadonlySet<string>>;
  /**
   * How many status reads may be in flight at once, all campaigns together (default 64): the
   * heartbeat hands every TICK out at once, so reads queue here, and only reads do (renewals and
   * mutations never wait behind them).
   */
  readConcurrency?: number;
  /** Called after each status read that reached the wire, with its result (reachability, metrics, last_read_at). */
  onStatusRead?(campaignId: string, ok: boolean, code: string | null, at: string, message?: string | null): void;
  /** The Argus bridge and Foreman runner the decision effects use (none: no decision runs). */
  decisions?: DecisionRuntime;
  /** The campaign's objective (the envelope carries it, sanitized and capped). */
  objectiveOf?(campaignId: string): string;
  /** This Argus decision id was consumed already (the document's consumed decisions). */
  decisionConsumed?(campaignId: string, decisionId: string): boolean;
  /** One controller per remote context among the campaigns (the claim asks before it sends). */
  contexts?: ContextIndex;
}

/** The code every effect answers with when there is no remote to talk to (nothing is sent). */
export const REMOTE_NOT_CONFIGURED = 'remote_not_configured';
