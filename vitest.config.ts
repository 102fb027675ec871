import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Integration tests start real loopback servers and child processes; give them room
    // without hiding hangs.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './test/reporters/summary-line.ts'],
  },
});
