/**
 * Command-line arguments of the heartbeat benchmark. Kept apart from the entry point so a test
 * can check parsing without running a sweep.
 * @module
 */

export interface BenchArgs {
  /** Campaigns (and `steady` remote tasks) to sweep. */
  campaigns: number;
  /** Concurrent reads, for our sweep, the raw undici sweep and the SDK sweep alike. */
  concurrency: number;
  /** Measured rounds of each of the three sweeps, interleaved; medians are reported. */
  rounds: number;
  /** Only the JSON line on stdout (progress still goes to stderr). */
  json: boolean;
  /** After the rounds, start a new process on the same documents and time its first sweep. */
  restart: boolean;
  /**
   * Leave V8's own heap-growth heuristic instead of the one `serve` ships
   * (services/runtime/heap-growth.ts), to show what an embedding host with default flags sees.
   */
  v8HeapDefaults: boolean;
  /**
   * The fleet sweep instead: ListTasks pages + one catch-up per unchanged beat, beside the
   * per-task sweep and the raw GetTask floor of the same run, against the simulator (listing
   * as the spec says) and a stock @a2a-js/sdk server (bench/fleet-bench.ts).
   */
  fleet: boolean;
}

export const BENCH_DEFAULTS: BenchArgs = { campaigns: 1000, concurrency: 64, rounds: 5, json: false, restart: false, v8HeapDefaults: false, fleet: false };

export class BenchArgsError extends Error {}

export const BENCH_USAGE =
  'usage: heartbeat-sweep [--campaigns N] [--concurrency C] [--rounds R] [--restart] [--v8-heap-defaults] [--fleet] [--json]\n' +
  `  defaults: --campaigns ${BENCH_DEFAULTS.campaigns} --concurrency ${BENCH_DEFAULTS.concurrency} --rounds ${BENCH_DEFAULTS.rounds}\n` +
  '  --restart: then stop, start a new process on the same documents, and report restart_first_sweep_ms\n' +
  '             (its process start until its first full sweep ends) beside sweep_ms\n' +
  '  --v8-heap-defaults: V8\'s own heap growth instead of the +50% past live that `serve` sets\n' +
  '  --fleet: the ListTasks fleet sweep beside the per-task sweep and the raw GetTask floor,\n' +
  '           against the simulator and a stock @a2a-js/sdk server';

const LIMITS: Record<'campaigns' | 'concurrency' | 'rounds', [number, number]> = {
  campaigns: [1, 200_000],
  concurrency: [1, 1024],
  rounds: [1, 50],
};

/** Parses `argv` (without node and the script). Accepts `--name value` and `--name=value`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { ...BENCH_DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '--fleet') {
      args.fleet = true;
      continue;
    }
    if (raw === '--json' || raw === '--restart' || raw === '--v8-heap-defaults') {
      args[raw === '--json' ? 'json' : raw === '--restart' ? 'restart' : 'v8HeapDefaults'] = true;
      continue;
    }
    const match = /^--(campaigns|concurrency|rounds)(?:=(.*))?$/.exec(raw);
    if (!match) throw new BenchArgsError(`unknown argument: ${raw}`);
    const name = match[1] as keyof typeof LIMITS;
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new BenchArgsError(`--${name} needs a value`);
    const n = Number(value);
    const [min, max] = LIMITS[name];
    if (!Number.isInteger(n) || n < min || n > max) throw new BenchArgsError(`--${name} must be a whole number from ${min} to ${max}`);
    args[name] = n;
  }
  return args;
}
