/**
 * `npm run soak -- --campaigns N --sweeps S [--seed K] [--json]`: the soak (bench/soak-run.ts).
 * Progress goes to stderr; the last stdout line is one JSON object. It judges nothing.
 * @module
 */
import { runSoak } from './soak-run.js';

const USAGE = 'usage: soak [--campaigns N (1..20000)] [--sweeps S (1..10000)] [--seed K] [--json]';

function parse(argv: readonly string[]): { campaigns: number; sweeps: number; seed: number; json: boolean } {
  const args = { campaigns: 1000, sweeps: 200, seed: 23, json: false };
  const limits = { campaigns: [1, 20_000], sweeps: [1, 10_000], seed: [0, 2 ** 31] } as const;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '--json') {
      args.json = true;
      continue;
    }
    const match = /^--(campaigns|sweeps|seed)(?:=(.*))?$/.exec(raw);
    if (!match) throw new Error(`unknown argument: ${raw}`);
    const name = match[1] as keyof typeof limits;
    const value = Number(match[2] ?? argv[++i]);
    const [min, max] = limits[name];
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    args[name] = value;
  }
  return args;
}

try {
  const args = parse(process.argv.slice(2));
  const result = await runSoak({ ...args, progress: (line) => process.stderr.write(`[soak] ${line}\n`) });
  if (!args.json) {
    process.stdout.write(
      `rss ${JSON.stringify(result.rss_mb)} MB, tick errors ${result.tick_errors}, silent lapses ${result.silent_lapses}, writes/material change ${result.writes_per_material_change}\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${USAGE}\n`);
  process.exitCode = 1;
}
