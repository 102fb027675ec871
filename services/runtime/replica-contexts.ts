/**
 * The context index of a replica (issue 22, part 5: cross-campaign facts become constraints in
 * the database): one controller per remote context across every replica, not per process as
 * `MemoryContextIndex`. `hold` (the claim effect, before anything is sent) asks the database and
 * answers from it; it rejects when the database cannot tell, and the claim fails closed
 * (`io_failed`, nothing sent). `settle` (the views, as each chart moves) is synchronous for its
 * callers and written behind them, in order per campaign: a `hold` of that campaign waits for
 * its pending settles first. A settle that fails is logged and forgotten, so the next one of
 * that campaign is written again; the row is the campaign's fact, so whichever replica hosts the
 * campaign next settles it again from the restored chart.
 * @module
 */
import type { Logger } from '../../adapters/logger.js';
import type { Database } from '../../persistence/postgres/database.js';
import { holdContext, settleContext } from '../../persistence/postgres/context-controllers.js';
import { describeError } from '../../persistence/store-errors.js';
import type { ContextIndex } from '../authority/context-index.js';

export class DatabaseContextIndex implements ContextIndex {
  /** Per campaign: the last value written (or being written), and the chain of its writes. */
  private readonly written = new Map<string, string | null>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly db: Database, private readonly logger: Logger) {}

  async hold(contextId: string, campaignId: string): Promise<string | null> {
    await this.chains.get(campaignId);
    const holder = await holdContext(this.db, contextId, campaignId);
    if (holder === null) this.written.set(campaignId, contextId);
    return holder;
  }

  settle(campaignId: string, contextId: string | null): void {
    if (this.written.has(campaignId) && this.written.get(campaignId) === contextId) return;
    this.written.set(campaignId, contextId);
    const previous = this.chains.get(campaignId) ?? Promise.resolve();
    const next = previous.then(() =>
      settleContext(this.db, campaignId, contextId).catch((error: unknown) => {
        if (this.written.get(campaignId) === contextId) this.written.delete(campaignId);
        this.logger.warn({ campaignId, code: 'context_settle_failed', reason: describeError(error) }, 'which context the campaign controls could not be written; the next change writes it again');
      }),
    );
    this.chains.set(campaignId, next);
    void next.finally(() => this.chains.get(campaignId) === next && this.chains.delete(campaignId));
  }

  /**
   * The campaign left this replica: what was written for it here is no longer known to be in the
   * database (its next host may have changed it), so its next settle here is written, not skipped.
   */
  forget(campaignId: string): void {
    this.written.delete(campaignId);
  }

  /** Every write queued so far has ended (tests, stop). */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }
}
