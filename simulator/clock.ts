/**
 * The simulator's time source: a base clock plus an offset that tests and the admin API can
 * push forward, so lease expiry is exercised without sleeping.
 * @module
 */
export class SimClock {
  private offsetMs = 0;

  constructor(private readonly base: () => number = Date.now) {}

  readonly now = (): number => this.base() + this.offsetMs;

  advance(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('the clock only moves forward');
    this.offsetMs += seconds * 1000;
  }
}
