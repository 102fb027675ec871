/**
 * The words the whole product shares: internal significant-event classes, the five public
 * kinds a person may ever see, and the wake targets. Pure constants, no behaviour.
 * @module
 */

/** Internal significant events produced by the reducer. Never shown to a person as such. */
export const SIGNIFICANT_EVENT_CLASSES = [
  'STATE_CHANGED',
  'ATTEMPT_COMPLETED',
  'BLOCKED',
  'EVIDENCE_READY',
  'CONTROL_CHANGED',
  'MISSION_COMPLETED',
  'REMOTE_UNAVAILABLE',
] as const;
export type SignificantEventClass = (typeof SIGNIFICANT_EVENT_CLASSES)[number];

/** The only kinds that ever reach a person (the durable outbox holds nothing else). */
export const PUBLIC_EVENT_KINDS = ['NEEDS_YOU', 'ATTEMPT_COMPLETED', 'STAGE_TRANSITION', 'MISSION_COMPLETE', 'CRITICAL'] as const;
export type PublicEventKind = (typeof PUBLIC_EVENT_KINDS)[number];

/** Who a significant event may wake. The bridges come later; requests are recorded now. */
export const WAKE_TARGETS = ['argus', 'foreman'] as const;
export type WakeTarget = (typeof WAKE_TARGETS)[number];

/**
 * One reason code per reducer decision, in the spirit of Alertmanager's dedup stage: every
 * significant event says exactly why it exists, so a reader never has to diff snapshots.
 */
export const REASON_CODES = [
  'first_observation',
  'state_changed',
  'attempt_started',
  'stage_advanced',
  'attempt_terminal',
  'blocked_input_required',
  'blocked_auth_required',
  'lease_holder_changed',
  'lease_epoch_changed',
  'lease_released',
  'artifact_added',
  'mission_complete_flag',
  'remote_unavailable',
  // Read failures where the remote did answer: the task is gone, or the answer was invalid.
  'remote_task_missing',
  'remote_payload_invalid',
  // Wakes that come from a person or the sentinel rather than from a remote change.
  'operator_answered',
  'foreman_directive',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** An internal significant event. `dedupeKey` is durable remote identity, never a clock. */
export interface SignificantEvent {
  class: SignificantEventClass;
  reason: ReasonCode;
  dedupeKey: string;
  /** BLOCKED only: the remote's question, sanitized and bounded (untrusted remote DATA). */
  question?: string;
}

/** A request to run Argus or Foreman, tied to the significant event that warrants it. */
export interface WakeRequest {
  target: WakeTarget;
  reason: ReasonCode;
  /** null when a person or the sentinel asked, not a remote change. */
  eventClass: SignificantEventClass | null;
  /** The triggering event's dedupeKey: a Reviewer verdict must name this to authorize. */
  dedupeKey: string;
}

/** A public event before the outbox numbers it. The outbox drops a dedupeKey seen before. */
export interface PublicEventDraft {
  kind: PublicEventKind;
  dedupeKey: string;
  /** Short and ours: no raw remote text except a bounded, sanitized NEEDS_YOU question. */
  summary: string;
  data: Record<string, unknown>;
}
