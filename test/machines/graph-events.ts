/**
 * The finite event alphabet of the AUTHORITY traversal, fed to every state: each guard gets a
 * payload that makes it true and one that makes it false, and every invoked effect gets its
 * `xstate.done.actor.<id>` outputs and its `xstate.error.actor.<id>`; the long-lived status
 * reader's answers are READ_DONE (each read output) and READ_CRASHED. The remote is seen only
 * through TICK and the status read's outputs: REMOTE_OBSERVED, REMOTE_ANSWERED, LEASE_READBACK
 * and LEASE_LAPSED are raised by the chart itself, never fed from outside. A guard that reads
 * only context gets its false side from a restored root (below) when no event can produce it;
 * the graph test's guard-outcome coverage checks both sides of every named guard.
 *
 * Here no decision runtime can run (every read says `argusAvailable: false, foremanEnabled:
 * false`, no mission is bound), so attention is only ever idle or the remote's own question:
 * the authority product stays the size it was. The decision boundaries have their own
 * traversal and alphabet (graph-decisions.ts), with a small authority alphabet of their own.
 */
import { createActor, initialTransition, transition, type AnyStateMachine, type Snapshot, type SnapshotFrom } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type {
  BindingFacts,
  CampaignEvent,
  CampaignInput,
  ClaimLeaseOutput,
  HostEnvironment,
  JournalIntentOutput,
  LeaseReadback,
  MutateEvent,
  ObserveEvent,
  OperatorAnswerEvent,
  OperatorClaimEvent,
  ReadBackIntentOutput,
  ReadLeaseOutput,
  ReadStatusOutput,
  RelayMutationOutput,
  RemoteCapabilities,
  RemoteView,
  RenewLeaseOutput,
  RotateLeaseOutput,
  TickEvent,
} from '../../machines/campaign.types.js';
import type { PublicEventDraft, SignificantEvent, WakeRequest } from '../../machines/vocabulary.js';

export const US = 'argus-openoperator';
export const EPOCH = 7;
export const NOW = '2030-01-01T00:00:10.000Z';
export const READ_AT = '2030-01-01T00:00:05.000Z';
export const EXPIRES = '2030-01-01T00:10:00.000Z';
/** Two beats before expiry of a 600 s lease: the renewal is due. */
export const LATER = '2030-01-01T00:08:00.000Z';
/** 5 s before our lease expires: past its renewal deadline (LEASE_RENEW_MARGIN_MS), still valid. */
export const PAST_RENEW_DEADLINE = '2030-01-01T00:09:55.000Z';
/** After our lease expired: a failed read then lets the lease lapse. */
export const AFTER_EXPIRY = '2030-01-01T00:10:30.000Z';
export const CADENCE_MS = 60_000;

export const OURS: LeaseReadback = { holder: US, epoch: EPOCH, expiresAt: EXPIRES, readAt: READ_AT };
export const RIVAL: LeaseReadback = { holder: 'rival-controller', epoch: EPOCH + 1, expiresAt: EXPIRES, readAt: READ_AT };
const EXPIRED: LeaseReadback = { ...OURS, expiresAt: '2030-01-01T00:00:00.000Z' };
/** Ours, but only 5 s left after NOW: the send margin's boundary. */
const NEAR_EXPIRY: LeaseReadback = { ...OURS, expiresAt: '2030-01-01T00:00:15.000Z' };

export const TASK = 'task-1';
export const CONTEXT = 'ctx-1';
export const BOUND: BindingFacts = { taskId: TASK, contextId: CONTEXT };
export const UNBOUND: BindingFacts = { taskId: null, contextId: null };

export const FULL: RemoteCapabilities = { claim: true, renew: true, release: true, submit: true, intervene: true, cancel: true, epochEnforced: true, requestReadback: true };

/** The process's facts in the good path: everything discovered, no Argus runtime, 60 s beats. */
export const ENV: HostEnvironment = { capabilities: FULL, argusAvailable: false, cadenceMs: CADENCE_MS };
/** What a campaign created on TASK in that environment holds: spread it into an actor's input. */
export const FACTS = { binding: BOUND, environment: ENV } as const;
/** The environment as a broadcast would deliver it (`over` changes one fact). */
export const environmentEvent = (over: Partial<HostEnvironment> = {}): CampaignEvent => ({ type: 'ENVIRONMENT', environment: { ...ENV, ...over } });

/** The event that last woke Argus in the good path; a fresh review must name it. */
export const K_DONE = 'attempt:task-1:att-1:terminal';
export const K_BLOCK = 'blocked:task-1:att-1:input-required:q1';
export const REQ = 'req-1';

export const wake = (target: WakeRequest['target'], cls: SignificantEvent['class'], reason: WakeRequest['reason'], key: string): WakeRequest => ({
  target,
  reason,
  eventClass: cls,
  dedupeKey: key,
});
export const draft = (kind: PublicEventDraft['kind'], key: string): PublicEventDraft => ({ kind, dedupeKey: key, summary: kind, data: {} });

// ---- operator events --------------------------------------------------------------------

/** An operator claim on which every rule holds; `over` breaks the one a test is about. */
export const claimEvent = (over: Partial<OperatorClaimEvent> = {}): OperatorClaimEvent => ({
  type: 'OPERATOR_CLAIM',
  ttlSeconds: 600,
  now: NOW,
  ...over,
});

/** Every claim variant, named by the rule it breaks (null = all rules hold). */
export const CLAIMS: { breaks: string | null; event: OperatorClaimEvent }[] = [
  { breaks: null, event: claimEvent() },
  { breaks: 'ttl_out_of_bounds', event: claimEvent({ ttlSeconds: 30 }) },
  // Two 60 s beats: the shortest lease the heartbeat keeps renewed.
  { breaks: 'ttl_below_heartbeat', event: claimEvent({ ttlSeconds: 119 }) },
  { breaks: null, event: claimEvent({ ttlSeconds: 120 }) },
  { breaks: null, event: claimEvent({ ttlSeconds: 3600 }) },
  { breaks: 'ttl_out_of_bounds', event: claimEvent({ ttlSeconds: 3601 }) },
  { breaks: 'ttl_out_of_bounds', event: claimEvent({ ttlSeconds: 600.5 }) },
  // The remote's capabilities are the environment's (see ENVIRONMENTS); another campaign's
  // hold on the context is the claim effect's answer (`lease_held`, CLAIM_OUTPUTS).
];

/** An operator's MUTATE on which every rule holds; `over` breaks the one a test is about. */
export const mutateEvent = (over: Partial<MutateEvent> = {}): MutateEvent => ({
  type: 'MUTATE',
  mutation: { kind: 'submit', text: 'train v2' },
  requestId: REQ,
  epoch: EPOCH,
  approval: { kind: 'operator', principal: 'operator@example' },
  now: NOW,
  ...over,
});

const REVIEWED = { kind: 'review', decisionId: 'd1', verdict: 'approved', eventKey: K_DONE } as const;

/** Every MUTATE variant, named by the rule it breaks (null = all rules hold). */
export const MUTATIONS: { breaks: string | null; event: MutateEvent }[] = [
  { breaks: null, event: mutateEvent({}) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'release' } }) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'cancel', reason: 'diverged' }, approval: REVIEWED }) },
  { breaks: null, event: mutateEvent({ mutation: { kind: 'intervene', instruction: 'lower lr' } }) },
  // Boundary of the lease copy: it expires exactly at EXPIRES.
  { breaks: 'lease_not_held', event: mutateEvent({ now: EXPIRES }) },
  { breaks: 'lease_stale_epoch', event: mutateEvent({ epoch: EPOCH - 1 }) },
  { breaks: 'approval_required', event: mutateEvent({ approval: { kind: 'operator', principal: '' } }) },
  { breaks: 'review_stale', event: mutateEvent({ approval: { ...REVIEWED, decisionId: 'd0', eventKey: 'attempt:task-0:att-0:terminal' } }) },
  { breaks: 'approval_required', event: mutateEvent({ approval: { ...REVIEWED, decisionId: 'd2', verdict: 'rejected' } }) },
  // One mutation in flight and one attempt at a time are judged on the context (the chart's
  // own step, the bound task's last read), as are the capabilities and the binding.
  { breaks: null, event: mutateEvent({ mutation: { kind: 'cancel', reason: 'stop' } }) },
];

/**
 * An operator's answer on which every rule holds (for the remote's question K_BLOCK: a fenced
 * mutation, judged on the context's facts as a MUTATE is); `over` breaks the one a test is about.
 */
export const answerEvent = (over: Partial<OperatorAnswerEvent> = {}): OperatorAnswerEvent => ({
  type: 'OPERATOR_ANSWER',
  questionKey: K_BLOCK,
  answer: 'use v2',
  now: NOW,
  requestId: 'req-answer',
  ...over,
});

/** Every answer variant of the authority traversal, named by the ANSWER row it breaks for the remote's question. */
export const ANSWERS: { breaks: string | null; event: OperatorAnswerEvent }[] = [
  { breaks: null, event: answerEvent() },
  { breaks: 'question_stale', event: answerEvent({ questionKey: 'not-the-question', answer: 'late' }) },
  // Boundary of the lease copy, as for MUTATE.
  { breaks: 'lease_not_held', event: answerEvent({ now: EXPIRES }) },
];

export const tick = (over: Partial<TickEvent> = {}): TickEvent => ({ type: 'TICK', now: NOW, ...over });
export const TICKS: TickEvent[] = [
  tick(),
  tick({ now: LATER }),
  // Too late to renew: the lease is given up before it expires.
  tick({ now: PAST_RENEW_DEADLINE }),
];

/** An operator's read (backoff or not); on an unbound campaign it breaks `taskBound`. */
export const observe = (over: Partial<ObserveEvent> = {}): ObserveEvent => ({ type: 'OBSERVE', now: NOW, ...over });
export const OBSERVES: ObserveEvent[] = [observe()];

// ---- effect answers -------------------------------------------------------------------------

// Done/error events are the machine's own (typed at the transition), not operator events.
export const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as unknown as CampaignEvent;
export const error = (id: string) => ({ type: `xstate.error.actor.${id}`, error: new Error('boom') }) as unknown as CampaignEvent;

export const view = (fingerprint: string, state: RemoteView['state']): RemoteView => ({
  taskId: TASK,
  contextId: CONTEXT,
  state,
  stage: null,
  revision: 1,
  attempt: 1,
  attemptId: 'att-1',
  artifactIds: [],
  lease: null,
  missionComplete: false,
  latestAgentMessageDigest: null,
  fingerprint,
  observedAt: NOW,
});

export type Observation = NonNullable<Extract<ReadStatusOutput, { ok: true }>['observation']>;
export const read = (fingerprint: string, readback: LeaseReadback | null, observation: Observation | null, requestedAt = NOW): ReadStatusOutput => ({
  ok: true,
  requestedAt,
  answeredAt: requestedAt,
  message: null,
  fingerprint,
  readback,
  observation,
});
const observation = (fingerprint: string, over: Partial<Observation>): Observation => ({
  view: view(fingerprint, 'working'),
  events: [],
  wakes: [],
  drafts: [],
  remoteBlocked: false,
  // No decision runtime in the authority traversal: wakes are recorded, nobody is woken.
  argusAvailable: false,
  foremanEnabled: false,
  ...over,
});

/** The plain material read: a Foreman-only wake, not blocked (it also withdraws a remote question). */
export const READ_WORKING = read('fp-1', OURS, observation('fp-1', {
  events: [{ class: 'EVIDENCE_READY', reason: 'artifact_added', dedupeKey: 'artifact:task-1:ckpt' }],
  wakes: [wake('foreman', 'EVIDENCE_READY', 'artifact_added', 'artifact:task-1:ckpt')],
}));
export const READ_BLOCKED = read('fp-2', OURS, observation('fp-2', {
  view: view('fp-2', 'input-required'),
  remoteBlocked: true,
  events: [{ class: 'BLOCKED', reason: 'blocked_input_required', dedupeKey: K_BLOCK, question: 'Which dataset?' }],
  wakes: [wake('argus', 'BLOCKED', 'blocked_input_required', K_BLOCK)],
  drafts: [draft('NEEDS_YOU', K_BLOCK)],
}));
export const READ_DONE = read('fp-3', OURS, observation('fp-3', {
  view: view('fp-3', 'completed'),
  events: [{ class: 'ATTEMPT_COMPLETED', reason: 'attempt_terminal', dedupeKey: K_DONE }],
  wakes: [wake('argus', 'ATTEMPT_COMPLETED', 'attempt_terminal', K_DONE)],
  drafts: [draft('ATTEMPT_COMPLETED', K_DONE)],
}));

/** Reads the effect found nothing to reduce in (same fingerprint as fp-1), with every kind of lease readback. */
export const READBACKS: { readback: LeaseReadback | null; requestedAt: string }[] = [
  { readback: OURS, requestedAt: NOW },
  { readback: RIVAL, requestedAt: NOW },
  { readback: null, requestedAt: NOW },
  { readback: EXPIRED, requestedAt: NOW },
  { readback: { ...OURS, epoch: EPOCH - 1 }, requestedAt: NOW },
  // Sent before the claim's readback confirmed the lease: it cannot judge it.
  { readback: RIVAL, requestedAt: '2030-01-01T00:00:01.000Z' },
];

// The backoff outlasts both tick instants (NOW, LATER): readDue is false until an operator's
// OBSERVE reads or a resume clears it; fewer distinct backoffs keep the graph small.
const failed = (requestedAt: string, consecutive: number, critical: boolean): ReadStatusOutput => ({
  ok: false,
  requestedAt,
  answeredAt: requestedAt,
  code: 'remote_unavailable',
  failure: { consecutive, critical, backoffMs: 20 * CADENCE_MS, drafts: critical ? [draft('CRITICAL', 'remote_unavailable:camp-1:1')] : [] },
});
export const READ_FAILURES: ReadStatusOutput[] = [failed(NOW, 1, false), failed(NOW, 3, true), failed(AFTER_EXPIRY, 1, false)];

export const READ_OUTPUTS: ReadStatusOutput[] = [
  READ_WORKING,
  READ_BLOCKED,
  READ_DONE,
  ...READBACKS.map(({ readback, requestedAt }) => read('fp-1', readback, null, requestedAt)),
  ...READ_FAILURES,
];

export const CLAIM_OUTPUTS: ClaimLeaseOutput[] = [
  { claimed: OURS, readback: OURS, contextId: CONTEXT, ttlSeconds: 600, code: null },
  { claimed: null, readback: null, contextId: CONTEXT, ttlSeconds: 600, code: 'lease_held' },
  { claimed: { ...RIVAL, epoch: EPOCH }, readback: OURS, contextId: CONTEXT, ttlSeconds: 600, code: null },
  { claimed: OURS, readback: RIVAL, contextId: CONTEXT, ttlSeconds: 600, code: null },
  { claimed: OURS, readback: OURS, contextId: null, ttlSeconds: 600, code: null },
];
export const RENEW_OUTPUTS: RenewLeaseOutput[] = [
  { lease: OURS, code: null },
  { lease: RIVAL, code: 'lease_held' },
  { lease: null, code: null },
];
// The planner takes the first answer that reaches a transition: the ones the driven paths can
// arrange (a fault, a rival's takeover) come before NEAR_EXPIRY, which they cannot.
export const READ_LEASE_OUTPUTS: ReadLeaseOutput[] = [
  { readback: OURS, code: null },
  { readback: null, code: 'remote_timeout' },
  { readback: RIVAL, code: null },
  { readback: NEAR_EXPIRY, code: null },
  { readback: null, code: null },
  { readback: EXPIRED, code: null },
  { readback: { ...OURS, epoch: EPOCH - 1 }, code: null },
  { readback: { ...RIVAL, epoch: EPOCH }, code: null },
  { readback: { ...OURS, expiresAt: READ_AT }, code: null },
];
/**
 * A takeover's claim step (issue 22 part 4), entered after the readback showed us: the remote
 * granted epoch + 1; did not answer; refused the claim (held elsewhere meanwhile); granted, but
 * the readback after it shows someone else.
 */
export const ROTATED: LeaseReadback = { ...OURS, epoch: EPOCH + 1 };
export const ROTATE_OUTPUTS: RotateLeaseOutput[] = [
  { before: OURS, claimed: ROTATED, readback: ROTATED, code: null },
  { before: OURS, claimed: null, readback: null, code: 'epoch_rotation_failed' },
  { before: OURS, claimed: null, readback: null, code: 'lease_lost_readback' },
  { before: OURS, claimed: ROTATED, readback: { ...RIVAL, epoch: EPOCH + 2 }, code: null },
];
/** The journal's clock after the write: each side of the freshness and send-margin comparisons. */
export const JOURNAL_OUTPUTS: JournalIntentOutput[] = [
  { journaledAt: NOW, refusedCode: null },
  { journaledAt: '2030-01-01T00:00:10.001Z', refusedCode: null },
  { journaledAt: '2030-01-01T00:00:35.000Z', refusedCode: null },
  { journaledAt: '2030-01-01T00:00:35.001Z', refusedCode: null },
  { journaledAt: '2030-01-01T00:00:04.000Z', refusedCode: null },
  // The journal refused (a decision consumed already): nothing written, nothing sent.
  { journaledAt: NOW, refusedCode: 'decision_consumed' },
];
export const RELAY_OUTPUTS: RelayMutationOutput[] = [
  { outcome: 'applied', requestId: REQ, taskId: 'task-2' },
  { outcome: 'applied', requestId: REQ, taskId: null },
  { outcome: 'rejected', requestId: REQ, code: 'lease_not_held', leaseLost: true },
  { outcome: 'rejected', requestId: REQ, code: 'remote_rpc_error', leaseLost: false },
  { outcome: 'ambiguous', requestId: REQ, code: 'remote_timeout' },
];
export const READ_BACK_OUTPUTS: ReadBackIntentOutput[] = [
  { requestId: REQ, status: 'applied', taskId: 'task-2' },
  { requestId: REQ, status: 'not_applied', taskId: null },
  { requestId: REQ, status: 'unavailable', taskId: null },
  { requestId: 'req-other', status: 'applied', taskId: null },
];

/** The authority effects with their answers (the decision effects' are in graph-decisions.ts). */
export const AUTHORITY_EFFECT_ANSWERS: Record<string, unknown[]> = {
  claimLease: CLAIM_OUTPUTS,
  renewLease: RENEW_OUTPUTS,
  readLease: READ_LEASE_OUTPUTS,
  rotateLease: ROTATE_OUTPUTS,
  journalIntent: JOURNAL_OUTPUTS,
  relayMutation: RELAY_OUTPUTS,
  readBackIntent: READ_BACK_OUTPUTS,
};

/** The status reader's answers to one READ: each read output, and a read that threw. */
export const READER_ID = 'statusReader';
export const READ_ANSWERS: CampaignEvent[] = [...READ_OUTPUTS.map((output) => ({ type: 'READ_DONE' as const, output })), { type: 'READ_CRASHED' }];

const GOOD_ENV = environmentEvent();
/**
 * Discovery answering otherwise (nothing discovered, a remote that does not fence by epoch):
 * offered only in `observing` and `controlling.ready` while the environment is the good path's
 * and nothing was read yet (as discovery answers at start),
 * so the capability rows of claim, MUTATE and answer are judged where the chart takes them,
 * without a second copy of the whole graph per variant. A remote without one mutation kind is
 * judged per state by the policy test (policy.graph.ts) instead.
 */
export const ENV_VARIANTS: CampaignEvent[] = [environmentEvent({ capabilities: null }), environmentEvent({ capabilities: { ...FULL, epochEnforced: false } })];

export const GRAPH_EVENTS: CampaignEvent[] = [
  ...CLAIMS.map((c) => c.event),
  ...MUTATIONS.map((m) => m.event),
  ...TICKS,
  ...OBSERVES,
  ...Object.entries(AUTHORITY_EFFECT_ANSWERS).flatMap(([id, outputs]) => [...outputs.map((o) => done(id, o)), error(id)]),
  ...READ_ANSWERS,
  // intent in doubt and its resolution
  { type: 'INTENT_IN_DOUBT', requestId: REQ, kind: 'submit' },
  { type: 'RESOLVE_INTENT' },
  // a replica took the campaign over (the runtime's word; the chart rotates the epoch in
  // controlling and in doubt), in time and past the lease's renewal deadline
  { type: 'HOSTING_TAKEN_OVER', now: NOW },
  { type: 'HOSTING_TAKEN_OVER', now: PAST_RENEW_DEADLINE },
  // attention: the remote's own question, answered as a fenced mutation
  ...ANSWERS.map((a) => a.event),
  // lifecycle
  { type: 'PAUSE' },
  { type: 'RESUME', now: NOW },
  { type: 'CLOSE' },
  // The good path's environment, broadcast again: new only after a variant (ENV_VARIANTS).
  GOOD_ENV,
];

/**
 * The alphabet offered in one state: an effect's done/error events only while that effect runs,
 * and the reader's answers only while a read is asked (`heartbeat.reading`), as in life (XState
 * treats an unhandled `xstate.error.actor.*` as the machine's own error).
 */
export function eventsFor(
  snapshot: { children: Record<string, unknown>; matches(value: unknown): boolean; context: { environment: HostEnvironment; remote: unknown } },
  alphabet: readonly CampaignEvent[] = GRAPH_EVENTS,
): CampaignEvent[] {
  const reading = snapshot.matches({ active: { heartbeat: 'reading' } });
  const variants =
    snapshot.context.environment.capabilities?.epochEnforced === true &&
    snapshot.context.remote === null &&
    (snapshot.matches({ active: { authority: 'observing' } }) || snapshot.matches({ active: { authority: { controlling: 'ready' } } }));
  const offered = alphabet.filter((e) => {
    if (e.type === 'READ_DONE' || e.type === 'READ_CRASHED') return reading;
    const effect = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
    return effect === undefined || effect in snapshot.children;
  });
  return variants && alphabet === GRAPH_EVENTS ? [...offered, ...ENV_VARIANTS] : offered;
}

/**
 * Traversal roots besides the initial state: snapshots a campaign document can hand back that
 * no event sequence from the start produces. The store restores whatever snapshot it finds
 * (same machine version), so the chart's own guards must hold there too.
 *
 * - A campaign created with no task (UNBOUND): it never reads; OBSERVE is refused `no_task_bound`,
 *   and once a claim has learned the context, an intervene or cancel `no_remote_task`.
 * - controlling.ready with an intent still open: from the start, `pendingIntent` is non-null
 *   only in verifying, journaling, relaying, ambiguous-intent, paused and closed (the graph
 *   test proves it), so `noOpenIntent` is false for MUTATE only from here. From this root the
 *   traversal also reaches control-lost with the intent open, where it refuses OPERATOR_CLAIM.
 */
export function restoredRoots(machine: CampaignMachine, input: CampaignInput): SnapshotFrom<CampaignMachine>[] {
  // Created with no task: nothing to read; a claim learns its context, a submit binds its task.
  const [unbound] = initialTransition(machine, { ...input, binding: UNBOUND });
  const [start] = initialTransition(machine, input);
  const [claiming] = transition(machine, start, claimEvent());
  const [controlling] = transition(machine, claiming, done('claimLease', CLAIM_OUTPUTS[0]));
  // The journal's request id is the alphabet's (REQ), so its readbacks can settle it.
  const pendingIntent = { requestId: REQ, kind: 'submit', epoch: null, mutation: null, binding: null, readback: null } as const;
  // Through the store's own restore path (persisted JSON, then XState's restore), so the root
  // has its live reader as a restored document would.
  const persisted = JSON.parse(JSON.stringify(machine.getPersistedSnapshot(controlling))) as Record<string, unknown>;
  const root = restore(machine, { ...persisted, context: { ...controlling.context, pendingIntent } });
  return [root, unbound];
}

/**
 * A persisted snapshot restored outside any running actor, through XState's public door: an
 * actor created on it and never started (its children are created, never started). The actor
 * turns a failed restore into an error snapshot; here it fails loudly instead.
 */
export function restore(machine: CampaignMachine, persisted: unknown): SnapshotFrom<CampaignMachine> {
  // Input is read only to create a snapshot, never to restore one: the chart's typed options ask for it.
  const snapshot = createActor(machine as AnyStateMachine, { snapshot: persisted as Snapshot<unknown> }).getSnapshot() as SnapshotFrom<CampaignMachine>;
  if (snapshot.status === 'error') throw snapshot.error;
  return snapshot;
}
