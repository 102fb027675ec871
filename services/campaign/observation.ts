/**
 * What one heartbeat reading does to a campaign document, as pure functions run inside a
 * store transaction: reduce the remote snapshot, step the machine, append public events and
 * record wake requests. No I/O here; the supervisor does the reading and the writing.
 * @module
 */
import type { TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { CampaignEmitted, CampaignEvent } from '../../machines/campaign.types.js';
import type { PublicEventDraft, WakeRequest } from '../../machines/vocabulary.js';
import type { CampaignDocument, PublicEvent, WakeRequest as RecordedWake } from '../../persistence/campaign-document.js';
import { openIntent, recordIntentOutcome } from '../../persistence/intent-journal.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { recordWakeRequests } from '../../persistence/wake-requests.js';
import { describeStates, peekSnapshot, stepCampaign } from './campaign-actor.js';
import { controlLostDraft, intentAmbiguousDraft, reduce, reduceReadFailure } from '../reducer/reducer.js';
import { toRemoteObserved } from '../reducer/reducer-observed.js';

export interface DocumentChange {
  doc: CampaignDocument;
  appended: PublicEvent[];
  wakes: RecordedWake[];
}

export interface ObserveContext {
  controllerId: string;
  now: Date;
}

/**
 * A successful read. Returns null when nothing needs writing (not material, no failure streak
 * to reset): the caller then writes nothing, which is the whole point of the heartbeat.
 */
export function applyObservation(doc: CampaignDocument, snapshot: TaskSnapshot, ctx: ObserveContext): DocumentChange | null {
  // A read that lands after pause (or close) publishes nothing: resume re-reads.
  if (doc.paused || isClosed(doc)) return null;
  const reduced = reduce(doc.remoteView, snapshot, {
    campaignId: doc.campaignId,
    controllerId: ctx.controllerId,
    now: ctx.now,
    published: new Set(doc.outbox.publishedKeys),
  });
  const recovering = doc.readFailures.consecutiveFailures > 0;
  if (!reduced.material && !recovering) return null;

  const event = toRemoteObserved(reduced, snapshot, ctx.now);
  // A recovering read that is otherwise noise still stamps when the remote last answered: the
  // next outage is named by it (`outageStartedAt`), so it must not reuse the previous outage's
  // dedupe key and be silenced as an already-published CRITICAL.
  const view = reduced.material ? reduced.view : { ...reduced.view, observedAt: ctx.now.toISOString() };
  const next: CampaignDocument = {
    ...doc,
    remote: { ...doc.remote, contextId: doc.remote.contextId ?? snapshot.contextId },
    remoteView: view,
    attemptId: reduced.view.attemptId ?? doc.attemptId,
    readFailures: { consecutiveFailures: 0, nextReadAt: null, criticalRaised: false },
  };
  return stepAndPublish(next, [event], reduced.publicEvents, ctx.now);
}

/**
 * An intent with no recorded outcome (a crash, or an outcome that could not be written) may
 * have reached the remote: record it as ambiguous and move the machine to ambiguous-intent.
 * Never re-run, never resend. Returns null when it is already recorded that way.
 */
export function applyIntentInDoubt(doc: CampaignDocument, now: Date): DocumentChange | null {
  const intent = openIntent(doc);
  if (!intent) return null;
  if (intent.outcome !== null && describeStates(peekSnapshot(doc)).authority === 'ambiguous-intent') return null;
  let next = doc;
  if (intent.outcome === null) {
    const settled = recordIntentOutcome(doc, intent.requestId, { status: 'ambiguous', code: 'restart_in_doubt', at: now });
    if (!settled.ok) return null;
    next = settled.doc;
  }
  // Only the four fenced mutations are journaled (claims and renewals are read back instead).
  const kind = intent.action as 'submit' | 'intervene' | 'cancel' | 'release';
  return stepAndPublish({ ...next, controllerMode: 'observer', lease: null }, [{ type: 'INTENT_IN_DOUBT', requestId: intent.requestId, kind }], [], now);
}

/** A failed read: count it, back off, and raise the one CRITICAL at the third in a row. */
export function applyReadFailure(
  doc: CampaignDocument,
  error: { code: string },
  ctx: ObserveContext & { cadenceMs: number },
): DocumentChange & { backoffMs: number } {
  const consecutiveFailures = doc.readFailures.consecutiveFailures + 1;
  // The last successful observation names this outage, so the next outage alerts again.
  const outageStartedAt = doc.remoteView?.observedAt ?? doc.createdAt;
  const failure = reduceReadFailure(consecutiveFailures, {
    campaignId: doc.campaignId,
    cadenceMs: ctx.cadenceMs,
    outageStartedAt,
    errorCode: error.code,
    published: new Set(doc.outbox.publishedKeys),
  });
  const next: CampaignDocument = {
    ...doc,
    readFailures: {
      consecutiveFailures,
      nextReadAt: new Date(ctx.now.getTime() + failure.backoffMs).toISOString(),
      criticalRaised: doc.readFailures.criticalRaised || failure.critical,
    },
  };
  const change = stepAndPublish(
    next,
    [{ type: 'REMOTE_UNAVAILABLE', consecutiveFailures, critical: failure.critical }],
    failure.publicEvents,
    ctx.now,
  );
  return { ...change, backoffMs: failure.backoffMs };
}

/**
 * Steps the machine with `events`, then turns what it emitted into public drafts and wake
 * requests, and appends everything to the document's outbox in one go.
 */
export function stepAndPublish(
  doc: CampaignDocument,
  events: CampaignEvent[],
  drafts: PublicEventDraft[],
  now: Date,
): DocumentChange {
  const step = stepCampaign(doc, events);
  const withMachine = applyMachineContext({ ...doc, machine: step.persisted }, step, now);
  return publish(withMachine, [...drafts, ...draftsFromEmitted(step.emitted)], wakesFromEmitted(step.emitted), now);
}

/** Public drafts and wake requests from what the machine emitted (CONTROL_LOST, INTENT_AMBIGUOUS). */
export function draftsFromEmitted(emitted: CampaignEmitted[]): PublicEventDraft[] {
  const drafts: PublicEventDraft[] = [];
  for (const e of emitted) {
    if (e.type === 'CONTROL_LOST') drafts.push(controlLostDraft(e));
    if (e.type === 'INTENT_AMBIGUOUS') drafts.push(intentAmbiguousDraft(e));
  }
  return drafts;
}

export function wakesFromEmitted(emitted: CampaignEmitted[]): WakeRequest[] {
  return emitted.flatMap((e) => (e.type === 'WAKE_REQUESTED' ? [e.wake] : []));
}

export function publish(doc: CampaignDocument, drafts: PublicEventDraft[], wakes: WakeRequest[], now: Date): DocumentChange {
  const { doc: withEvents, appended } = appendPublicEvents(doc, drafts, now);
  const eventIdByKey = new Map(withEvents.outbox.events.map((e) => [e.dedupeKey, e.id]));
  const { doc: withWakes, recorded } = recordWakeRequests(
    withEvents,
    wakes.map((w) => ({ ...w, eventId: eventIdByKey.get(w.dedupeKey) ?? null })),
    now,
  );
  return { doc: withWakes, appended, wakes: recorded };
}

/** Mirrors the machine context fields the document also keeps (question, lease, attempts). */
export function applyMachineContext(doc: CampaignDocument, step: { snapshot: { context: unknown } }, now: Date): CampaignDocument {
  const ctx = step.snapshot.context as {
    pendingQuestion: { key: string; text: string } | null;
    attemptsSubmitted: number;
  };
  const q = ctx.pendingQuestion;
  const pendingQuestion = q
    ? doc.pendingQuestion && doc.pendingQuestion.eventId === q.key
      ? doc.pendingQuestion
      : { text: q.text, askedAt: now.toISOString(), eventId: q.key }
    : null;
  // Outside `controlling` the document keeps no lease copy: a local record is never authority.
  const controlling = describeStates(step.snapshot as never).authority === 'controlling';
  return {
    ...doc,
    pendingQuestion,
    attemptsSubmitted: Math.max(doc.attemptsSubmitted, ctx.attemptsSubmitted),
    ...(controlling ? {} : { controllerMode: 'observer' as const, lease: null }),
  };
}

function isClosed(doc: CampaignDocument): boolean {
  try {
    return peekSnapshot(doc).status === 'done';
  } catch {
    return false;
  }
}
