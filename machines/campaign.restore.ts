/**
 * What a persisted snapshot must become before XState restores it. XState restores the children
 * a snapshot names and starts no invoke of a state it re-enters, so:
 *
 * - The long-lived `statusReader` must be in `children` whenever the campaign is active, and a
 *   read in flight when the snapshot was written is never answered: `heartbeat.reading`
 *   restores in `heartbeat.idle` (the next TICK reads again; a read only reads).
 * - A status poll in flight (`idle.verifying`, `awaiting-review.checking`) restores before it
 *   (`idle.quiet`, `awaiting-review.mission`): the next TICK asks again, no model is called.
 * - A mission bind in flight (`binding`) restores in `idle`: the operator's `mission` re-attaches.
 * - An Argus turn in flight (`awaiting-review.turn`), or a Foreman assessment of an event that
 *   wants Argus, is NEVER replayed: it restores in `needs-you` with an "interrupted" receipt,
 *   and the wake log records that (`settleInterrupted` hands the host what to save).
 * - Every restore asks the Argus binding again (`bindingVerified: false`).
 *
 * Versions: `campaign@3` invoked one promise actor per read; `campaign@4` had the reader but an
 * inert `awaiting-review` placeholder and no `argus` memory; `campaign@5` kept the binding in the
 * document and took the process's facts on every event. All restore as `campaign@6`.
 *
 * Every restore puts the process's environment of now in the context (`withEnvironment`): a
 * snapshot's capabilities are of the process that wrote it, and until this process's discovery
 * answers, nothing may be claimed or sent on the strength of them.
 * @module
 */
import { holdReceipt, settle } from './campaign.decide.js';
import { initialArgusMemory } from './campaign.argus.js';
import { NO_ENVIRONMENT, type BindingFacts, type CampaignContext, type CampaignEmitted, type HostEnvironment } from './campaign.types.js';
import { CAMPAIGN_MACHINE_VERSION, type PersistedCampaignMachine } from './campaign.version.js';

export const CAMPAIGN_MACHINE_VERSION_3 = 'campaign@3';
export const CAMPAIGN_MACHINE_VERSION_4 = 'campaign@4';
export const CAMPAIGN_MACHINE_VERSION_5 = 'campaign@5';

/** A callback actor persists no state of its own: restoring this entry starts the reader again. */
const READER_CHILD = { snapshot: { status: 'active' }, src: 'statusReader', syncSnapshot: false } as const;
/** Invoked children a restored snapshot never keeps (see above): each is re-asked, or interrupted. */
const TRANSIENT_CHILDREN = ['readStatus', 'statusReader', 'verifyBinding', 'argusCheck', 'bindMission', 'argusTurn', 'foremanAssess'];
const ATTENTION_ID = 'campaign.active.attention.';

export type RestoreCheck = { ok: true; snapshot: unknown } | { ok: false; code: 'machine_version_unknown'; version: string };

const KNOWN = [CAMPAIGN_MACHINE_VERSION, CAMPAIGN_MACHINE_VERSION_5, CAMPAIGN_MACHINE_VERSION_4, CAMPAIGN_MACHINE_VERSION_3];
export const isKnownMachineVersion = (version: string): boolean => KNOWN.includes(version);

/**
 * Refuses a snapshot written by any other machine version (the caller fails closed).
 * @param documentBinding The binding the document kept beside a `campaign@5` (or older) snapshot.
 */
export function checkRestorable(persisted: PersistedCampaignMachine, documentBinding: BindingFacts): RestoreCheck {
  if (!isKnownMachineVersion(persisted.version)) return { ok: false, code: 'machine_version_unknown', version: persisted.version };
  if (persisted.version === CAMPAIGN_MACHINE_VERSION) return { ok: true, snapshot: persisted.snapshot };
  const v5 = persisted.version === CAMPAIGN_MACHINE_VERSION_5 ? persisted.snapshot : migrateCampaign4to5(persisted.snapshot);
  return { ok: true, snapshot: migrateCampaign5to6(v5, documentBinding) };
}

/**
 * A `campaign@5` persisted snapshot → a `campaign@6` one: the binding moves into the context (the
 * document's, with the context the last read of its task or the lease named when it had none, as
 * `campaign@5`'s services derived it on every event), and the environment starts empty.
 */
export function migrateCampaign5to6(snapshot: unknown, documentBinding: BindingFacts): unknown {
  if (!isRecord(snapshot) || !isRecord(snapshot.context)) return snapshot;
  const context = snapshot.context;
  const remote = isRecord(context.remote) ? context.remote : null;
  const lease = isRecord(context.lease) ? context.lease : null;
  const seen = remote && remote.taskId === documentBinding.taskId && typeof remote.contextId === 'string' ? remote.contextId : null;
  const leased = lease && typeof lease.contextId === 'string' && lease.contextId !== '' ? lease.contextId : null;
  const binding: BindingFacts = { taskId: documentBinding.taskId, contextId: documentBinding.contextId ?? seen ?? leased };
  return { ...snapshot, context: { ...context, binding, environment: NO_ENVIRONMENT } };
}

/** The restored context holds this process's environment, never the writer's (see the module comment). */
export function withEnvironment(snapshot: unknown, environment: HostEnvironment): unknown {
  if (!isRecord(snapshot) || !isRecord(snapshot.context)) return snapshot;
  return { ...snapshot, context: { ...snapshot.context, environment } };
}

/**
 * A `campaign@3` or `campaign@4` persisted snapshot → a `campaign@5` one: the `argus` memory,
 * and the attention placeholder (`awaiting-review`, which never invoked anything) back in
 * `idle` (its wake is in the wake log; no turn was ever sent for it).
 */
export function migrateCampaign4to5(snapshot: unknown): unknown {
  // A paused (or closed) snapshot's value is a string: its context and history migrate all the same.
  if (!isRecord(snapshot) || !isRecord(snapshot.context)) return snapshot;
  const context = { ...snapshot.context, argus: isRecord(snapshot.context.argus) ? snapshot.context.argus : initialArgusMemory() };
  const value = isRecord(snapshot.value) ? snapshot.value : null;
  const active = value?.active;
  const historyValue = isRecord(snapshot.historyValue) ? mapHistory(snapshot.historyValue) : snapshot.historyValue;
  if (!isRecord(active)) return { ...snapshot, context, historyValue };
  const attention = active.attention === 'idle' || active.attention === 'awaiting-review' ? { idle: 'quiet' } : active.attention;
  return { ...snapshot, context, historyValue, value: { ...value, active: { ...active, attention } } };
}

/** An active snapshot carries its long-lived status reader (as the actor itself persists it). */
export function withStatusReader(snapshot: unknown): unknown {
  if (!isRecord(snapshot) || !isRecord(snapshot.value) || !isRecord(snapshot.value.active)) return snapshot;
  return { ...snapshot, children: { ...(isRecord(snapshot.children) ? snapshot.children : {}), statusReader: READER_CHILD } };
}

/** History that names the placeholder names `idle` instead (a resume there starts nothing). */
function mapHistory(history: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, nodes] of Object.entries(history)) {
    out[key] = Array.isArray(nodes)
      ? nodes.map((n) => (isRecord(n) && n.id === `${ATTENTION_ID}awaiting-review` ? { ...n, id: `${ATTENTION_ID}idle` } : n))
      : nodes;
  }
  return out;
}

export interface SettledRestore {
  snapshot: unknown;
  /** What the host must save with the first snapshot: the interrupted receipt and its wake-log record. */
  emitted: CampaignEmitted[];
}

/**
 * A current persisted snapshot → the one to restore, settling what was in flight (see the
 * module comment). `now` stamps an interrupted receipt. Anything that is not snapshot-shaped is
 * handed on untouched, for XState to refuse.
 */
export function settleInterrupted(snapshot: unknown, now: string): SettledRestore {
  if (!isRecord(snapshot)) return { snapshot, emitted: [] };
  // Paused (a string value): nothing is in flight, but the binding is asked again all the same.
  if (!isRecord(snapshot.value)) return { snapshot: isRecord(snapshot.context) ? { ...snapshot, context: unverified(snapshot.context) } : snapshot, emitted: [] };
  const children = Object.fromEntries(Object.entries(isRecord(snapshot.children) ? snapshot.children : {}).filter(([id]) => !TRANSIENT_CHILDREN.includes(id)));
  const active = snapshot.value.active;
  if (!isRecord(active) || !isRecord(snapshot.context)) return { snapshot: { ...snapshot, children }, emitted: [] };
  let context = unverified(snapshot.context) as unknown as CampaignContext;
  let attention = active.attention;
  let emitted: CampaignEmitted[] = [];
  const inner = isRecord(attention) ? Object.entries(attention)[0] : undefined;
  const wake = isRecord(context.argus) ? context.argus.wake : null;
  const interrupt = () => {
    const step = holdReceipt(context, 'interrupted', now, { code: 'restart_interrupted' });
    context = { ...context, ...step.assign };
    emitted = step.emit ?? [];
    attention = 'needs-you';
  };
  if (inner?.[0] === 'awaiting-review' && inner[1] === 'turn') interrupt();
  else if (inner?.[0] === 'awaiting-review' && inner[1] === 'checking') attention = { 'awaiting-review': 'mission' };
  else if (inner?.[0] === 'idle') attention = { idle: 'quiet' };
  else if (attention === 'binding') attention = { idle: 'quiet' };
  else if (inner?.[0] === 'assessing' && wake?.target === 'argus') interrupt();
  else if (inner?.[0] === 'assessing') {
    const step = settle(context, 'assessed', now, { code: 'restart_interrupted' });
    context = { ...context, ...step.assign };
    emitted = step.emit ?? [];
    attention = { idle: 'quiet' };
  }
  return {
    snapshot: { ...snapshot, context, value: { ...snapshot.value, active: { ...active, attention, heartbeat: 'idle' } }, children: { ...children, statusReader: READER_CHILD } },
    emitted,
  };
}

/** A bound project must answer `argus_status` again before it is trusted (every restore). */
const unverified = (context: Record<string, unknown>): Record<string, unknown> =>
  isRecord(context.argus) && context.argus.projectId !== null ? { ...context, argus: { ...context.argus, bindingVerified: false } } : context;

const isRecord = (raw: unknown): raw is Record<string, unknown> => typeof raw === 'object' && raw !== null && !Array.isArray(raw);
