/**
 * Arguments of `npm run bench -- --replicas N ...` (bench/replicas-bench.ts), parsed apart from
 * the single-process benchmark's (bench/args.ts) so the two can change independently.
 * @module
 */
import { BenchArgsError } from './args.js';

export interface ReplicasArgs {
  replicas: number;
  campaigns: number;
  concurrency: number;
  /** Measured rounds of each method on each replica; medians are reported. */
  rounds: number;
  /**
   * The ownership TTL every replica runs with (re-homing takes about TTL + TTL / 6). Default 30 s,
   * as `serve`: with 10 s a loaded 2-core host saw replicas miss their renewal deadline (TTL × 2/3)
   * and lose and re-take campaigns during the run.
   */
  ttlSeconds: number;
  /** Default: ARGUS_SUPERVISOR_TEST_DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test. */
  databaseUrl: string;
  json: boolean;
}

export const DEFAULT_BENCH_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';

export const REPLICAS_USAGE =
  'usage: heartbeat-sweep --replicas N [--campaigns C] [--concurrency K] [--rounds R] [--ttl-seconds S] [--database-url URL] [--json]\n' +
  '  defaults: --campaigns 1000 --concurrency 64 --rounds 3 --ttl-seconds 30 (the serve default);\n' +
  '  database: --database-url, else ARGUS_SUPERVISOR_TEST_DATABASE_URL, else ' + DEFAULT_BENCH_DATABASE_URL + ' (a fresh schema per run, dropped at the end)';

/** True when argv asks for the replicas benchmark. */
export const wantsReplicas = (argv: readonly string[]) => argv.some((a) => a === '--replicas' || a.startsWith('--replicas='));

const LIMITS = {
  replicas: [2, 16],
  campaigns: [1, 200_000],
  concurrency: [1, 1024],
  rounds: [1, 50],
  'ttl-seconds': [1, 120],
} as const;

export function parseReplicasArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ReplicasArgs {
  const args: ReplicasArgs = {
    replicas: 3,
    campaigns: 1000,
    concurrency: 64,
    rounds: 3,
    ttlSeconds: 30,
    databaseUrl: env['ARGUS_SUPERVISOR_TEST_DATABASE_URL'] || DEFAULT_BENCH_DATABASE_URL,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '--json') {
      args.json = true;
      continue;
    }
    const match = /^--(replicas|campaigns|concurrency|rounds|ttl-seconds|database-url)(?:=(.*))?$/.exec(raw);
    if (!match) throw new BenchArgsError(`unknown argument with --replicas: ${raw}`);
    const name = match[1] as keyof typeof LIMITS | 'database-url';
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new BenchArgsError(`--${name} needs a value`);
    if (name === 'database-url') {
      if (!/^postgres(ql)?:\/\//.test(value)) throw new BenchArgsError('--database-url must be a postgresql:// URL');
      args.databaseUrl = value;
      continue;
    }
    const n = Number(value);
    const [min, max] = LIMITS[name];
    const whole = name !== 'ttl-seconds';
    if (!Number.isFinite(n) || (whole && !Number.isInteger(n)) || n < min || n > max) throw new BenchArgsError(`--${name} must be a ${whole ? 'whole ' : ''}number from ${min} to ${max}`);
    if (name === 'ttl-seconds') args.ttlSeconds = n;
    else args[name] = n;
  }
  return args;
}
