/**
 * Crash-injection points for the chaos qualification (`npm run chaos`). Inert unless the
 * environment names a point: then the process SIGKILLs itself exactly there, which is how the
 * chaos harness proves that a crash at any step of a mutation never duplicates or loses it.
 * `after_create_write` (a create's document is durable, its answer not yet sent) is a test's.
 * The variable is read once at start; nothing else in the product changes behaviour with it.
 * @module
 */
export const FAULT_POINTS = ['after_intent_write', 'after_send', 'after_response', 'before_outcome_write', 'after_create_write'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

const armed = ((): FaultPoint | null => {
  const value = process.env.ARGUS_SUPERVISOR_FAULT_POINT;
  return (FAULT_POINTS as readonly string[]).includes(value ?? '') ? (value as FaultPoint) : null;
})();

/** Kills this process with SIGKILL when `point` is the armed one (chaos runs only). */
export function crashPoint(point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}

export const isArmed = (point: FaultPoint): boolean => armed === point;
