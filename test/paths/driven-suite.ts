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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_FILE, type Plan } from './path-plan.js';
import { runPath, type PathResult } from './run-path.js';
import { EXCUSED } from './excused.js';
import { pathsSchema, type StoreChoice } from './driven-store.js';
import { drivenOnPostgres } from './on-postgres.js';

export const SHARDS = 4;
/** The PostgreSQL shards drive a selection (on-postgres.ts): two files are enough. */
export const PG_SHARDS = 2;
export const readPlan = (): Plan => JSON.parse(readFileSync(PLAN_FILE, 'utf8')) as Plan;

/** The results of one shard, for the end-of-run summary. */
export interface ShardReport {
  shard: number;
  /** False when a filter (PATHS_ONLY) ran part of it: the baseline is not judged on a partial run. */
  complete: boolean;
  results: PathResult[];
}

/**
 * `postgres`: the same checks on the PostgreSQL store (driven-store.ts), for the paths
 * on-postgres.ts selects, on a schema of the file's own emptied after each path; the reports go
 * to `paths-pg` (path-coverage.ts prints them; the baseline is the file run's). One thing more
 * is asked there: a path the file store drives is driven on PostgreSQL too (a path undriven on
 * PostgreSQL is run again on the file store in the same test, and must be undriven there for
 * the same reason).
 */
export function drivenShard(shard: number, on: StoreChoice['kind'] = 'file'): void {
  const plan = readPlan();
  const only = process.env.PATHS_ONLY ? new RegExp(process.env.PATHS_ONLY) : null;
  const shards = on === 'postgres' ? PG_SHARDS : SHARDS;
  const mine = plan.paths.filter((p) => on === 'file' || drivenOnPostgres(p)).filter((_, i) => i % shards === shard);
  const results: PathResult[] = [];
  let store: StoreChoice = { kind: 'file' };
  describe(`driven paths${on === 'postgres' ? ' on PostgreSQL' : ''}, shard ${shard + 1} of ${shards}`, () => {
    if (on === 'postgres') {
      const schema = pathsSchema();
      beforeAll(async () => void (store = await schema.open()));
      afterAll(() => schema.close());
    }
    for (const planned of mine) {
      if (only && !only.test(planned.target)) continue;
      it(planned.target, async () => {
        const result = await runPath(planned, store);
        results.push(result);
        // PATHS_VERBOSE=1: each path's result on the console (why a path is undriven).
        if (process.env.PATHS_VERBOSE === '1') console.log(result.status, planned.target, result.status === 'undriven' ? `:: ${result.reason}` : result.status === 'disagree' ? `:: ${result.problem}` : '');
        if (result.status === 'disagree') expect.fail(`the running system disagrees with the model: ${result.problem}`);
        if (result.status === 'undriven' && EXCUSED[planned.target]) return;
        if (result.status === 'undriven' && store.kind === 'postgres') {
          const onFile = await runPath(planned);
          expect(onFile.status === 'undriven' ? onFile.reason : `${onFile.status} on the file store`, `undriven on PostgreSQL only: ${result.reason}`).toBe(result.reason);
        }
      }, 60_000);
    }
    afterAll(() => {
      const dir = process.env.ARGUS_TEST_RUN_DIR;
      if (!dir) return;
      const reports = path.join(dir, on === 'postgres' ? 'paths-pg' : 'paths');
      mkdirSync(reports, { recursive: true });
      // Complete only when every planned path of the shard ran to a result (no filter, no `-t`, no crash).
      const report: ShardReport = { shard, complete: only === null && results.length === mine.length, results };
      writeFileSync(path.join(reports, `shard-${shard}.json`), JSON.stringify(report));
    });
  });
}
