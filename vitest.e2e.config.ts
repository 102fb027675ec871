import { defineConfig } from 'vitest/config';
import { recordConsole } from './test/setup/console-record.js';

/**
 * `npm run test:e2e`: the operator page in Debian's Chromium (playwright-core, never a
 * downloaded browser) against real `serve` and simulator children. Kept out of `npm test`
 * (vitest.config.ts excludes test/e2e); the same global setup refuses a stale dist/ and runs
 * the end-of-run canary scan over everything the run wrote.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One browser at a time on a small machine.
    fileParallelism: false,
    globalSetup: ['./test/setup/dist-fresh.ts', './test/setup/canary-scan.ts'],
    onConsoleLog: recordConsole,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
