/**
 * The context index of a replica (issue 22, part 5: cross-campaign facts become constraints in
 * the database): one controller per remote context across every replica, not per process as
 * `MemoryContextIndex`. `hold` (the claim effect, before anything is sent) asks the database and
 * answers from it; it rejects when the database cannot tell, and the claim fails closed
 * (`io_failed`, nothing sent). `settle` (the views, as each chart moves) is synchronous for its
 * callers and written behind them, in order per campaign: a `hold` of that campaign waits for
 * its pending settles first.
 *
 * Both are fenced by the campaign's right (persistence/postgres/context-controllers.ts): a settle
 * carries the fence this replica held when the chart moved, so one from a tenure that is over
 * (the campaign moved to another replica) is refused and dropped — the campaign's new host
 * settles it from its restored chart. A settle the database did not take is tried again, a
 * bounded number of times (SETTLE_RETRY_MS), unless a newer settle of the campaign replaced it;
 * after the last attempt it is logged (`context_settle_failed`) and kept as unwritten: written
 * again by the campaign's next change, or else after the replica's next answered ownership beat
 * (`rewriteUnwritten`, hosting-mode.ts), until it is written, superseded or refused as stale — a
 * chart that stops moving never leaves its context held. A hold that rejects (its commit may have
 * happened, its answer lost) forgets what was written, so the next settle writes. A settle that
 * finds another campaign holding the context is logged (`context_conflict`, error): there is no
 * path from here into the chart, and its next claim is refused (context-controllers.ts). A row
 * left behind anyway (its tenure ended before it could be settled) is reclaimed by another
 * campaign's hold under the rule stated in context-controllers.ts.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { Database } from '../../persistence/postgres/database.js';
import { ContextFenceStale, holdContext, settleContext, type ContextWriter } from '../../persistence/postgres/context-controllers.js';
import { describeError } from '../../persistence/store-errors.js';
import { digestOf } from '../reducer/dedupe-key.js';
import { heldContext, type ContextIndex } from '../authority/context-index.js';

/** Pauses before each retry of a settle the database did not take (about 5 s in all). */
export const SETTLE_RETRY_MS: readonly number[] = [100, 400, 1_500, 3_000];

/**
 * The context a stored document's chart holds (the reclaim rule's part b): undefined when it
 * cannot tell (no readable snapshot, or claiming), so an unreadable chart never loses its context.
 */
export function storedHold(document: unknown): string | null | undefined {
  const snapshot = (document as { machine?: { snapshot?: unknown } } | null)?.machine?.snapshot;
  if (snapshot === null || typeof snapshot !== 'object' || !('value' in snapshot)) return undefined;
  try {
    return heldContext(snapshot as Parameters<typeof heldContext>[0]);
  } catch {
    return undefined;
  }
}

export interface DatabaseContextIndexOptions {
  /** Default SETTLE_RETRY_MS (tests shorten it). */
  retryMs?: readonly number[];
}

export class DatabaseContextIndex implements ContextIndex {
  /** Per campaign: the last value written (or being written), and the chain of its writes. */
  private readonly written = new Map<string, string | null>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Settles that ran out of attempts, with the fence they carry: rewritten by `rewriteUnwritten`. */
  private readonly unwritten = new Map<string, { contextId: string | null; fence: number | null }>();
  private readonly retryMs: readonly number[];

  constructor(private readonly db: Database, private readonly writer: ContextWriter, private readonly logger: Logger, options: DatabaseContextIndexOptions = {}) {
    this.retryMs = options.retryMs ?? SETTLE_RETRY_MS;
  }

  async hold(contextId: string, campaignId: string): Promise<string | null> {
    await this.chains.get(campaignId);
    let answer: Awaited<ReturnType<typeof holdContext>>;
    try {
      answer = await holdContext(this.db, this.writer, contextId, campaignId, storedHold);
    } catch (error) {
      // It may have committed (its answer lost): what is in the database is unknown, so the next settle writes.
      this.written.delete(campaignId);
      throw error;
    }
    if (answer.reclaimedFrom !== undefined) {
      // A remote's id, digested (never a remote's text in a log line).
      this.logger.warn({ campaignId, context: digestOf([contextId]), code: 'context_reclaimed', from: answer.reclaimedFrom }, 'a context left held by a campaign that no longer holds it was taken over');
    }
    if (answer.holder === null) {
      // Replaces any settle left unwritten (a rewrite of it would let this context go).
      this.unwritten.delete(campaignId);
      this.written.set(campaignId, contextId);
    }
    return answer.holder;
  }

  settle(campaignId: string, contextId: string | null): void {
    if (this.written.has(campaignId) && this.written.get(campaignId) === contextId) return;
    // The right the chart moved under: a write that outlives it is refused, never applied.
    this.enqueue(campaignId, contextId, this.writer.fenceFor(campaignId));
  }

  /** Writes again every settle that ran out of attempts (after an answered ownership beat: the database is back). */
  rewriteUnwritten(): void {
    for (const [campaignId, { contextId, fence }] of this.unwritten) this.enqueue(campaignId, contextId, fence);
  }

  private enqueue(campaignId: string, contextId: string | null, fence: number | null): void {
    this.unwritten.delete(campaignId);
    this.written.set(campaignId, contextId);
    const previous = this.chains.get(campaignId) ?? Promise.resolve();
    const next = previous.then(() => this.write(campaignId, contextId, fence));
    this.chains.set(campaignId, next);
    void next.finally(() => this.chains.get(campaignId) === next && this.chains.delete(campaignId));
  }

  private async write(campaignId: string, contextId: string | null, fence: number | null): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const other = await settleContext(this.db, this.writer, campaignId, contextId, fence);
        if (other !== null) {
          this.written.delete(campaignId);
          this.logger.error({ campaignId, code: 'context_conflict', holder: other }, 'the chart controls a context another campaign holds in the database: not taken from it; this campaign\'s next claim is refused');
        }
        return;
      } catch (error) {
        const superseded = this.written.get(campaignId) !== contextId;
        if (error instanceof ContextFenceStale) {
          if (!superseded) this.written.delete(campaignId);
          this.logger.info({ campaignId, code: 'context_settle_refused', reason: error.message }, 'which context the campaign controls was not written: this replica no longer holds that right (its new host settles it)');
          return;
        }
        if (superseded) return;
        const pause = this.retryMs[attempt];
        if (pause === undefined) {
          this.written.delete(campaignId);
          this.unwritten.set(campaignId, { contextId, fence });
          this.logger.warn({ campaignId, code: 'context_settle_failed', attempts: attempt + 1, reason: describeError(error) }, 'which context the campaign controls could not be written; written again after the next ownership beat, or the next change');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        if (this.written.get(campaignId) !== contextId) return;
      }
    }
  }

  /**
   * The campaign left this replica: what was written for it here is no longer known to be in the
   * database (its next host may have changed it), so its next settle here is written, not skipped.
   */
  forget(campaignId: string): void {
    this.written.delete(campaignId);
    this.unwritten.delete(campaignId);
  }

  /** Every write queued so far has ended (tests, stop). */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }
}
