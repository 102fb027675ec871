/**
 * Critical control/infrastructure events, the fifth public kind. They do not come from a remote
 * snapshot diff: read failures are counted by the heartbeat, and control loss / ambiguous
 * intents are emitted by the campaign machine. Each gets a durable dedupe key so a retry or a
 * restart publishes it once.
 * @module
 */
import type { PublicEventDraft, SignificantEvent } from '../../machines/vocabulary.js';
import { dedupeKey as keyOf } from './dedupe-key.js';

/** Three consecutive read failures, and only the third, raise the one CRITICAL of an outage. */
export const READ_FAILURES_BEFORE_CRITICAL = 3;
export const MAX_READ_BACKOFF_MS = 30 * 60 * 1000;

export interface ReadFailureContext {
  campaignId: string;
  /** The heartbeat cadence; the first retry waits one cadence, then the delay doubles. */
  cadenceMs: number;
  /** When this failure streak began (ISO): names the outage, so the next outage alerts again. */
  outageStartedAt: string;
  /** The adapter's stable code for the last failure (e.g. `remote_timeout`). */
  errorCode?: string;
  /**
   * Keys already published. With it, a streak whose CRITICAL said "unavailable" still says
   * once that the task is missing when the remote starts answering task-not-found.
   */
  published?: ReadonlySet<string>;
}

export interface ReadFailureResult {
  /** True when this failure raises the streak's CRITICAL: at the third in a row (see `published`). */
  critical: boolean;
  events: SignificantEvent[];
  publicEvents: PublicEventDraft[];
  /** Delay before the next read: cadence × 2^(n−1), capped at 30 minutes. */
  backoffMs: number;
}

/** What a failed read says about the remote: silent, answering that the task is gone, or answering nonsense. */
export type ReadFailureKind = 'remote_unavailable' | 'remote_task_missing' | 'remote_payload_invalid';

export function readFailureKind(errorCode: string | undefined): ReadFailureKind {
  if (errorCode === 'task_not_found') return 'remote_task_missing';
  if (errorCode === 'remote_payload_invalid' || errorCode === 'remote_malformed') return 'remote_payload_invalid';
  return 'remote_unavailable';
}

const KEY_PREFIX: Record<ReadFailureKind, string> = {
  remote_unavailable: 'remote-unavailable',
  remote_task_missing: 'remote-task-missing',
  remote_payload_invalid: 'remote-payload-invalid',
};

const SUMMARY: Record<ReadFailureKind, (n: number) => string> = {
  remote_unavailable: (n) => `The remote has not answered ${n} reads in a row; observation continues with backoff`,
  remote_task_missing: (n) => `The remote task is missing: the remote answered task-not-found ${n} reads in a row; observation continues with backoff`,
  remote_payload_invalid: (n) => `The remote answered ${n} reads in a row with an invalid payload (never adopted); observation continues with backoff`,
};

/** cadence, 2×, 4×, … capped at 30 minutes. */
export function readFailureBackoffMs(consecutiveFailures: number, cadenceMs: number): number {
  if (consecutiveFailures <= 1) return Math.min(cadenceMs, MAX_READ_BACKOFF_MS);
  return Math.min(MAX_READ_BACKOFF_MS, cadenceMs * 2 ** (consecutiveFailures - 1));
}

/**
 * A failed read never invents a failed attempt: it yields one CRITICAL at the threshold, named
 * by what the remote did (no answer, task-not-found, an invalid payload), and a backoff.
 * @example
 *   const r = reduceReadFailure(3, { campaignId: 'c1', cadenceMs: 120_000, outageStartedAt });
 *   // r.critical === true, r.publicEvents[0].kind === 'CRITICAL', r.backoffMs === 480_000
 */
export function reduceReadFailure(consecutiveFailures: number, ctx: ReadFailureContext): ReadFailureResult {
  const backoffMs = readFailureBackoffMs(consecutiveFailures, ctx.cadenceMs);
  const kind = readFailureKind(ctx.errorCode);
  const dedupeKey = keyOf(KEY_PREFIX[kind], ctx.campaignId, ctx.outageStartedAt);
  const atThreshold = consecutiveFailures === READ_FAILURES_BEFORE_CRITICAL;
  // A missing task is a different fact from silence: it gets its own one alert in the streak.
  const missingLate =
    kind === 'remote_task_missing' && consecutiveFailures > READ_FAILURES_BEFORE_CRITICAL && ctx.published !== undefined && !ctx.published.has(dedupeKey);
  if (!atThreshold && !missingLate) return { critical: false, events: [], publicEvents: [], backoffMs };
  return {
    critical: true,
    events: [{ class: 'REMOTE_UNAVAILABLE', reason: kind, dedupeKey }],
    publicEvents: [
      {
        kind: 'CRITICAL',
        dedupeKey,
        summary: SUMMARY[kind](consecutiveFailures),
        data: { reason: kind, consecutiveFailures, errorCode: ctx.errorCode ?? null, since: ctx.outageStartedAt },
      },
    ],
    backoffMs,
  };
}

/** The one CRITICAL for the machine's CONTROL_LOST (the reducer itself never publishes a loss). */
export function controlLostDraft(lost: { campaignId: string; reason: string; epoch: number | null; heldSince?: string | null }): PublicEventDraft {
  return {
    kind: 'CRITICAL',
    // One key per hold (epoch and start): each hold is lost at most once, and a later hold's
    // loss is new. Every grant is a new epoch now; the start time also separates holds on a
    // remote that predates that rule.
    dedupeKey: keyOf('control-lost', lost.campaignId, lost.epoch ?? 'none', lost.heldSince ?? 'unknown'),
    summary: 'Control of the remote task was lost; mutations stopped, observation continues',
    data: { reason: lost.reason, epoch: lost.epoch },
  };
}

/** The CRITICAL for the machine's INTENT_AMBIGUOUS: someone must resolve it by readback. */
export function intentAmbiguousDraft(intent: { campaignId: string; requestId: string; kind: string }): PublicEventDraft {
  return {
    kind: 'CRITICAL',
    dedupeKey: keyOf('intent-ambiguous', intent.campaignId, intent.requestId),
    summary: `The outcome of a ${intent.kind} is unknown; it will not be resent. Resolve it by readback`,
    data: { reason: 'intent_ambiguous', requestId: intent.requestId, action: intent.kind },
  };
}
