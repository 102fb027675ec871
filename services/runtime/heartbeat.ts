/**
 * The deterministic heartbeat: a scheduler OUTSIDE the machines (XState does not persist
 * pending `after` timers), which sends every active, unpaused campaign a TICK each beat; the
 * chart alone decides what a tick means (read, renew, poll a mission, nothing).
 *
 * No campaign waits for another's: a sweep hands every TICK out at once (a synchronous loop,
 * no promise per campaign), renewals start right away on their own connections, and status
 * reads are paced by the read slots of the status reader (services/campaign/effects-read.ts). Beats
 * come on a fixed rate whatever the last sweep is doing: a read still in flight at the next
 * beat holds only its own campaign, whose chart skips that beat's read (it is still reading)
 * and still renews. A sweep reports when what it started has settled, or at the end of its
 * beat, whichever is first. Each beat starts after a random jitter so a fleet of supervisors
 * does not poll in lockstep.
 * @module
 */
export const MIN_CADENCE_SECONDS = 60;
export const DEFAULT_CADENCE_SECONDS = 120;

export interface HeartbeatOptions {
  cadenceMs: number;
  /** Upper bound of the random delay before each sweep, as a fraction of the cadence. */
  jitterRatio?: number;
  /** The campaigns to tick on this sweep: every active, unpaused one (the chart filters the rest). */
  dueCampaigns: (now: number) => Iterable<string>;
  /**
   * Sends one campaign its TICK. Returns false when the tick is over already; otherwise calls
   * `settled` later, once what this tick started has settled.
   */
  tick: (campaignId: string, settled: () => void) => boolean;
  onSweepError?: (campaignId: string, error: unknown) => void;
  /**
   * Runs before the TICKs go out, with the due campaigns (the fleet listing: services/campaign/
   * fleet-read.ts); it must not throw. `finished` runs once the sweep has reported.
   */
  prepare?: (campaignIds: readonly string[]) => Promise<number | void>;
  /** Gets what this sweep's `prepare` answered (the listing's number), so it clears only its own. */
  finished?: (prepared: number | void) => void;
  /** How long a sweep waits for what it started before it reports (default: one cadence). */
  budgetMs?: number;
  random?: () => number;
  now?: () => number;
}

export interface SweepReport {
  ticked: number;
  errors: number;
  startedAt: number;
  finishedAt: number;
  /** Campaigns whose read or renewal was still in flight when the sweep reported (its beat ended). */
  stragglers?: number;
}

export interface Heartbeat {
  /** Runs one sweep now (the benchmark and tests use this directly). */
  sweep(): Promise<SweepReport>;
  start(): void;
  stop(): Promise<void>;
  readonly running: boolean;
  readonly lastSweep: SweepReport | null;
  /** A sweep made outside the scheduler (the restart's pipelined first read) counts as the last one. */
  record(report: SweepReport): void;
}

export function createHeartbeat(opts: HeartbeatOptions): Heartbeat {
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const budgetMs = opts.budgetMs ?? opts.cadenceMs;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let lastSweep: SweepReport | null = null;
  /** Sweeps still waiting for what they started: stop() ends them (their actors stop next). */
  const open = new Set<() => void>();

  function sweep(): Promise<SweepReport> {
    const startedAt = now();
    if (!opts.prepare) return dispatch(opts.dueCampaigns(startedAt), startedAt);
    const due = [...opts.dueCampaigns(startedAt)];
    return opts.prepare(due).then((prepared) => {
      const swept = dispatch(due, startedAt);
      return opts.finished ? swept.finally(() => opts.finished!(prepared)) : swept;
    });
  }

  function dispatch(due: Iterable<string>, startedAt: number): Promise<SweepReport> {
    let ticked = 0;
    let errors = 0;
    let waiting = 0;
    let dispatching = true;
    let report!: (stragglers: number) => void;
    const done = new Promise<SweepReport>((resolve) => {
      report = (stragglers) => {
        if (!open.delete(end)) return;
        lastSweep = { ticked, errors, startedAt, finishedAt: now(), ...(stragglers ? { stragglers } : {}) };
        resolve(lastSweep);
      };
    });
    const end = () => report(waiting);
    open.add(end);
    // One callback for the whole sweep, not one closure per campaign.
    const settled = () => {
      waiting--;
      if (waiting === 0 && !dispatching) report(0);
    };
    for (const id of due) {
      try {
        if (opts.tick(id, settled)) waiting++;
        ticked++;
      } catch (error) {
        errors++;
        opts.onSweepError?.(id, error);
      }
    }
    dispatching = false;
    if (waiting === 0) {
      report(0);
      return done;
    }
    // The beat's end: whatever is still in flight belongs to its campaign alone.
    const beat = setTimeout(end, budgetMs);
    beat.unref?.();
    return done.finally(() => clearTimeout(beat));
  }

  function schedule(): void {
    if (!running) return;
    const jitter = random() * (opts.jitterRatio ?? 0.1) * opts.cadenceMs;
    timer = setTimeout(() => {
      // Fixed rate: the next beat is set before this sweep runs, and never waits for it.
      schedule();
      void sweep();
    }, opts.cadenceMs + jitter);
    timer.unref?.();
  }

  return {
    sweep,
    start() {
      if (running) return;
      running = true;
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      for (const end of [...open]) end();
    },
    get running() {
      return running;
    },
    get lastSweep() {
      return lastSweep;
    },
    record(report) {
      lastSweep = report;
    },
  };
}
