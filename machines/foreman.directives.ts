/**
 * What a Foreman directive means for this supervisor (issue 9, "Directive mapping, exactly").
 * Foreman is a sentinel, not an authority: no directive acts on the remote by itself. A route
 * names who looks next: nobody (`none`), Argus for a review/planning/decision turn, or the
 * candidate-completion path where only Argus's Reviewer can complete the mission.
 * Pure: no I/O, imports nothing (the adapter re-declares the action list; a test pins both).
 * @module
 */

/** Upstream `foreman.models.events.InterventionType` values, in upstream order. */
export const FOREMAN_DIRECTIVES = [
  'CONTINUE',
  'START_WORKER',
  'START_VERIFIER',
  'STEER_WORKER',
  'STOP_WORKER',
  'RETRY_WORKER',
  'FINISH',
  'ESCALATE',
] as const;

export type ForemanDirective = (typeof FOREMAN_DIRECTIVES)[number];

export type ForemanRoute =
  | 'none'
  | 'argus-review'
  | 'argus-planning'
  | 'argus-decision'
  | 'candidate-completion'
  | 'argus-review-or-needs-you';

/** The mapping, one line per directive. */
export const DIRECTIVE_ROUTES: Readonly<Record<ForemanDirective, ForemanRoute>> = Object.freeze({
  CONTINUE: 'none',
  START_VERIFIER: 'argus-review',
  STEER_WORKER: 'argus-planning',
  START_WORKER: 'argus-planning',
  STOP_WORKER: 'argus-decision',
  RETRY_WORKER: 'argus-planning',
  // FINISH never completes anything: it only marks a candidate for the Reviewer to judge.
  FINISH: 'candidate-completion',
  ESCALATE: 'argus-review-or-needs-you',
});

export function isForemanDirective(value: unknown): value is ForemanDirective {
  return typeof value === 'string' && (FOREMAN_DIRECTIVES as readonly string[]).includes(value);
}

export function routeForDirective(directive: ForemanDirective): ForemanRoute {
  return DIRECTIVE_ROUTES[directive];
}

/** True for the routes that ask for an Argus turn; `none` and `candidate-completion` wake nobody. */
export function routeWakesArgus(route: ForemanRoute): boolean {
  return route === 'argus-review' || route === 'argus-planning' || route === 'argus-decision' || route === 'argus-review-or-needs-you';
}
