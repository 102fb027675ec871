/**
 * The heartbeat benchmark's contract, not its speed: argument parsing, and a short run of the
 * built script whose last stdout line is one JSON object with every field. No timing asserts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BENCH_DEFAULTS, parseBenchArgs } from '../../bench/args.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const SCRIPT = fileURLToPath(new URL('../../dist/bench/heartbeat-sweep.js', import.meta.url));

function runBuilt(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(SCRIPT)) throw new Error(`${SCRIPT} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    const child = recordChildOutput(spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }), 'heartbeat-sweep');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bench arguments', () => {
  it('defaults, both spellings, --json and --restart', () => {
    expect(parseBenchArgs([])).toEqual(BENCH_DEFAULTS);
    expect(BENCH_DEFAULTS.restart).toBe(false);
    expect(parseBenchArgs(['--campaigns', '20', '--concurrency=8', '--rounds', '1', '--json'])).toEqual({
      campaigns: 20,
      concurrency: 8,
      rounds: 1,
      json: true,
      restart: false,
      v8HeapDefaults: false,
      fleet: false,
    });
    expect(parseBenchArgs(['--restart', '--campaigns=3'])).toEqual({ ...BENCH_DEFAULTS, campaigns: 3, restart: true });
    expect(parseBenchArgs(['--v8-heap-defaults'])).toEqual({ ...BENCH_DEFAULTS, v8HeapDefaults: true });
    expect(parseBenchArgs(['--fleet', '--campaigns=10000'])).toEqual({ ...BENCH_DEFAULTS, campaigns: 10000, fleet: true });
  });

  it('refuses unknown flags, missing values and out-of-range numbers', () => {
    expect(() => parseBenchArgs(['--campaign', '2'])).toThrow(/unknown argument/);
    expect(() => parseBenchArgs(['--campaigns'])).toThrow(/needs a value/);
    expect(() => parseBenchArgs(['--campaigns', '0'])).toThrow(/whole number/);
    expect(() => parseBenchArgs(['--concurrency', '1.5'])).toThrow(/whole number/);
  });
});

describe('bench run', () => {
  it('prints one JSON object with every field as the last stdout line', async () => {
    const { code, stdout, stderr } = await runBuilt(['--campaigns', '20', '--rounds', '1', '--json']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1); // --json: nothing else on stdout; progress went to stderr
    expect(stderr).toContain('[bench]');
    const result = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    for (const field of ['sweep_ms', 'cpu_ms', 'rss_mb', 'raw_sweep_ms', 'sdk_sweep_ms', 'sweep_vs_raw', 'cpu_vs_raw']) {
      expect(typeof result[field], field).toBe('number');
      expect(Number.isFinite(result[field]), field).toBe(true);
    }
    expect(result).toMatchObject({ campaigns: 20, concurrency: 64, rounds: 1, ticked: 20, unchanged_ticks: 20, tick_errors: 0, store_writes: 0, model_calls: 0, wake_requests: 0 });
    expect(result.node).toBe(process.version);
    expect(typeof result.sweep_below_sdk).toBe('boolean');
    expect(typeof result.sweep_vs_raw_ok).toBe('boolean');
    expect(result.sweep_vs_raw_goal).toBe(1.25);
    // The heap growth `serve` ships, unless --v8-heap-defaults.
    expect(result.heap_growth_percent).toBe(50);
    expect(result.rounds_ms).toMatchObject({ sweep: [expect.any(Number)], raw: [expect.any(Number)], sdk: [expect.any(Number)] });
    // Without --restart no restart field is made up.
    expect(Object.keys(result).filter((k) => k.startsWith('restart'))).toEqual([]);
  });

  it('--restart: a new process on the same documents sweeps them all as unchanged and writes nothing', async () => {
    const { code, stdout, stderr } = await runBuilt(['--campaigns', '20', '--rounds', '1', '--restart', '--json']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(stderr).toContain('restart: a new process');
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    const timings = ['sweep_ms', 'restart_first_sweep_ms', 'restart_boot_ms', 'restart_load_ms', 'restart_sweep_ms', 'restart_rss_mb', 'restart_vs_sweep'];
    for (const field of timings) {
      expect(typeof result[field], field).toBe('number');
      expect(Number.isFinite(result[field]), field).toBe(true);
    }
    // Measured from the child's own process start, so it holds its start() and its sweep.
    expect(result.restart_first_sweep_ms as number).toBeGreaterThanOrEqual((result.restart_load_ms as number) + (result.restart_sweep_ms as number));
    expect(result).toMatchObject({
      campaigns: 20,
      store_writes: 0,
      restart_store_writes: 0,
      restart_model_calls: 0,
      restart_wake_requests: 0,
      restart_ticked: 20,
      restart_unchanged_ticks: 20,
      restart_tick_errors: 0,
      restart_vs_sweep_goal: 2,
    });
    expect(typeof result.restart_vs_sweep_ok).toBe('boolean');
  });

  it('--fleet: both remotes report the fleet sweep, its requests, and the raw listing floor of the same run', async () => {
    const { code, stdout, stderr } = await runBuilt(['--campaigns', '150', '--rounds', '1', '--fleet', '--json']);
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as { campaigns: number; remotes: Record<string, unknown>[] };
    expect(result.campaigns).toBe(150);
    expect(result.remotes.map((r) => r.remote)).toEqual(['simulator', 'stock-sdk']);
    for (const remote of result.remotes) {
      // Two pages and one catch-up for 150 unchanged tasks, and no GetTask at all.
      expect(remote, String(remote.remote)).toMatchObject({ fleet_requests: 3, fleet_get_requests: 0, tick_errors: 0 });
      for (const field of ['fleet_sweep_ms', 'raw_get_floor_ms', 'raw_list_floor_ms', 'list_floor_vs_raw', 'fleet_vs_list_floor']) {
        expect(Number.isFinite(remote[field]) && (remote[field] as number) > 0, `${String(remote.remote)} ${field}`).toBe(true);
      }
      expect(remote.list_floor_vs_raw).toBeCloseTo((remote.raw_list_floor_ms as number) / (remote.raw_get_floor_ms as number), 2);
    }
  });

  it('prints a summary before the JSON line without --json, and exits 2 on a bad argument', async () => {
    const human = await runBuilt(['--campaigns', '5', '--rounds', '1']);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ campaigns: 5 });

    const bad = await runBuilt(['--campaigns', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--campaigns must be a whole number/);
  });
});
