/**
 * The driven-path suite (issue 21 items 2–4): the committed plan's paths, split over a few test
 * files so vitest's workers run them in parallel, each path in its own world (state root,
 * simulator, supervisor). A path the running system disagrees with fails its test; a path no
 * driver can reproduce is recorded as undriven with its reason (see run-path.ts). Each shard
 * writes its results under the run directory; test/setup/path-coverage.ts adds them up at the
 * end of the run, prints the summary line and holds the baseline.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLAN_FILE, type Plan } from './path-plan.js';
import { runPath, type PathResult } from './run-path.js';
import { EXCUSED } from './excused.js';

export const SHARDS = 4;
export const readPlan = (): Plan => JSON.parse(readFileSync(PLAN_FILE, 'utf8')) as Plan;

/** The results of one shard, for the end-of-run summary. */
export interface ShardReport {
  shard: number;
  /** False when a filter (PATHS_ONLY) ran part of it: the baseline is not judged on a partial run. */
  complete: boolean;
  results: PathResult[];
}

export function drivenShard(shard: number): void {
  const plan = readPlan();
  const only = process.env.PATHS_ONLY ? new RegExp(process.env.PATHS_ONLY) : null;
  const mine = plan.paths.filter((_, i) => i % SHARDS === shard);
  const results: PathResult[] = [];
  describe(`driven paths, shard ${shard + 1} of ${SHARDS}`, () => {
    for (const planned of mine) {
      if (only && !only.test(planned.target)) continue;
      it(planned.target, async () => {
        const result = await runPath(planned);
        results.push(result);
        // PATHS_VERBOSE=1: each path's result on the console (why a path is undriven).
        if (process.env.PATHS_VERBOSE === '1') console.log(result.status, planned.target, result.status === 'undriven' ? `:: ${result.reason}` : result.status === 'disagree' ? `:: ${result.problem}` : '');
        if (result.status === 'disagree') expect.fail(`the running system disagrees with the model: ${result.problem}`);
        if (result.status === 'undriven' && EXCUSED[planned.target]) return;
      }, 60_000);
    }
    afterAll(() => {
      const dir = process.env.ARGUS_TEST_RUN_DIR;
      if (!dir) return;
      mkdirSync(path.join(dir, 'paths'), { recursive: true });
      // Complete only when every planned path of the shard ran to a result (no filter, no `-t`, no crash).
      const report: ShardReport = { shard, complete: only === null && results.length === mine.length, results };
      writeFileSync(path.join(dir, 'paths', `shard-${shard}.json`), JSON.stringify(report));
    });
  });
}
