/**
 * Runs the files known to take minutes first, whatever vitest's results cache says. Without a
 * cache (a fresh checkout, CI) vitest orders files by size, largest first, and the small
 * real-time lease file (about 2 minutes of waiting) would start last, so the run would end with
 * one worker idle for minutes beside it; started first, its waiting overlaps the rest of the suite.
 * The longest CPU-bound files (the chart traversal's two users, the soak) come next, so the
 * short files fill in around them at the end instead of one long file running alone.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Paths (from the repository root) of the files that take longest, longest first. */
export const LONG_FILES = ['test/supervisor/lease-real-time.test.ts', 'test/machines/campaign.graph.test.ts', 'test/supervisor/api-policy.test.ts', 'test/bench/soak.test.ts'];

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = LONG_FILES.findIndex((f) => spec.moduleId.endsWith(`/${f}`));
      return i === -1 ? LONG_FILES.length : i;
    };
    // Array.prototype.sort is stable: the rest keep the base order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
