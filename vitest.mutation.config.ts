import { defineConfig } from 'vitest/config';

/**
 * The fast unit tests of the pure core, and only those: StrykerJS (`npm run mutation`) runs
 * them once per mutant, so no loopback server, child process or integration test belongs here.
 */
export default defineConfig({
  test: {
    include: [
      'test/machines/*.test.ts',
      'test/reducer/*.test.ts',
      'test/a2a/normalize.test.ts',
      'test/a2a/capabilities.test.ts',
      'test/unit/remote-text.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
  },
});
