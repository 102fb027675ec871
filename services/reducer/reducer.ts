/**
 * The significant-event reducer: previous RemoteView + fresh TaskSnapshot → what changed that
 * matters, with one reason code per event, the public drafts a person may see and the wake
 * requests for Argus / Foreman. Pure and cheap: an unchanged fingerprint returns at once.
 *
 * Dedupe is two layers:
 *  1. State diff: events come only from a change against `previous`; re-reading the same
 *     revision (or one that only moved progress/stdout) is not material and yields nothing.
 *  2. Identity: every event, draft and wake carries a `dedupeKey` built from durable remote
 *     identity (context, task, attempt, stage, state, lease epoch), never from a clock, and
 *     never raw remote text: a part that is not a short plain identifier makes it a digest. Pass
 *     `published` (keys already in the durable outbox) to drop replays early; the outbox
 *     (`appendPublicEvents`) and the wake log refuse a key they have seen in any case.
 * @module
 */
import { INTERRUPTED_STATES, TERMINAL_STATES, type TaskSnapshot } from '../../adapters/a2a/snapshot.js';
import type { PublicEventDraft, ReasonCode, SignificantEvent, SignificantEventClass, WakeRequest } from '../../machines/vocabulary.js';
import type { RemoteView } from '../../persistence/remote-view.js';
import { dedupeKey } from './dedupe-key.js';
import { materialFingerprint } from './fingerprint.js';
import { boundedText, safeIdentifier } from './reducer-text.js';

export { controlLostDraft, intentAmbiguousDraft, readFailureBackoffMs, reduceReadFailure } from './reducer-critical.js';
export { leaseReadbackOf } from './reducer-observed.js';

export interface ReduceContext {
  campaignId: string;
  controllerId: string;
  now: Date | string;
  /** Dedupe keys already published; anything carrying one of them is dropped. */
  published?: ReadonlySet<string>;
}

/** Why the reducer decided what it did (the Alertmanager dedup-stage idea, per tick). */
export type ReduceDecision = 'first_observation' | 'material_change' | 'noise_only' | 'duplicate_revision';

export interface ReduceResult {
  material: boolean;
  decision: ReduceDecision;
  /** `=== previous` when not material: the caller writes nothing. */
  view: RemoteView;
  events: SignificantEvent[];
  publicEvents: PublicEventDraft[];
  wakes: WakeRequest[];
}

const toIso = (now: Date | string): string => (typeof now === 'string' ? now : now.toISOString());

export function toRemoteView(snapshot: TaskSnapshot, fingerprint: string, now: Date | string): RemoteView {
  const control = snapshot.control;
  return {
    taskId: snapshot.id,
    contextId: snapshot.contextId,
    state: snapshot.state,
    stage: control?.stage ?? null,
    revision: control?.revision ?? null,
    attempt: control ? control.attempt : null,
    attemptId: control?.attemptId ?? null,
    artifactIds: snapshot.artifacts.map((a) => a.id),
    lease: control?.lease ? { ...control.lease } : null,
    missionComplete: control?.missionComplete === true,
    latestAgentMessageDigest: snapshot.latestAgentMessageDigest,
    fingerprint,
    observedAt: toIso(now),
  };
}

const attemptKey = (v: RemoteView): string => v.attemptId ?? (v.attempt !== null ? `#${v.attempt}` : '-');
const sameAttempt = (a: RemoteView, b: RemoteView): boolean => a.taskId === b.taskId && a.attempt === b.attempt && a.attemptId === b.attemptId;
const attemptLabel = (v: RemoteView): string => (v.attempt !== null ? `Attempt ${v.attempt}` : 'The remote task');
const taskData = (v: RemoteView) => ({ taskId: safeIdentifier(v.taskId), attempt: v.attempt, attemptId: safeIdentifier(v.attemptId) });

const OUTCOME_WORDS: Record<string, string> = { completed: 'completed', failed: 'failed', canceled: 'was canceled', rejected: 'was rejected' };

/** Which argus wake wins when one tick carries several decision-worthy events. */
const ARGUS_PRIORITY: readonly SignificantEventClass[] = ['BLOCKED', 'ATTEMPT_COMPLETED', 'MISSION_COMPLETED'];

/**
 * @example
 *   const r = reduce(doc.remoteView, snapshot, { campaignId, controllerId, now });
 *   if (!r.material) return; // no write, no Foreman, no Argus
 */
export function reduce(previous: RemoteView | null, snapshot: TaskSnapshot, ctx: ReduceContext): ReduceResult {
  const fingerprint = materialFingerprint(snapshot);
  if (previous !== null && previous.fingerprint === fingerprint) {
    const sameRevision = previous.revision === (snapshot.control?.revision ?? null);
    const sameText = previous.latestAgentMessageDigest === snapshot.latestAgentMessageDigest;
    const decision = sameRevision && sameText ? 'duplicate_revision' : 'noise_only';
    return { material: false, decision, view: previous, events: [], publicEvents: [], wakes: [] };
  }
  const view = toRemoteView(snapshot, fingerprint, ctx.now);
  const out = new Collector(ctx.published);
  // Attempt-scoped rules compare only with the same attempt: a new attempt starts afresh.
  const before = previous !== null && sameAttempt(previous, view) ? previous : null;

  if (previous === null) out.event('STATE_CHANGED', 'first_observation', dedupeKey('observed', view.taskId, attemptKey(view), view.state));
  else if (before === null) out.event('STATE_CHANGED', 'attempt_started', dedupeKey('attempt', view.taskId, attemptKey(view), 'started'));
  else if (before.state !== view.state) out.event('STATE_CHANGED', 'state_changed', dedupeKey('state', view.taskId, attemptKey(view), view.state, view.revision));

  reduceAttemptOutcome(before, view, snapshot.latestAgentMessageExcerpt, out);
  if (previous !== null) reduceStage(previous, view, out);
  reduceMission(previous, view, out);
  if (previous !== null) reduceArtifacts(previous, view, out);
  if (previous !== null) reduceLease(previous, view, out);

  return {
    material: true,
    decision: previous === null ? 'first_observation' : 'material_change',
    view,
    events: out.events,
    publicEvents: out.drafts,
    wakes: out.wakes(),
  };
}

/** Terminal → one ATTEMPT_COMPLETED; interrupted → BLOCKED / NEEDS_YOU. Also on first sight. */
function reduceAttemptOutcome(before: RemoteView | null, view: RemoteView, questionText: string | null, out: Collector): void {
  if (TERMINAL_STATES.has(view.state) && !(before && TERMINAL_STATES.has(before.state))) {
    // One key per attempt whatever the outcome, so a flapping outcome cannot publish twice.
    const key = dedupeKey('attempt', view.taskId, attemptKey(view), 'terminal');
    const word = OUTCOME_WORDS[view.state] ?? view.state;
    out.event('ATTEMPT_COMPLETED', 'attempt_terminal', key, 'argus');
    out.draft('ATTEMPT_COMPLETED', key, `${attemptLabel(view)} ${word}`, { ...taskData(view), outcome: view.state });
  }
  if (INTERRUPTED_STATES.has(view.state) && before?.state !== view.state) {
    const auth = view.state === 'auth-required';
    // The question's identity is its text digest; the revision is only a fallback.
    const key = dedupeKey('blocked', view.taskId, attemptKey(view), view.state, view.latestAgentMessageDigest ?? view.revision);
    const question = auth ? '' : boundedText(questionText);
    const summary = auth ? 'The remote task needs authentication' : question ? `The remote task needs input: ${question}` : 'The remote task needs input';
    out.event('BLOCKED', auth ? 'blocked_auth_required' : 'blocked_input_required', key, 'argus', question || undefined);
    out.draft('NEEDS_YOU', key, summary, { ...taskData(view), reason: view.state, question: question || null });
  }
}

function reduceStage(previous: RemoteView, view: RemoteView, out: Collector): void {
  if (view.stage === null || view.stage === previous.stage) return;
  const key = dedupeKey('stage', view.taskId, attemptKey(view), view.stage);
  const from = safeIdentifier(previous.stage);
  const to = safeIdentifier(view.stage);
  out.event('STATE_CHANGED', 'stage_advanced', key);
  out.draft('STAGE_TRANSITION', key, from ? `Stage ${from} → ${to}` : `Stage ${to} started`, { ...taskData(view), from, to });
}

function reduceMission(previous: RemoteView | null, view: RemoteView, out: Collector): void {
  if (!view.missionComplete || previous?.missionComplete) return;
  const key = dedupeKey('mission', view.contextId);
  // Candidate completion only: Argus's Reviewer decides final acceptance.
  out.event('MISSION_COMPLETED', 'mission_complete_flag', key, 'argus');
  out.draft('MISSION_COMPLETE', key, 'The remote reports the mission complete; Argus reviews it', taskData(view));
}

function reduceArtifacts(previous: RemoteView, view: RemoteView, out: Collector): void {
  const known = new Set(previous.taskId === view.taskId ? previous.artifactIds : []);
  for (const id of view.artifactIds) {
    if (!known.has(id)) out.event('EVIDENCE_READY', 'artifact_added', dedupeKey('artifact', view.taskId, id), 'foreman');
  }
}

/**
 * Holder/epoch changes only (never expiresAt). Recorded, and it wakes nobody: a lease that goes is
 * the authority region's to judge (control-lost raises the one CRITICAL), and our own claims and
 * releases show up here too. Only a completed attempt, a blocker, a Foreman directive that asks
 * for Argus and an operator's answer are decision-worthy (issue 9).
 */
function reduceLease(previous: RemoteView, view: RemoteView, out: Collector): void {
  const was = previous.lease;
  const is = view.lease;
  if (was === null && is === null) return;
  if (was !== null && is !== null && was.holder === is.holder && was.epoch === is.epoch) return;
  const reason: ReasonCode = is === null ? 'lease_released' : was === null || was.holder !== is.holder ? 'lease_holder_changed' : 'lease_epoch_changed';
  const key = is === null ? dedupeKey('lease', view.contextId, 'released', was!.epoch) : dedupeKey('lease', view.contextId, is.holder, is.epoch);
  out.event('CONTROL_CHANGED', reason, key);
}

/** Gathers events, drafts and wakes, dropping anything whose key was already published. */
class Collector {
  readonly events: SignificantEvent[] = [];
  readonly drafts: PublicEventDraft[] = [];
  private readonly wakeCandidates: { target: 'argus' | 'foreman'; event: SignificantEvent }[] = [];

  constructor(private readonly published: ReadonlySet<string> | undefined) {}

  event(cls: SignificantEventClass, reason: ReasonCode, dedupeKey: string, wake?: 'argus' | 'foreman', question?: string): void {
    if (this.published?.has(dedupeKey)) return;
    const event: SignificantEvent = question === undefined ? { class: cls, reason, dedupeKey } : { class: cls, reason, dedupeKey, question };
    this.events.push(event);
    if (wake) this.wakeCandidates.push({ target: wake, event });
  }

  draft(kind: PublicEventDraft['kind'], dedupeKey: string, summary: string, data: Record<string, unknown>): void {
    if (this.published?.has(dedupeKey)) return;
    this.drafts.push({ kind, dedupeKey, summary, data });
  }

  /** At most one wake per target per tick: one Argus turn, one Foreman assessment. */
  wakes(): WakeRequest[] {
    const out: WakeRequest[] = [];
    const argus = this.wakeCandidates
      .filter((c) => c.target === 'argus')
      .sort((a, b) => ARGUS_PRIORITY.indexOf(a.event.class) - ARGUS_PRIORITY.indexOf(b.event.class))[0];
    const foreman = this.wakeCandidates.find((c) => c.target === 'foreman');
    for (const c of [argus, foreman]) {
      if (c) out.push({ target: c.target, reason: c.event.reason, eventClass: c.event.class, dedupeKey: c.event.dedupeKey });
    }
    return out;
  }
}
