/**
 * One write queue per campaign: the journal's intent writes, the host's saves and direct document
 * changes run one at a time, in the order they were queued, so none interleaves with another.
 * @module
 */
const noop = (): void => undefined;

export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  /** Writes queued and not finished: a tick that started nothing waits only when there are some. */
  private queued = 0;

  get pending(): number {
    return this.queued;
  }

  /** Resolves when every write queued so far has finished (whatever each answered). */
  whenWritten(): Promise<void> {
    return this.tail;
  }

  /** Runs `work` after every write queued before it. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    this.queued++;
    const counted = () => work().finally(() => this.queued--);
    const run = this.tail.then(counted, counted);
    // The tail keeps no result: a resolved WriteResult would pin the whole document in memory.
    this.tail = run.then(noop, noop);
    return run;
  }
}
