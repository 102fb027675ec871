/**
 * Sums chaos runs into the qualification's verdict: the violation counts, how much was in
 * doubt and resolved, and which (flow, kill point) pairs of the matrix were really covered.
 * @module
 */
import { MATRIX, pairKey } from './chaos-plan.js';
import type { RunResult } from './chaos-run.js';
import type { Reconciled } from './chaos-reconcile.js';

export const VIOLATIONS = ['duplicates', 'lost', 'outcomeMismatches', 'unjournaled', 'unresolved'] as const;

/** A run proves something only if its supervisor died by SIGKILL, at its point. */
export const provedItsPoint = (r: RunResult) => r.killed && r.diedAtPoint;

/** A run that broke a rule: a non-zero count, no proof of its point, or a failed takeover. */
export const violated = (r: RunResult): boolean =>
  VIOLATIONS.some((k) => r[k] !== 0) || !provedItsPoint(r) || (r.replica !== undefined && (r.replica.rehomeFailed || !r.replica.settled));

/** The reconciled counts summed over every run, plus what the runs themselves proved. */
export interface ChaosSummary extends Reconciled {
  runs: number;
  notKilledBySigkill: number;
  didNotDieAtPoint: number;
  diedMidFlow: number;
  covered: number;
  pairs: number;
  missing: string[];
  /** `--replicas`: runs whose host died and no survivor took over in time, or whose live host did not answer what it was relayed. */
  takeoverFailures: number;
  /** `--replicas`: runs that killed the host, the replica the flow was sent to, another one; flows relayed. */
  victims: { host: number; entry: number; bystander: number };
  relayed: number;
  /** `--replicas`: the slowest takeover after the host's kill, ms (0 when none). */
  maxRehomeMs: number;
  /** `--replicas`: runs in which the campaign answered 404 campaign_not_found after its takeover (before its new owner loaded it). */
  notFoundAfterTakeover: number;
  /** `--replicas`: runs in which resolve_intent answered 409 effect_in_flight (the new owner still rotating the epoch) and was asked again. */
  busyAfterTakeover: number;
}

export function summarize(results: readonly RunResult[]): ChaosSummary {
  const sum = (pick: (r: RunResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const covered = new Set(results.filter(provedItsPoint).map(pairKey));
  return {
    runs: results.length,
    duplicates: sum((r) => r.duplicates),
    lost: sum((r) => r.lost),
    outcomeMismatches: sum((r) => r.outcomeMismatches),
    unjournaled: sum((r) => r.unjournaled),
    unresolved: sum((r) => r.unresolved),
    inDoubtAtKill: sum((r) => r.inDoubtAtKill),
    resolvedByReadback: sum((r) => r.resolvedByReadback),
    appliedRemote: sum((r) => r.appliedRemote),
    notKilledBySigkill: results.filter((r) => !r.killed).length,
    didNotDieAtPoint: results.filter((r) => !r.diedAtPoint).length,
    diedMidFlow: results.filter((r) => r.diedMidFlow).length,
    covered: MATRIX.filter((p) => covered.has(pairKey(p))).length,
    pairs: MATRIX.length,
    missing: MATRIX.filter((p) => !covered.has(pairKey(p))).map(pairKey),
    takeoverFailures: results.filter((r) => r.replica && (r.replica.rehomeFailed || !r.replica.settled)).length,
    victims: {
      host: results.filter((r) => r.replica?.victim === 'host').length,
      entry: results.filter((r) => r.replica?.victim === 'entry').length,
      bystander: results.filter((r) => r.replica?.victim === 'bystander').length,
    },
    relayed: results.filter((r) => r.replica?.relayed).length,
    maxRehomeMs: results.reduce((m, r) => Math.max(m, r.replica?.rehomeMs ?? 0), 0),
    notFoundAfterTakeover: results.filter((r) => (r.replica?.notFoundAfterTakeover ?? 0) > 0).length,
    busyAfterTakeover: results.filter((r) => (r.replica?.busyAfterTakeover ?? 0) > 0).length,
  };
}

export const passed = (s: ChaosSummary): boolean =>
  s.duplicates === 0 &&
  s.lost === 0 &&
  s.outcomeMismatches === 0 &&
  s.unjournaled === 0 &&
  s.unresolved === 0 &&
  s.notKilledBySigkill === 0 &&
  s.didNotDieAtPoint === 0 &&
  s.takeoverFailures === 0 &&
  s.missing.length === 0;
