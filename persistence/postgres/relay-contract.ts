/**
 * The command relay's contract (command-relay.ts explains the protocol): what a sender gets
 * back, the refusal codes, the options, and how an answer is stored in the command's row.
 * @module
 */
import type { Database } from './database.js';
import type { EventsNotice } from './relay-events.js';
import type { ListenerStatus } from './relay-listener.js';

export type { EventsNotice };

export type RelayRefusalCode =
  /** No live owner, or no answer in time (the owner may have started it: retry with the same Idempotency-Key). */
  | 'owner_unavailable'
  /** The owner's right changed since the command was addressed; it did not run, sending again is safe. */
  | 'owner_changed'
  /** The owner's handler failed without an answer. */
  | 'owner_failed'
  | 'command_too_large'
  | 'command_invalid'
  | 'invalid_campaign_id';

export type RelayResult<A> = { ok: true; answer: A } | { ok: false; code: RelayRefusalCode; message: string };

export interface CommandRelayOptions<Req, Ans> {
  db: Database;
  /** The ownership's replica id (the `holder` in campaign_owner). */
  replicaId: string;
  /** Runs on the owner; its answer goes back to the sender as it is (JSON). */
  onCommand(campaignId: string, request: Req): Promise<Ans>;
  /** The fence this replica holds for a campaign now, null when none (CampaignOwnership.fenceFor). */
  fenceFor(campaignId: string): number | null;
  /** Requests larger than this (JSON, UTF-8 bytes) are refused before any row (default 1 MiB). */
  maxRequestBytes?: number;
  /** Fallback read of a waiting command's row (default 500 ms). */
  pollEveryMs?: number;
  /** Liveness check of the LISTEN connection (default 5 s). */
  listenerCheckMs?: number;
  /** First pause before the LISTEN connection reconnects (default 50 ms). */
  reconnectDelayMs?: number;
  onError?: (message: string) => void;
}

export interface CommandRelay<Req, Ans> {
  send(campaignId: string, request: Req, options: { timeoutMs: number }): Promise<RelayResult<Ans>>;
  publish(campaignId: string, events: readonly { seq: number }[]): Promise<void>;
  onEvents(listener: (notice: EventsNotice) => void): () => void;
  /** Deletes finished rows older than `olderThanMs`; returns how many. */
  prune(olderThanMs: number): Promise<number>;
  listener(): ListenerStatus;
  close(): Promise<void>;
}

export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;
export const MAX_TIMEOUT_MS = 600_000;

/** What the owner writes into the command's row: its answer, or why it did not run. */
export type Stored = { kind: 'answer'; answer: unknown } | { kind: 'refused'; code: RelayRefusalCode; message: string };

export function decode<A>(text: string): RelayResult<A> {
  const stored = JSON.parse(text) as Stored;
  return stored.kind === 'answer' ? { ok: true, answer: stored.answer as A } : refuse(stored.code, stored.message);
}

export const refuse = (code: RelayRefusalCode, message: string): { ok: false; code: RelayRefusalCode; message: string } => ({ ok: false, code, message });
