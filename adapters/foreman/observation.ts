/**
 * The one JSON object the Foreman sentinel sees: upstream `FactoryObservation` field names only
 * (upstream uses pydantic `extra="forbid"`, so an extra key is a hard validation error there),
 * built from campaign facts, every string passed through the caller's sanitizer and capped, the
 * whole object at most FOREMAN_OBSERVATION_MAX_BYTES of JSON.
 *
 * Field set pinned to thruwire/foreman `src/foreman/observation.py` at 69ed5b95 (see
 * runtime/source-lock.json): that version has `previous_result`; older/forked versions have
 * `previous_assessment` instead, which the shim maps (both are null here: the supervisor does
 * not replay Foreman's earlier scores to it).
 *
 * This module cannot import adapters/a2a (dependency rule `foreman-cannot-reach-a2a`): the
 * sanitizer is a dependency, in practice adapters/a2a/sanitize's `sanitizeRemoteText` bound to
 * the configured secrets by the composition root.
 * @module
 */

/** Sanitizes one hostile string and caps it (UTF-16 units). Must never return a secret. */
export type Sanitize = (text: string, cap: number) => string;

/** Caps, each in UTF-16 code units of the sanitized text or in entries. */
export const FOREMAN_OBSERVATION_CAPS = {
  /** The campaign objective: same cap as the Argus envelope's objective. */
  originalJob: 1_000,
  /** Campaign id, attempt ids: identifier-sized. */
  identifier: 128,
  /** Attempts sent, newest last (upstream default worker_history_limit is 10; 5 is plenty here). */
  workers: 5,
  /** Per-attempt output tail: enough for the last status lines. */
  workerOutputTail: 1_024,
  /** The latest attempt's status text. */
  latestOutput: 2_048,
  /** Artifact names, as `changed_files`. */
  changedFiles: 20,
  fileName: 256,
  /** Metric / evaluation summaries, as `test_results`. */
  testResults: 10,
  /** A short label or a one-line summary. */
  label: 64,
  summary: 200,
  verificationResults: 5,
  verificationSummary: 500,
  recentEvents: 10,
  failures: 10,
} as const;

/** Upstream `FactoryObservation` is checked against this many bytes of JSON before it leaves. */
export const FOREMAN_OBSERVATION_MAX_BYTES = 16 * 1024;

/** Upstream `FactoryStatus` values (foreman.models.state). */
export type ForemanFactoryStatus = 'CREATED' | 'RUNNING' | 'FINISHED' | 'ESCALATED' | 'FAILED' | 'CANCELLED';
/** Upstream `WorkerStatus` values (foreman.models.worker). */
export type ForemanWorkerStatus = 'pending' | 'running' | 'completed' | 'failed' | 'stopped' | 'timed_out' | 'cancelled';

/** What the supervisor knows about one remote attempt (a "worker" to Foreman). */
export interface ForemanAttemptFact {
  attemptId: string;
  status: ForemanWorkerStatus;
  attempt: number;
  exitCode: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  elapsedSeconds: number | null;
  /** Remote status text / output tail (hostile). */
  outputTail: string;
}

export interface ForemanCampaignFacts {
  campaignId: string;
  objective: string;
  status: ForemanFactoryStatus;
  /** How many Foreman assessments this campaign has had, this one included (≥ 1). */
  assessment: number;
  attempts: readonly ForemanAttemptFact[];
  /** Attempt ids still running on the remote (subset of `attempts`). */
  activeAttemptIds: readonly string[];
  latestStatusText: string | null;
  artifacts: readonly string[];
  metrics: readonly { name: string; passed: number; failed: number; summary: string }[];
  evaluations: readonly { attemptId: string; passed: boolean; summary: string }[];
  recentEvents: readonly { ts: string; kind: string; summary: string }[];
  failures: readonly string[];
  elapsedSeconds: number;
  /** The previous Foreman directive for this campaign, if any (lets upstream propose RETRY after STOP). */
  previousDirective: { action: string; reason: string } | null;
}

/** Exactly the upstream field names (pinned version); values are JSON. */
export interface FactoryObservationJson {
  original_job: string;
  run_id: string;
  factory_status: ForemanFactoryStatus;
  iteration: number;
  active_workers: Record<string, unknown>[];
  worker_history: Record<string, unknown>[];
  latest_worker_output: string;
  worker_exit_status: Record<string, number | null>;
  worker_elapsed_seconds: Record<string, number>;
  git_status: string;
  git_diff: string;
  changed_files: string[];
  agents_md_path: null;
  agents_md_instructions: string;
  test_results: Record<string, unknown>[];
  verification_results: Record<string, unknown>[];
  recent_events: Record<string, unknown>[];
  previous_result: null;
  previous_intervention: { action: string; reason: string; assessment_iteration: number } | null;
  attempts: number;
  failures: string[];
  elapsed_factory_seconds: number;
}

export class ForemanObservationError extends Error {
  constructor(readonly code: 'observation_too_large' | 'observation_invalid', message: string) {
    super(message);
    this.name = 'ForemanObservationError';
  }
}

const C = FOREMAN_OBSERVATION_CAPS;
const UPSTREAM_ACTIONS = new Set(['CONTINUE', 'START_WORKER', 'START_VERIFIER', 'STEER_WORKER', 'STOP_WORKER', 'RETRY_WORKER', 'FINISH', 'ESCALATE']);
const nonNegative = (n: number | null): number => (n !== null && Number.isFinite(n) && n > 0 ? n : 0);
/** The newest `n` entries; `slice(-0)` would be all of them. */
const last = <T>(list: readonly T[], n: number): T[] => (n > 0 ? list.slice(-n) : []);
const intAtLeast = (n: number, min: number): number => (Number.isInteger(n) && n >= min ? n : min);

/** Output caps that shrink when the whole object is over budget (see shrinkSteps). */
interface Budget { outputTail: number; latest: number; files: number; events: number; tests: number; failures: number; verifications: number }
const FULL: Budget = { outputTail: C.workerOutputTail, latest: C.latestOutput, files: C.changedFiles, events: C.recentEvents, tests: C.testResults, failures: C.failures, verifications: C.verificationResults };
/** Cheapest evidence goes first; the latest output and the objective stay longest. */
const shrinkSteps: readonly Partial<Budget>[] = [
  { events: 3 },
  { outputTail: 256, tests: 3 },
  { files: 5, failures: 3, verifications: 2 },
  { outputTail: 0, events: 0, latest: 512 },
  // Last resort for text that is all multi-byte characters: keep the objective, the latest
  // output and the attempts' exit codes, which is what every upstream check needs most.
  { files: 0, tests: 0, failures: 1, verifications: 1 },
];

function build(facts: ForemanCampaignFacts, sanitize: Sanitize, b: Budget): FactoryObservationJson {
  const s = (text: string | null | undefined, cap: number): string => (text ? sanitize(text, cap) : '');
  const id = (text: string): string => s(text, C.identifier) || 'unknown';
  const attempts = last(facts.attempts, C.workers);
  const active = new Set(facts.activeAttemptIds);
  // Upstream's _bounded_worker keys (observation.py), with what a remote attempt can say.
  const worker = (a: ForemanAttemptFact): Record<string, unknown> => ({
    worker_id: id(a.attemptId),
    worker_type: 'coding',
    status: a.status,
    attempt: intAtLeast(a.attempt, 1),
    started_at: a.startedAt ? s(a.startedAt, 40) : null,
    finished_at: a.finishedAt ? s(a.finishedAt, 40) : null,
    elapsed_seconds: a.elapsedSeconds === null ? null : nonNegative(a.elapsedSeconds),
    exit_code: a.exitCode,
    stdout_tail: b.outputTail > 0 ? s(a.outputTail, b.outputTail) : '',
    stderr_tail: '',
    termination_reason: null,
    supports_steering: false,
    steer_count: 0,
    last_steered_at: null,
    steering_history: [],
  });
  const previous = facts.previousDirective && UPSTREAM_ACTIONS.has(facts.previousDirective.action)
    ? { action: facts.previousDirective.action, reason: s(facts.previousDirective.reason, C.summary) || 'previous directive', assessment_iteration: intAtLeast(facts.assessment - 1, 1) }
    : null;
  return {
    original_job: s(facts.objective, C.originalJob) || '(no objective given)',
    run_id: id(facts.campaignId),
    factory_status: facts.status,
    iteration: intAtLeast(facts.assessment, 1),
    active_workers: attempts.filter((a) => active.has(a.attemptId)).map(worker),
    worker_history: attempts.map(worker),
    latest_worker_output: s(facts.latestStatusText, b.latest),
    worker_exit_status: Object.fromEntries(attempts.map((a) => [id(a.attemptId), a.exitCode])),
    worker_elapsed_seconds: Object.fromEntries(attempts.filter((a) => active.has(a.attemptId)).map((a) => [id(a.attemptId), nonNegative(a.elapsedSeconds)])),
    // The remote is not a git repository we can read: these stay empty by construction.
    git_status: '',
    git_diff: '',
    changed_files: facts.artifacts.slice(0, b.files).map((f) => s(f, C.fileName)).filter(Boolean),
    agents_md_path: null,
    agents_md_instructions: '',
    test_results: facts.metrics.slice(0, b.tests).map((m) => ({ source: 'remote_metrics', name: s(m.name, C.label), passed: intAtLeast(m.passed, 0), failed: intAtLeast(m.failed, 0), summary: s(m.summary, C.summary) })),
    verification_results: last(facts.evaluations, b.verifications).map((v) => ({ worker_id: id(v.attemptId), passed: v.passed === true, summary: s(v.summary, C.verificationSummary) })),
    recent_events: last(facts.recentEvents, b.events).map((e) => ({ timestamp: s(e.ts, 40), event_type: s(e.kind, C.label), summary: s(e.summary, C.summary) })),
    previous_result: null,
    previous_intervention: previous,
    attempts: facts.attempts.length,
    failures: last(facts.failures, b.failures).map((f) => s(f, C.summary)).filter(Boolean),
    elapsed_factory_seconds: nonNegative(facts.elapsedSeconds),
  };
}

export const observationBytes = (o: FactoryObservationJson): number => Buffer.byteLength(JSON.stringify(o), 'utf8');

/**
 * Builds the observation, shrinking the cheapest evidence first until it fits the byte budget.
 * Throws ForemanObservationError only if even the smallest form does not fit (the caps make
 * that unreachable for sanitized text; the check stays so a future cap change cannot overflow).
 */
export function buildForemanObservation(facts: ForemanCampaignFacts, sanitize: Sanitize): FactoryObservationJson {
  let budget = FULL;
  let obs = build(facts, sanitize, budget);
  for (const step of shrinkSteps) {
    if (observationBytes(obs) <= FOREMAN_OBSERVATION_MAX_BYTES) return obs;
    budget = { ...budget, ...step };
    obs = build(facts, sanitize, budget);
  }
  if (observationBytes(obs) > FOREMAN_OBSERVATION_MAX_BYTES) {
    throw new ForemanObservationError('observation_too_large', 'The Foreman observation does not fit its 16 KiB budget.');
  }
  return obs;
}
