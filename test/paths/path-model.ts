/**
 * The model a driven path is checked against, step by step: the pure chart (instrumented, so
 * the guard outcomes a step evaluates are known) fed the very events the running campaign
 * actor received, from the snapshot the store persisted. What it says a step must do:
 * where the chart goes, what it emits (so which public events the outbox must gain), which
 * effects it starts (so which remote methods may be called), and which actions it can take
 * afterwards (so what the view's `allowed_actions` must say).
 */
import type { AnyEventObject } from 'xstate';
import type { CampaignEvent, HostEnvironment } from '../../machines/campaign.types.js';
import type { CampaignEmitted } from '../../machines/campaign.emitted.js';
import type { PublicEventDraft } from '../../machines/vocabulary.js';
import { settleInterrupted, withEnvironment } from '../../machines/campaign.restore.js';
import { controlLostDraft, intentAmbiguousDraft } from '../../services/reducer/reducer.js';
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { lastTaken, machine, pureStep, recorder, type Snap } from '../machines/campaign-traversal.js';
import { restore } from '../machines/graph-events.js';

/** A persisted snapshot restored as the host restores it: interrupted work settled, this process's environment. */
export function restoreModel(persisted: unknown, now: Date, environment: HostEnvironment): { snap: Snap; emitted: CampaignEmitted[] } {
  const settled = settleInterrupted(persisted, now.toISOString());
  return { snap: restore(machine, withEnvironment(settled.snapshot, environment)), emitted: settled.emitted };
}

/** A persisted snapshot as data, as the store keeps it (no live children, no functions). */
export const persistedOf = (s: Snap): unknown => JSON.parse(JSON.stringify(machine.getPersistedSnapshot(s)));

export interface ModelStep {
  next: Snap;
  /** The declared transitions the step took (ids). */
  taken: string[];
  emitted: CampaignEmitted[];
  /** The effects the step invoked (their ids), and whether it asked the status reader to read. */
  invoked: string[];
  guards: Set<string>;
}

/** One pure step; the events a step's effects send back arrive as their own steps. */
export function modelStep(s: Snap, event: AnyEventObject): ModelStep {
  const [[next, actions, taken], guards] = recorder.capture(() => [...pureStep(s, event as CampaignEvent), lastTaken()] as const);
  const emitted: CampaignEmitted[] = [];
  const invoked: string[] = [];
  for (const a of actions as { type: string; params?: Record<string, unknown> }[]) {
    if (a.type === 'xstate.emit') emitted.push((a.params as { event: CampaignEmitted }).event);
    // A relay is named with its mutation's kind: which one method it may call depends on it.
    else if (a.type === 'xstate.spawnChild') invoked.push(a.params?.id === 'relayMutation' ? `relayMutation:${next.context.pendingIntent?.kind ?? '?'}` : String(a.params?.id));
    else if (a.type === 'xstate.sendTo') {
      const to = a.params?.to as { id?: string } | string | undefined;
      invoked.push(typeof to === 'string' ? to : (to?.id ?? 'unknown'));
    }
  }
  return { next, taken, emitted, invoked, guards };
}

/** The public events the outbox gains for what the chart emitted (the save's translation). */
export function expectedDrafts(emitted: readonly CampaignEmitted[]): PublicEventDraft[] {
  return emitted.flatMap((e) => {
    if (e.type === 'PUBLIC_DRAFTS') return e.drafts;
    if (e.type === 'CONTROL_LOST') return [controlLostDraft(e)];
    if (e.type === 'INTENT_AMBIGUOUS') return [intentAmbiguousDraft(e)];
    return [];
  });
}

/**
 * The remote methods each effect may call; an effect the model did not start may call none.
 * The Argus and Foreman effects talk to their own runtimes, never to the remote.
 */
export const EFFECT_METHODS: Record<string, readonly string[]> = {
  // ListTasks: the heartbeat's fleet sweep answers a beat's reads from a listing (probed once;
  // the simulator here refuses it, so each read then sends GetTask).
  statusReader: ['GetTask', 'ListTasks', CONTROL_METHODS.leaseGet],
  claimLease: [CONTROL_METHODS.leaseClaim, CONTROL_METHODS.leaseGet, 'GetTask'],
  renewLease: [CONTROL_METHODS.leaseRenew, CONTROL_METHODS.leaseGet],
  readLease: [CONTROL_METHODS.leaseGet],
  // A takeover's claim step (its readback before is a readLease): re-claim (at most once), readback.
  rotateLease: [CONTROL_METHODS.leaseClaim, CONTROL_METHODS.leaseGet],
  'relayMutation:submit': ['SendMessage'],
  'relayMutation:answer': ['SendMessage'],
  'relayMutation:intervene': [CONTROL_METHODS.intervene],
  'relayMutation:cancel': ['CancelTask'],
  'relayMutation:release': [CONTROL_METHODS.leaseRelease],
  readBackIntent: [CONTROL_METHODS.requestGet],
};

/** Methods that change the remote: each started effect that may call one calls it at most once (never resent). */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(['SendMessage', 'CancelTask', CONTROL_METHODS.intervene, CONTROL_METHODS.leaseRelease, CONTROL_METHODS.leaseClaim, CONTROL_METHODS.leaseRenew]);

/** The operator actions, as the API lists them. */
export const ACTIONS = ['observe', 'pause', 'resume', 'close', 'answer', 'mission', 'claim', 'release', 'submit', 'intervene', 'cancel', 'resolve_intent'] as const;

/**
 * The actions whose representative operator event the model can take now (docs/api.md: "the
 * actions whose representative event the actor can take"), built here from the operator's
 * words alone: the lease's epoch, the question's key, an operator's approval, the clock.
 */
export function modelAllowed(s: Snap, now: Date, leaseTtlSeconds: number): string[] {
  if (s.status !== 'active') return [];
  const at = now.toISOString();
  const epoch = s.context.lease?.epoch ?? 0;
  const mutate = (mutation: Record<string, unknown>) => ({ type: 'MUTATE', mutation, requestId: 'allowed', epoch, approval: { kind: 'operator', principal: 'api-key' }, now: at });
  const events: Record<(typeof ACTIONS)[number], AnyEventObject> = {
    observe: { type: 'OBSERVE', now: at },
    pause: { type: 'PAUSE' },
    resume: { type: 'RESUME', now: at },
    close: { type: 'CLOSE' },
    answer: { type: 'OPERATOR_ANSWER', questionKey: s.context.pendingQuestion?.key ?? '', answer: 'answer', now: at, requestId: 'allowed' },
    mission: { type: 'BIND_MISSION' },
    claim: { type: 'OPERATOR_CLAIM', ttlSeconds: leaseTtlSeconds, now: at },
    release: mutate({ kind: 'release' }),
    submit: mutate({ kind: 'submit', text: 'attempt' }),
    intervene: mutate({ kind: 'intervene', instruction: 'instruction' }),
    cancel: mutate({ kind: 'cancel', reason: 'reason' }),
    resolve_intent: { type: 'RESOLVE_INTENT' },
  };
  return ACTIONS.filter((action) => s.can(events[action] as CampaignEvent));
}
