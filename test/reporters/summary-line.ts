/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, that any CI can read
 * without knowing vitest's own summary format.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A module that failed to load has no tests but is still a failure.
      if (mod.state() === 'failed' && !mod.children.size) failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
