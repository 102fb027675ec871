/**
 * Global teardown of the driven-path suite (test/paths): adds up the shards' results, writes
 * `coverage/statechart.json`'s driven part (`coverage/paths.json`), prints the summary line CI
 * logs show, and fails the run when driven coverage fell below the committed baseline
 * (`test/machines/path-baseline.json`). A run that did not run every shard in full (a filtered
 * or partial run) prints what it saw and judges nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PLAN = path.join(REPO_ROOT, 'test/paths/plan.json');
const BASELINE = path.join(REPO_ROOT, 'test/machines/path-baseline.json');
const SHARDS = 4;

type Result = { status: 'driven' | 'undriven' | 'disagree'; target: string; taken?: string[]; guards?: string[]; reason?: string; problem?: string };

export interface PathCoverage {
  generated: number;
  driven: number;
  undriven: { target: string; reason: string }[];
  excused: { target: string; reason: string }[];
  disagreed: number;
  transitions: { declared: number; pure: number; driven: number };
  guardOutcomes: { declared: number; pure: number; driven: number };
}

export function summaryLine(c: PathCoverage): string {
  return `generated paths: ${c.generated} generated, ${c.driven} driven through the running system, covering ${c.transitions.driven}/${c.transitions.declared} transitions and ${c.guardOutcomes.driven}/${c.guardOutcomes.declared} guard outcomes (${c.excused.length} excused)`;
}

export async function setup(): Promise<() => Promise<void>> {
  return async () => {
    const dir = process.env.ARGUS_TEST_RUN_DIR;
    if (dir) postgresLine(path.join(dir, 'paths-pg'));
    if (!dir || !existsSync(path.join(dir, 'paths'))) return;
    const reports = readdirSync(path.join(dir, 'paths')).map((f) => JSON.parse(readFileSync(path.join(dir, 'paths', f), 'utf8')) as { complete: boolean; results: Result[] });
    const plan = JSON.parse(readFileSync(PLAN, 'utf8')) as { declared: string[]; declaredOutcomes: string[]; pureOutcomes: string[]; paths: { target: string }[] };
    const { EXCUSED } = (await import('../paths/excused.js')) as { EXCUSED: Record<string, string> };
    const results = reports.flatMap((r) => r.results);
    const taken = new Set<string>();
    const outcomes = new Set<string>();
    for (const r of results) {
      // A path that stopped part way still drove what it took before it stopped.
      if (r.status === 'disagree') continue;
      for (const t of r.taken ?? []) taken.add(t);
      for (const g of r.guards ?? []) outcomes.add(g);
    }
    const declared = new Set(plan.declared);
    const coverage: PathCoverage = {
      generated: plan.paths.length,
      driven: results.filter((r) => r.status === 'driven').length,
      undriven: results.filter((r) => r.status === 'undriven' && !EXCUSED[r.target]).map((r) => ({ target: r.target, reason: r.reason ?? '' })),
      excused: results.filter((r) => r.status === 'undriven' && EXCUSED[r.target]).map((r) => ({ target: r.target, reason: EXCUSED[r.target]! })),
      disagreed: results.filter((r) => r.status === 'disagree').length,
      transitions: { declared: declared.size, pure: plan.paths.filter((p) => declared.has(p.target)).length, driven: [...taken].filter((t) => declared.has(t)).length },
      guardOutcomes: { declared: plan.declaredOutcomes.length, pure: plan.pureOutcomes.length, driven: [...outcomes].filter((o) => plan.declaredOutcomes.includes(o)).length },
    };
    mkdirSync(path.join(REPO_ROOT, 'coverage'), { recursive: true });
    writeFileSync(path.join(REPO_ROOT, 'coverage', 'paths.json'), JSON.stringify({ ...coverage, transitionsDriven: [...taken].sort(), outcomesDriven: [...outcomes].sort() }, null, 2));
    // The graph test's coverage/statechart.json (the pure traversal's) gains the driven side.
    const chart = path.join(REPO_ROOT, 'coverage', 'statechart.json');
    if (existsSync(chart)) {
      const pure = JSON.parse(readFileSync(chart, 'utf8')) as Record<string, unknown>;
      writeFileSync(chart, JSON.stringify({ ...pure, driven: { line: summaryLine(coverage), ...coverage } }, null, 2));
    }
    const complete = reports.length === SHARDS && reports.every((r) => r.complete);
    process.stdout.write(`\n${summaryLine(coverage)}${complete ? '' : ' [partial run: the baseline is not judged]'}\n`);
    const problems: string[] = [];
    // The excused list names planned paths only, five at most (issue 21).
    const targets = new Set(plan.paths.map((p) => p.target));
    for (const target of Object.keys(EXCUSED)) if (!targets.has(target)) problems.push(`excused path not in the plan: ${target}`);
    if (Object.keys(EXCUSED).length > 5) problems.push(`${Object.keys(EXCUSED).length} excused paths, at most 5`);
    if (!complete) return fail(problems);
    const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as { driven: number; transitions: number; guardOutcomes: number; transitionsNotDriven: string[] };
    const drops: string[] = problems;
    // By name too, not only by count: a transition that stops being driven while another starts
    // is a drop. The baseline names the declared transitions it allows undriven (the excused).
    const allowed = new Set(baseline.transitionsNotDriven);
    for (const t of declared) if (!taken.has(t) && !allowed.has(t)) drops.push(`no longer driven: ${t}`);
    if (coverage.driven < baseline.driven) drops.push(`${coverage.driven} paths driven, baseline ${baseline.driven}`);
    if (coverage.transitions.driven < baseline.transitions) drops.push(`${coverage.transitions.driven} transitions driven, baseline ${baseline.transitions}`);
    if (coverage.guardOutcomes.driven < baseline.guardOutcomes) drops.push(`${coverage.guardOutcomes.driven} guard outcomes driven, baseline ${baseline.guardOutcomes}`);
    fail(drops);
  };
}

/**
 * The PostgreSQL shards' line (test/paths/on-postgres.ts selects their paths). Nothing to judge
 * here: each of their tests fails on a disagreement, and on a path undriven there but not on
 * the file store.
 */
function postgresLine(dir: string): void {
  if (!existsSync(dir)) return;
  const reports = readdirSync(dir).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { complete: boolean; results: Result[] });
  const results = reports.flatMap((r) => r.results);
  const count = (status: Result['status']) => results.filter((r) => r.status === status).length;
  process.stdout.write(`\ndriven paths on PostgreSQL: ${results.length} run, ${count('driven')} driven, ${count('undriven')} undriven as on the file store, ${count('disagree')} disagreed${reports.every((r) => r.complete) ? '' : ' [partial run]'}\n`);
}

/** A failed check fails the run the way the canary scan does: a line on stderr and exit code 1 (a throwing teardown would only be logged). */
function fail(problems: string[]): void {
  if (!problems.length) return;
  process.stderr.write(`driven paths: ${problems.join('; ')} (test/machines/path-baseline.json, test/paths/excused.ts)\n`);
  process.exitCode = 1;
}
