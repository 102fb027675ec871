/**
 * Runs the simulator in a process of its own (`argus-supervisor simulate`), so its CPU never
 * counts against the sweep being measured, and reads its one JSON readiness line.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { ScenarioName, SimListing } from '../simulator/index.js';
import { tracked } from './child-processes.js';

export interface SimChild {
  url: string;
  origin: string;
  pid: number;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

/** dist/bench/*.js → dist/bin/argus-supervisor.js */
export const CLI_PATH = fileURLToPath(new URL('../bin/argus-supervisor.js', import.meta.url));

export async function spawnSimulator(opts: { scenario: ScenarioName; listing?: SimListing; readyTimeoutMs?: number }): Promise<SimChild> {
  const env = { ...process.env };
  // An inherited token would make the simulator demand one the benchmark does not send.
  delete env['OPENTRAINING_A2A_TOKEN'];
  const child = tracked(
    spawn(process.execPath, [CLI_PATH, 'simulate', '--port', '0', '--scenario', opts.scenario, ...(opts.listing ? ['--listing', opts.listing] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    }),
  );
  // Keep the last few KB of the simulator's log for a failure message; never block on it.
  let stderrTail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4096);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (graceMs = 3000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  try {
    const line = await firstLine(child, opts.readyTimeoutMs ?? 15_000);
    child.stdout!.resume(); // nothing more is expected; never let a stray write block the child
    const ready = JSON.parse(line) as { url?: unknown };
    if (typeof ready.url !== 'string') throw new Error(`unexpected readiness line: ${line}`);
    return { url: ready.url, origin: new URL(ready.url).origin, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    const detail = stderrTail.trim() ? `\n--- simulator stderr ---\n${stderrTail.trim()}` : '';
    throw new Error(`the simulator did not start: ${error instanceof Error ? error.message : String(error)}${detail}`);
  }
}

export function firstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => finish(new Error(`no readiness line within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code: number | null) => finish(new Error(`the simulator exited (code ${code}) before it was ready`));
    function finish(result: Error | string): void {
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.close();
      if (typeof result === 'string') resolve(result);
      else reject(result);
    }
    lines.once('line', (line) => finish(line));
    child.once('exit', onExit);
  });
}
