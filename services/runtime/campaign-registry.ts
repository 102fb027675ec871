/**
 * The supervisor's in-memory index of campaigns: exactly what an unchanged heartbeat tick
 * needs (task id, material fingerprint, when to read next) and nothing more, so 10,000
 * campaigns cost little memory and a tick costs one request and one string comparison.
 * @module
 */
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { openIntent } from '../../persistence/intent-journal.js';
import { describeStates, peekSnapshot } from '../campaign/campaign-actor.js';

export interface CampaignEntry {
  id: string;
  taskId: string | null;
  /** The material fingerprint of the last persisted remote view. */
  fingerprint: string | null;
  consecutiveFailures: number;
  /** Epoch ms before which the heartbeat skips this campaign (read backoff). */
  nextReadAt: number;
  paused: boolean;
  closed: boolean;
  /** We hold (or believe we hold) the lease: every tick re-checks authority. */
  controlling: boolean;
  /** The remote context this campaign acts in (leases cover a context). */
  contextId: string | null;
  /** Our hold as last confirmed (only while controlling); never authority by itself. */
  lease: { epoch: number; expiresAt: string } | null;
  hasOpenIntent: boolean;
  corrupt: { code: string; reason: string } | null;
}

export function entryFromDocument(doc: CampaignDocument): CampaignEntry {
  let authority = 'unknown';
  let closed = false;
  try {
    const snapshot = peekSnapshot(doc);
    authority = describeStates(snapshot).authority;
    closed = snapshot.status === 'done';
  } catch {
    // An unrestorable machine is reported by the caller as corrupt.
  }
  return {
    id: doc.campaignId,
    taskId: doc.remote.taskId,
    fingerprint: doc.remoteView?.fingerprint ?? null,
    consecutiveFailures: doc.readFailures.consecutiveFailures,
    nextReadAt: doc.readFailures.nextReadAt ? Date.parse(doc.readFailures.nextReadAt) : 0,
    paused: doc.paused,
    closed,
    controlling: authority === 'controlling',
    contextId: doc.lease?.contextId ?? doc.remote.contextId ?? doc.remoteView?.contextId ?? null,
    lease: authority === 'controlling' && doc.lease ? { epoch: doc.lease.epoch, expiresAt: doc.lease.expiresAt } : null,
    hasOpenIntent: openIntent(doc) !== null,
    corrupt: null,
  };
}

export function corruptEntry(id: string, code: string, reason: string): CampaignEntry {
  return {
    id,
    taskId: null,
    fingerprint: null,
    consecutiveFailures: 0,
    nextReadAt: Number.POSITIVE_INFINITY,
    paused: false,
    closed: false,
    controlling: false,
    contextId: null,
    lease: null,
    hasOpenIntent: false,
    corrupt: { code, reason },
  };
}

/** Heartbeat eligibility: attached, not paused, not closed, not corrupt, not backing off. */
export const isDue = (e: CampaignEntry, now: number): boolean =>
  e.taskId !== null && !e.paused && !e.closed && e.corrupt === null && e.nextReadAt <= now;
