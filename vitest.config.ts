import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { recordConsole } from './test/setup/console-record.js';
import LongFirstSequencer from './test/setup/long-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests run on their own (npm run test:e2e, vitest.e2e.config.ts).
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    // Integration tests start real loopback servers and child processes; give them room
    // without hiding hangs.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's own default is one worker less than the cores: on a 2-core machine a single worker,
    // and the suite's waiting (the real-time lease file's two minutes, loopback servers, child
    // processes) never overlaps. One more than the cores: the real-time lease file mostly waits,
    // so while it runs the cores still have a CPU-bound file each (2 cores: 10.5 min with two
    // workers, measured in the commit that set three).
    maxWorkers: availableParallelism() + 1,
    // A worker runs its files one after another in one module graph instead of a fresh one per
    // file: importing the graph again was about half of every file's time. So a test file
    // leaves no global state behind: fake timers, spies and process.env are restored after it.
    isolate: false,
    // The real-time lease file first, whatever the results cache holds (test/setup/long-first-sequencer.ts).
    sequence: { sequencer: LongFirstSequencer },
    // First: refuse a stale dist/. Then: the run directory and the end-of-run canary scan
    // (it sets TMPDIR and ARGUS_TEST_RUN_DIR before any worker is forked, so workers inherit them).
    // Last: the driven paths' summary line and baseline (its teardown runs before the scan's).
    globalSetup: ['./test/setup/dist-fresh.ts', './test/setup/canary-scan.ts', './test/setup/path-coverage.ts'],
    // Console output of tests is scanned too; returning undefined still prints it.
    onConsoleLog: recordConsole,
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
