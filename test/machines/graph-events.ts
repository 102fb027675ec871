/**
 * The finite event alphabet the model-based test feeds to every state: each guard gets a
 * payload that makes it true and one that makes it false, and every invoked effect gets its
 * `xstate.done.actor.<id>` outputs and its `xstate.error.actor.<id>`. A guard that reads only
 * context gets its false side from a restored root (below) when no event can produce it; the
 * graph test's guard-outcome coverage checks both sides of every named guard.
 */
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignEvent, CampaignInput, LeaseReadback, MutateEvent, RemoteObservedEvent } from '../../machines/campaign.types.js';
import type { SignificantEvent, WakeRequest } from '../../machines/vocabulary.js';

export const US = 'argus-openoperator';
export const EPOCH = 7;
export const NOW = '2030-01-01T00:00:10.000Z';
const READ_AT = '2030-01-01T00:00:05.000Z';
const EXPIRES = '2030-01-01T00:10:00.000Z';

export const OURS: LeaseReadback = { holder: US, epoch: EPOCH, expiresAt: EXPIRES, readAt: READ_AT };
const RIVAL: LeaseReadback = { holder: 'rival-controller', epoch: EPOCH + 1, expiresAt: EXPIRES, readAt: READ_AT };
const EXPIRED: LeaseReadback = { ...OURS, expiresAt: '2030-01-01T00:00:00.000Z' };
const STALE: LeaseReadback = { ...OURS, readAt: '2029-12-31T23:00:00.000Z' };

/** The event that last woke Argus in the good path; a fresh review must name it. */
export const K_DONE = 'attempt:task-1:att-1:terminal';
export const K_BLOCK = 'blocked:task-1:att-1:input-required:q1';
export const ARGUS_Q = 'argus-q1';
const REQ = 'req-1';

const wake = (target: WakeRequest['target'], cls: SignificantEvent['class'], reason: WakeRequest['reason'], key: string): WakeRequest => ({
  target,
  reason,
  eventClass: cls,
  dedupeKey: key,
});

const observed = (over: Partial<RemoteObservedEvent>): RemoteObservedEvent => ({
  type: 'REMOTE_OBSERVED',
  observedAt: NOW,
  events: [],
  wakes: [],
  remoteBlocked: false,
  readback: OURS,
  ...over,
});

/** An operator's MUTATE on which every rule holds; `over` breaks the one a test is about. */
export const mutateEvent = (over: Partial<MutateEvent> = {}): MutateEvent => ({
  type: 'MUTATE',
  mutation: { kind: 'submit', text: 'train v2' },
  requestId: REQ,
  epoch: EPOCH,
  readback: OURS,
  epochEnforced: true,
  approval: { kind: 'operator', principal: 'operator@example' },
  now: NOW,
  mutationInFlight: false,
  boundTaskState: 'completed',
  ...over,
});

/** Every MUTATE variant, named by the rule it breaks (null = all rules hold). */
export const MUTATIONS: { breaks: string | null; event: MutateEvent }[] = [
  { breaks: null, event: mutateEvent({}) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'release' } }) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'cancel', reason: 'diverged' }, approval: { kind: 'review', decisionId: 'd1', verdict: 'approved', eventKey: K_DONE } }) },
  { breaks: 'readback_stale', event: mutateEvent({ readback: STALE }) },
  { breaks: 'readback_stale', event: mutateEvent({ readback: null }) },
  { breaks: 'lease_not_held', event: mutateEvent({ readback: RIVAL }) },
  { breaks: 'lease_not_held', event: mutateEvent({ readback: EXPIRED }) },
  // Boundaries of the readback rules: each side of every comparison the guards make.
  { breaks: null, event: mutateEvent({ readback: { ...OURS, readAt: '2029-12-31T23:59:40.000Z' } }) },
  { breaks: 'readback_stale', event: mutateEvent({ readback: { ...OURS, readAt: '2030-01-01T00:00:11.000Z' } }) },
  { breaks: 'lease_not_held', event: mutateEvent({ readback: { ...OURS, epoch: EPOCH - 1 } }) },
  { breaks: 'lease_not_held', event: mutateEvent({ readback: { ...RIVAL, epoch: EPOCH } }) },
  { breaks: 'lease_not_held', event: mutateEvent({ readback: { ...OURS, expiresAt: READ_AT } }) },
  { breaks: 'unsupported_capability', event: mutateEvent({ epochEnforced: false }) },
  { breaks: 'lease_stale_epoch', event: mutateEvent({ epoch: EPOCH - 1 }) },
  { breaks: 'approval_required', event: mutateEvent({ approval: { kind: 'operator', principal: '' } }) },
  { breaks: 'review_stale', event: mutateEvent({ approval: { kind: 'review', decisionId: 'd0', verdict: 'approved', eventKey: 'attempt:task-0:att-0:terminal' } }) },
  { breaks: 'approval_required', event: mutateEvent({ approval: { kind: 'review', decisionId: 'd2', verdict: 'rejected', eventKey: K_DONE } }) },
  // One mutation in flight, one attempt at a time (a cancel may stop a running attempt).
  { breaks: 'mutation_in_progress', event: mutateEvent({ mutationInFlight: true }) },
  { breaks: 'attempt_running', event: mutateEvent({ boundTaskState: 'working' }) },
  { breaks: 'attempt_running', event: mutateEvent({ boundTaskState: 'unobserved' }) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'cancel', reason: 'stop' }, boundTaskState: 'working' }) },
];

// Done/error events are the machine's own (typed at the transition), not operator events.
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as unknown as CampaignEvent;
const error = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error('boom') }) as unknown as CampaignEvent;

export const GRAPH_EVENTS: CampaignEvent[] = [
  // claim
  { type: 'OPERATOR_CLAIM', ttlSeconds: 600 },
  { type: 'OPERATOR_CLAIM', ttlSeconds: 30 },
  { type: 'OPERATOR_CLAIM', ttlSeconds: 60 },
  { type: 'OPERATOR_CLAIM', ttlSeconds: 3600 },
  { type: 'OPERATOR_CLAIM', ttlSeconds: 3601 },
  { type: 'OPERATOR_CLAIM', ttlSeconds: 600.5 },
  done('claimLease', { claimed: OURS, readback: OURS }),
  done('claimLease', { claimed: null, readback: null }),
  done('claimLease', { claimed: { ...RIVAL, epoch: EPOCH }, readback: OURS }),
  done('claimLease', { claimed: OURS, readback: RIVAL }),
  error('claimLease'),
  // renew
  { type: 'RENEW_DUE', ttlSeconds: 600 },
  done('renewLease', { lease: OURS }),
  done('renewLease', { lease: RIVAL }),
  error('renewLease'),
  // mutate and relay
  ...MUTATIONS.map((m) => m.event),
  done('relayMutation', { outcome: 'applied', requestId: REQ }),
  done('relayMutation', { outcome: 'rejected', requestId: REQ, code: 'lease_not_held', leaseLost: true }),
  done('relayMutation', { outcome: 'rejected', requestId: REQ, code: 'remote_rpc_error', leaseLost: false }),
  done('relayMutation', { outcome: 'ambiguous', requestId: REQ, code: 'remote_timeout' }),
  error('relayMutation'),
  // intent in doubt and its resolution
  { type: 'INTENT_IN_DOUBT', requestId: REQ, kind: 'submit' },
  { type: 'RESOLVE_INTENT' },
  done('readBackIntent', { requestId: REQ, status: 'applied' }),
  done('readBackIntent', { requestId: REQ, status: 'not_applied' }),
  done('readBackIntent', { requestId: REQ, status: 'unavailable' }),
  done('readBackIntent', { requestId: 'req-other', status: 'applied' }),
  error('readBackIntent'),
  // observation
  observed({}),
  observed({ readback: RIVAL, events: [{ class: 'CONTROL_CHANGED', reason: 'lease_holder_changed', dedupeKey: 'lease:ctx-1:rival:8' }], wakes: [wake('argus', 'CONTROL_CHANGED', 'lease_holder_changed', 'lease:ctx-1:rival:8')] }),
  observed({ readback: null }),
  observed({ readback: EXPIRED }),
  observed({
    remoteBlocked: true,
    events: [{ class: 'BLOCKED', reason: 'blocked_input_required', dedupeKey: K_BLOCK, question: 'Which dataset?' }],
    wakes: [wake('argus', 'BLOCKED', 'blocked_input_required', K_BLOCK)],
  }),
  observed({
    events: [{ class: 'ATTEMPT_COMPLETED', reason: 'attempt_terminal', dedupeKey: K_DONE }],
    wakes: [wake('argus', 'ATTEMPT_COMPLETED', 'attempt_terminal', K_DONE)],
  }),
  observed({
    events: [{ class: 'EVIDENCE_READY', reason: 'artifact_added', dedupeKey: 'artifact:task-1:ckpt' }],
    wakes: [wake('foreman', 'EVIDENCE_READY', 'artifact_added', 'artifact:task-1:ckpt')],
  }),
  { type: 'REMOTE_UNAVAILABLE', consecutiveFailures: 3, critical: true },
  // attention
  { type: 'OPERATOR_ANSWER', questionKey: K_BLOCK, answer: 'use v2' },
  { type: 'OPERATOR_ANSWER', questionKey: ARGUS_Q, answer: 'yes' },
  { type: 'OPERATOR_ANSWER', questionKey: 'not-the-question', answer: 'late' },
  { type: 'FOREMAN_ASSESSED', eventKey: 'artifact:task-1:ckpt', wakeArgus: true },
  { type: 'FOREMAN_ASSESSED', eventKey: 'artifact:task-1:ckpt', wakeArgus: false },
  { type: 'ARGUS_ASKED', questionKey: ARGUS_Q, question: 'Stop the run?' },
  { type: 'ARGUS_TURN_SETTLED' },
  // lifecycle
  { type: 'PAUSE' },
  { type: 'RESUME' },
  { type: 'CLOSE' },
];

/**
 * The alphabet offered in one state: an effect's done/error events only while that effect runs,
 * as in life (XState treats an unhandled `xstate.error.actor.*` as the machine's own error).
 */
export function eventsFor(snapshot: { children: Record<string, unknown> }): CampaignEvent[] {
  return GRAPH_EVENTS.filter((e) => {
    const effect = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
    return effect === undefined || effect in snapshot.children;
  });
}

/**
 * Traversal roots besides the initial state: snapshots a campaign document can hand back that
 * no event sequence from the start produces. The store restores whatever snapshot it finds
 * (same machine version), so the chart's own guards must hold there too.
 *
 * - controlling.ready with an intent still open: from the start, `pendingIntent` is non-null
 *   only in relaying, ambiguous-intent and paused (the graph test proves it), so `noOpenIntent`
 *   is false only from here. From this root the traversal also reaches control-lost with the
 *   intent open, where it refuses OPERATOR_CLAIM.
 */
export function restoredRoots(machine: CampaignMachine, input: CampaignInput): SnapshotFrom<CampaignMachine>[] {
  const [start] = initialTransition(machine, input);
  const [claiming] = transition(machine, start, { type: 'OPERATOR_CLAIM', ttlSeconds: 600 });
  const [controlling] = transition(machine, claiming, done('claimLease', { claimed: OURS, readback: OURS }));
  const pendingIntent = { requestId: 'req-restored', kind: 'submit' } as const;
  return [machine.resolveState({ value: controlling.value, context: { ...controlling.context, pendingIntent } })];
}
