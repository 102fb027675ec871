/**
 * The CLI client's world for the tests: a simulator child (`simulate`), a `serve` child on
 * loopback without ARGUS_SUPERVISOR_API_KEY (so it makes the local key), and `cli(...)`, which
 * runs the built binary (dist/: `npm run build` first) as a user would, recording its output.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { recordChildOutput } from '../fixtures/child-output.js';
import { canary } from '../fixtures/canary.js';
import { CLI_ENTRY, REPO_ROOT, spawnServe, tempStateRoot, type Scope, type ServeChild } from '../fixtures/supervisor-harness.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SimChild {
  url: string;
  origin: string;
  /** Starts tasks at the simulator through its admin API; returns their ids. */
  tasks(count: number, scenario: string): Promise<string[]>;
}

/** `argus-supervisor simulate --port 0`, ready when its one JSON line is printed. */
export async function startSimChild(scope: Scope): Promise<SimChild> {
  const child = recordChildOutput(
    spawn(process.execPath, [CLI_ENTRY, 'simulate', '--port', '0', '--polls-per-stage', '1'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] }),
    'cli-simulate',
  );
  const closed = new Promise((resolve) => child.once('close', resolve));
  scope.defer(child, (c) => {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    return closed;
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  for (let i = 0; i < 1000 && !out.includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
  const ready = JSON.parse(out.split('\n')[0]!) as { url: string };
  const origin = new URL(ready.url).origin;
  return {
    url: ready.url,
    origin,
    tasks: async (count, scenario) => {
      const res = await fetch(`${origin}/_sim/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count, scenario }) });
      return ((await res.json()) as { ids: string[] }).ids;
    },
  };
}

export interface CliWorld {
  sim: SimChild;
  serve: ServeChild;
  stateRoot: string;
  /** The local key serve wrote (read from its file, as the client does). */
  key: string;
  /** Every result, for the final "the key was never printed" scan. */
  results: CliResult[];
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
}

export async function startCliWorld(scope: Scope, serveEnv: Record<string, string> = {}): Promise<CliWorld> {
  const sim = await startSimChild(scope);
  const stateRoot = await tempStateRoot(scope);
  const env = { ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ...serveEnv };
  // serve makes its own key; the harness's placeholder is never used for a request here.
  const serve = await spawnServe(scope, env, canary('cli-unused-placeholder'));
  const key = (await readFile(path.join(stateRoot, 'local-api-key'), 'utf8')).trim();
  const results: CliResult[] = [];
  const base = { ARGUS_SUPERVISOR_URL: serve.address, ARGUS_SUPERVISOR_STATE_ROOT: stateRoot };
  return { sim, serve, stateRoot, key, results, cli: (args, extra = {}) => runCli(args, { ...base, ...extra }, results) };
}

export async function runCli(args: string[], env: Record<string, string>, results?: CliResult[]): Promise<CliResult> {
  const child = recordChildOutput(
    spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    `cli-${args[0] ?? 'none'}`,
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const result = { code, stdout, stderr };
  results?.push(result);
  return result;
}

/** A run that succeeded: nothing on stderr, exit 0; returns its stdout. */
export const ok = (r: CliResult): string => {
  expect(r.stderr, r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

/** A run that failed the one way errors are told: `exit`, no stdout, one `<code>: ...` line on stderr (returned). */
export const failed = (r: CliResult, exit: number, code: string): string => {
  expect(r.code, r.stderr).toBe(exit);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]!.startsWith(`${code}: `), lines[0]).toBe(true);
  return lines[0]!;
};
