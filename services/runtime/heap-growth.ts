/**
 * How far V8 lets the old generation grow past what survived the last full collection. A
 * supervisor keeps a large, stable live set (at 10,000 campaigns ~100 MB of actors, views and
 * facts) and makes a little garbage per read; V8's own heuristic then lets the heap reach up to
 * 4x the live set before collecting, so RSS settles near 400-500 MB although the live set is
 * not growing. `serve` owns its process and sets growth to +50% (1.5x live) by default: the heap
 * follows the live set (no fixed cap that a larger fleet could run out of), at the cost of more
 * frequent full collections, which a sweep every minute or two barely notices.
 *
 * It is applied once `start()` has loaded every campaign: while the heap grows from nothing to
 * its live set, +50% would mean a full collection per 50% of growth (at 10,000 campaigns the
 * boot load took ~20% longer with it from the start).
 *
 * A plugin host that embeds the library owns its process and its V8 flags; nothing here runs
 * unless `serve` (or the benchmark, which measures what `serve` runs) calls it.
 * @module
 */
import v8 from 'node:v8';

export const HEAP_GROWTH_ENV = 'ARGUS_SUPERVISOR_HEAP_GROWTH_PERCENT';
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;
/** 0 leaves V8's own heuristic; otherwise the old generation may grow this much past live. */
export const HEAP_GROWTH_BOUNDS = { min: 10, max: 300 } as const;

export class HeapGrowthError extends Error {
  readonly code = 'invalid_heap_growth';
}

/** The growth percent from the environment value; undefined or empty is the default. */
export function parseHeapGrowthPercent(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_HEAP_GROWTH_PERCENT;
  const n = Number(raw.trim());
  if (n === 0) return 0;
  if (!Number.isInteger(n) || n < HEAP_GROWTH_BOUNDS.min || n > HEAP_GROWTH_BOUNDS.max) {
    throw new HeapGrowthError(`${HEAP_GROWTH_ENV} must be 0 (V8's own heuristic) or a whole number from ${HEAP_GROWTH_BOUNDS.min} to ${HEAP_GROWTH_BOUNDS.max}.`);
  }
  return n;
}

/** True when node was started with its own `--heap-growing-percent` (argv or NODE_OPTIONS). */
export function heapGrowthFlagGiven(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

/**
 * What `serve` applies: the environment variable when set; else the default, unless node was
 * started with its own flag (an operator's explicit flag is never silently overridden).
 */
export function heapGrowthForServe(env: NodeJS.ProcessEnv, execArgv: readonly string[]): number {
  const raw = env[HEAP_GROWTH_ENV];
  if ((raw === undefined || raw.trim() === '') && heapGrowthFlagGiven(execArgv, env.NODE_OPTIONS)) return 0;
  return parseHeapGrowthPercent(raw);
}

/** Applies the growth (from the next full collection on); 0 changes nothing. */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
