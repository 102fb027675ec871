/** Runs in the vitest main process: appends each console line a test printed to the run directory. */
import { appendFileSync } from 'node:fs';
import path from 'node:path';

export function recordConsole(log: string, type: 'stdout' | 'stderr'): undefined {
  const run = process.env.ARGUS_TEST_RUN_DIR;
  if (run) appendFileSync(path.join(run, `console.${type}.log`), log);
  return undefined;
}
