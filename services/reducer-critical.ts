/**
 * Critical control/infrastructure events, the fifth public kind. They do not come from a remote
 * snapshot diff: read failures are counted by the heartbeat, and control loss / ambiguous
 * intents are emitted by the campaign machine. Each gets a durable dedupe key so a retry or a
 * restart publishes it once.
 * @module
 */
import type { PublicEventDraft, SignificantEvent } from '../machines/vocabulary.js';

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
}

export interface ReadFailureResult {
  /** True exactly when `consecutiveFailures` reaches the threshold (3), never after. */
  critical: boolean;
  events: SignificantEvent[];
  publicEvents: PublicEventDraft[];
  /** Delay before the next read: cadence × 2^(n−1), capped at 30 minutes. */
  backoffMs: number;
}

/** cadence, 2×, 4×, … capped at 30 minutes. */
export function readFailureBackoffMs(consecutiveFailures: number, cadenceMs: number): number {
  if (consecutiveFailures <= 1) return Math.min(cadenceMs, MAX_READ_BACKOFF_MS);
  return Math.min(MAX_READ_BACKOFF_MS, cadenceMs * 2 ** (consecutiveFailures - 1));
}

/**
 * A failed read never invents a failed attempt: it yields REMOTE_UNAVAILABLE (once, at the
 * threshold) and a backoff, nothing else.
 * @example
 *   const r = reduceReadFailure(3, { campaignId: 'c1', cadenceMs: 120_000, outageStartedAt });
 *   // r.critical === true, r.publicEvents[0].kind === 'CRITICAL', r.backoffMs === 480_000
 */
export function reduceReadFailure(consecutiveFailures: number, ctx: ReadFailureContext): ReadFailureResult {
  const backoffMs = readFailureBackoffMs(consecutiveFailures, ctx.cadenceMs);
  if (consecutiveFailures !== READ_FAILURES_BEFORE_CRITICAL) return { critical: false, events: [], publicEvents: [], backoffMs };
  const dedupeKey = `remote-unavailable:${ctx.campaignId}:${ctx.outageStartedAt}`;
  return {
    critical: true,
    events: [{ class: 'REMOTE_UNAVAILABLE', reason: 'remote_unavailable', dedupeKey }],
    publicEvents: [
      {
        kind: 'CRITICAL',
        dedupeKey,
        summary: `The remote has not answered ${consecutiveFailures} reads in a row; observation continues with backoff`,
        data: { reason: 'remote_unavailable', consecutiveFailures, errorCode: ctx.errorCode ?? null, since: ctx.outageStartedAt },
      },
    ],
    backoffMs,
  };
}

/** The one CRITICAL for the machine's CONTROL_LOST (the reducer itself never publishes a loss). */
export function controlLostDraft(lost: { campaignId: string; reason: string; epoch: number | null; heldSince?: string | null }): PublicEventDraft {
  return {
    kind: 'CRITICAL',
    // One key per hold: a re-claim at the same epoch that is lost again is a new loss.
    dedupeKey: `control-lost:${lost.campaignId}:${lost.epoch ?? 'none'}:${lost.heldSince ?? 'unknown'}`,
    summary: 'Control of the remote task was lost; mutations stopped, observation continues',
    data: { reason: lost.reason, epoch: lost.epoch },
  };
}

/** The CRITICAL for the machine's INTENT_AMBIGUOUS: someone must resolve it by readback. */
export function intentAmbiguousDraft(intent: { campaignId: string; requestId: string; kind: string }): PublicEventDraft {
  return {
    kind: 'CRITICAL',
    dedupeKey: `intent-ambiguous:${intent.campaignId}:${intent.requestId}`,
    summary: `The outcome of a ${intent.kind} is unknown; it will not be resent. Resolve it by readback`,
    data: { reason: 'intent_ambiguous', requestId: intent.requestId, action: intent.kind },
  };
}
