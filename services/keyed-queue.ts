/**
 * Runs async work one at a time per key (campaign id), in arrival order. The store's file lock
 * serializes processes; this serializes a tick and an operator action inside one process so an
 * action never interleaves with the reading it depends on.
 * @module
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
