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
