/**
 * The first read of every campaign after a restart, pipelined with loading: each campaign is
 * read as soon as its actor is up, at the heartbeat's concurrency, instead of after the whole
 * state root has loaded. It ends (`done`) when every campaign handed to it has been read.
 * @module
 */
import pLimit from 'p-limit';
import type { SweepReport } from './heartbeat.js';

export class FirstSweep {
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly work: Promise<void>[] = [];
  private readonly startedAt = Date.now();
  private ticked = 0;
  private errors = 0;

  /** @param tick reads one campaign if it is due; resolves true when it read. */
  constructor(
    concurrency: number,
    private readonly tick: (campaignId: string) => Promise<boolean>,
    private readonly onError: (campaignId: string, error: unknown) => void,
  ) {
    this.limit = pLimit(concurrency);
  }

  add(campaignId: string): void {
    this.work.push(
      this.limit(async () => {
        try {
          if (await this.tick(campaignId)) this.ticked++;
        } catch (error) {
          this.errors++;
          this.onError(campaignId, error);
        }
      }),
    );
  }

  /** Once loading is over: resolves when every read handed to it has finished. */
  async done(): Promise<SweepReport> {
    await Promise.all(this.work);
    return { ticked: this.ticked, errors: this.errors, startedAt: this.startedAt, finishedAt: Date.now() };
  }
}
