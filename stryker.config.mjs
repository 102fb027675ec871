// Mutation testing of the pure core: the statecharts, the reducer, the fingerprint, the
// remote-text boundary and capability detection. Not part of `npm test`; run `npm run mutation`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    'machines/**/*.ts',
    'services/reducer/*.ts',
    'adapters/a2a/sanitize.ts',
    'adapters/a2a/normalize.ts',
    'adapters/a2a/capabilities.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  incremental: false,
  // Static mutants (code run at import: the chart's config object, zod schemas, constant tables)
  // each cost a whole-suite run — ~99% of the time. `npm run mutation -- --ignoreStatic false` includes them.
  ignoreStatic: true,
  timeoutMS: 30_000,
  ignorePatterns: ['dist', 'coverage', 'reports', '.tmp'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
};
