/**
 * Commands between replicas (issue 22 part 5): a request for a campaign another replica hosts
 * travels to it through PostgreSQL (persistence/postgres/command-relay.ts: a row + NOTIFY, at
 * most once) and runs through that replica's own request door, so the answers, refusals and the
 * Idempotency-Key contract are the owner's. A relayed command is never relayed again.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import { openCommandRelay, type CommandRelay } from '../../persistence/postgres/command-relay.js';
import type { Database } from '../../persistence/postgres/database.js';
import { ownerOf } from '../../persistence/postgres/placement.js';
import { describeError } from '../../persistence/store-errors.js';
import type { ApiResult } from '../api/supervisor-api.js';
import { apiError } from '../contract/api-errors.js';

/** A request for a campaign hosted elsewhere, as it travels to the owner (already parsed, no secret in it). */
export interface RelayedCommand {
  door: 'campaigns' | 'campaign_action';
  campaignId: string;
  body: unknown;
  idempotencyKey?: string;
}

export const unavailable = (message: string): ApiResult<never> => ({ ok: false, error: apiError('owner_unavailable', message) });

/** Answered rows older than this are deleted (each keeps the request text and its answer). */
const KEEP_ANSWERED_MS = 10 * 60_000;

export interface ReplicaCommandsDeps {
  db: Database;
  replicaId: string;
  logger: Logger;
  fenceFor(campaignId: string): number | null;
  /** Hosted here with a live actor: run it (the door's own checks apply). */
  hostedHere(campaignId: string): Promise<boolean>;
  runHere(command: RelayedCommand): Promise<ApiResult<unknown>>;
  timeoutMs?: number;
}

export class ReplicaCommands {
  private constructor(
    private readonly deps: ReplicaCommandsDeps,
    /** The relay itself: public-event notices ride on it too (replica-reads.ts). */
    readonly relay: CommandRelay<RelayedCommand, ApiResult<unknown>>,
  ) {}

  static async open(deps: ReplicaCommandsDeps): Promise<ReplicaCommands> {
    const relay = await openCommandRelay<RelayedCommand, ApiResult<unknown>>({
      db: deps.db,
      replicaId: deps.replicaId,
      fenceFor: deps.fenceFor,
      // Addressed to us, and no longer ours (or not up yet) when it runs: the sender hears so, nothing runs.
      onCommand: async (id, command) =>
        command.campaignId === id && (await deps.hostedHere(id)) ? deps.runHere(command) : unavailable(`Campaign ${id} is not served by replica ${deps.replicaId} now (moved, or still loading); try again with the same Idempotency-Key.`),
      onError: (message) => deps.logger.warn({ code: 'relay_listener', reason: message }, 'command relay listener trouble'),
    });
    return new ReplicaCommands(deps, relay);
  }

  /**
   * The owner's answer for a campaign hosted elsewhere; null when nobody ever claimed it (answered
   * here: not found, or a create). `timeoutMs` (default the configured relay timeout): how long it waits.
   */
  async forward(command: RelayedCommand, timeoutMs?: number): Promise<ApiResult<unknown> | null> {
    const id = command.campaignId;
    let owner: Awaited<ReturnType<typeof ownerOf>>;
    try {
      owner = await ownerOf(this.deps.db, id);
    } catch (error) {
      return unavailable(`Who hosts campaign ${id} could not be read from the database (${describeError(error)}); try again with the same Idempotency-Key.`);
    }
    if (owner === null) return null;
    if (!owner.live) return unavailable(`Campaign ${id} has no live owner right now (it is being re-homed); try again with the same Idempotency-Key.`);
    const sent = await this.relay.send(id, command, { timeoutMs: timeoutMs ?? this.deps.timeoutMs ?? 30_000 });
    return sent.ok ? sent.answer : unavailable(`Campaign ${id}: ${sent.message}`);
  }

  /** Deletes answered rows past their keep time (from the rebalance timer). */
  async prune(): Promise<void> {
    await this.relay.prune(KEEP_ANSWERED_MS).catch((error: unknown) => this.deps.logger.warn({ code: 'relay_prune_failed', reason: describeError(error) }, 'old relayed commands not pruned'));
  }

  close(): Promise<void> {
    return this.relay.close();
  }
}
