/**
 * Projects a campaign document onto what the API shows. Never a credential, never the remote
 * URL; the pending question is the reducer's bounded, sanitized copy.
 * @module
 */
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import { openIntent } from '../../persistence/intent-journal.js';
import { describeStates, peekSnapshot } from './campaign-actor.js';
import type { CampaignSummary, PublicEventView } from '../api/read-model.js';

/** `lastReadAt`: the last successful read, kept in memory by the supervisor (never in the document). */
export function summarize(doc: CampaignDocument, lastReadAt: string | null = null): CampaignSummary {
  let states = { authority: 'unknown', attention: 'unknown' };
  try {
    states = describeStates(peekSnapshot(doc));
  } catch {
    states = { authority: 'corrupt', attention: 'idle' };
  }
  const intent = openIntent(doc);
  return {
    campaign_id: doc.campaignId,
    objective: doc.objective,
    state: states.authority,
    attention: states.attention,
    paused: doc.paused,
    corrupt: false,
    remote: {
      task_id: doc.remote.taskId,
      context_id: doc.remote.contextId ?? doc.remoteView?.contextId ?? null,
      state: doc.remoteView?.state ?? null,
      stage: doc.remoteView?.stage ?? null,
      attempt: doc.remoteView?.attempt ?? null,
      observed_at: doc.remoteView?.observedAt ?? null,
      last_read_at: lastReadAt,
    },
    lease: {
      mode: doc.controllerMode,
      epoch: doc.lease?.epoch ?? null,
      expires_at: doc.lease?.expiresAt ?? null,
    },
    pending_question: doc.pendingQuestion?.text ?? null,
    open_intent: intent ? { request_id: intent.requestId, action: intent.action } : null,
    max_attempts: doc.maxAttempts,
    attempts_submitted: doc.attemptsSubmitted,
    consecutive_read_failures: doc.readFailures.consecutiveFailures,
  };
}

/** The same view with `remote.last_read_at` set (a copy; the input is unchanged when it already says so). */
export function withLastReadAt(summary: CampaignSummary, at: string | null): CampaignSummary {
  return summary.remote.last_read_at === at ? summary : { ...summary, remote: { ...summary.remote, last_read_at: at } };
}

/** A campaign whose document cannot be trusted: reported, never replaced. */
export function corruptSummary(campaignId: string): CampaignSummary {
  return {
    campaign_id: campaignId,
    objective: '',
    state: 'corrupt',
    attention: 'idle',
    paused: false,
    corrupt: true,
    remote: { task_id: null, context_id: null, state: null, stage: null, attempt: null, observed_at: null, last_read_at: null },
    lease: { mode: 'observer', epoch: null, expires_at: null },
    pending_question: null,
    open_intent: null,
    max_attempts: 0,
    attempts_submitted: 0,
    consecutive_read_failures: 0,
  };
}

export function eventViews(doc: CampaignDocument): PublicEventView[] {
  return doc.outbox.events.map((e) => ({
    id: e.id,
    seq: e.seq,
    kind: e.kind,
    campaign_id: e.campaignId,
    at: e.at,
    summary: e.summary,
    data: e.data,
  }));
}
