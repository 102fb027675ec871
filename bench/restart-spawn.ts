/**
 * Starts `restart-child.js` in a new node process on the benchmark's state root and reads its
 * one JSON line. Its stderr is passed through to ours, so whoever records the benchmark's
 * output records the child's too.
 * @module
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tracked } from './child-processes.js';
import type { RestartInput, RestartResult } from './restart-child.js';

/** dist/bench/restart-spawn.js → dist/bench/restart-child.js */
export const RESTART_CHILD_PATH = fileURLToPath(new URL('./restart-child.js', import.meta.url));

export function runRestartChild(input: RestartInput, timeoutMs = 15 * 60_000): Promise<RestartResult> {
  // Only PATH: the child needs no secret, and the config travels in argv, not the environment.
  const child = tracked(
    spawn(process.execPath, [RESTART_CHILD_PATH, JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH },
    }),
  );
  child.stderr.pipe(process.stderr, { end: false });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trimEnd().split('\n').at(-1) ?? '';
      if (code !== 0 || !line) return reject(new Error(`the restart child exited with ${signal ?? code} (stdout: ${line || 'empty'})`));
      try {
        resolve(JSON.parse(line) as RestartResult);
      } catch {
        reject(new Error(`the restart child printed no JSON line: ${line}`));
      }
    });
  });
}
