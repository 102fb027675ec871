/**
 * Snapshot migrations of the campaign chart. `campaign@2` (the release that wrote schema-v1
 * documents) kept half of what the chart decides on in the document beside the snapshot; in
 * `campaign@3` the context is the one truth, so the migration takes those document fields as
 * plain data (`CampaignV1Facts`: machines never import persistence) and folds them in.
 *
 * It fails closed: a snapshot that is not what `campaign@2` persisted (unknown state, missing
 * context field, an effect in flight) is refused with a reason, never guessed into shape.
 * @module
 */
import type { CampaignContext, MutationKind, OurLease, PendingIntent, PendingQuestion, ReadFailures, RemoteView } from './campaign.types.js';
import { migrateCampaign4to5, withStatusReader } from './campaign.restore.js';
import { CAMPAIGN_MACHINE_VERSION } from './campaign.version.js';
import { NO_ENVIRONMENT } from './campaign.types.js';
import { initialArgusMemory } from './campaign.argus.js';

/** The version every snapshot in a schema-v1 document was written by. */
export const CAMPAIGN_MACHINE_VERSION_V2 = 'campaign@2';

/** What the v1 document knew beside its `campaign@2` snapshot (the fields v2 drops). */
export interface CampaignV1Facts {
  createdAt: string;
  attemptsSubmitted: number;
  /** The document's lease copy (the snapshot's lease had no context or TTL). */
  lease: { contextId: string; ttlSeconds: number } | null;
  /** The v1 binding's context (`remote.contextId`), as the v1 document held it. */
  bindingContextId: string | null;
  /** The v1 binding's task (`remote.taskId`). */
  bindingTaskId: string | null;
  remoteView: RemoteView | null;
  pendingQuestion: { askedAt: string } | null;
  readFailures: { consecutiveFailures: number; nextReadAt: string | null; criticalRaised: boolean };
}

export interface PersistedCampaignSnapshot3 {
  status: string;
  value: unknown;
  historyValue: unknown;
  context: CampaignContext;
  children: Record<string, unknown>;
  [key: string]: unknown;
}

export type SnapshotMigration =
  | { ok: true; version: string; snapshot: PersistedCampaignSnapshot3 }
  | { ok: false; reason: string };

/** The TTL a v1 lease had when the document lost it (the claim default of that release). */
const V1_DEFAULT_TTL_SECONDS = 600;
const MUTATION_KINDS: readonly MutationKind[] = ['submit', 'intervene', 'cancel', 'release'];  // campaign@2 had no `answer`
const QUESTION_SOURCES: readonly PendingQuestion['source'][] = ['remote', 'argus'];
/**
 * The authority states `campaign@2` could persist: it saved only quiescent snapshots, so an
 * effect state (claiming, renewing, relaying, resolving) in a file means something else wrote it.
 */
const QUIESCENT_AUTHORITY = ['observing', 'control-lost', '{"controlling":"ready"}', '{"ambiguous-intent":"unresolved"}'];
const ATTENTION = ['idle', 'awaiting-review', 'needs-you'];

class Refused extends Error {}
const refuse = (reason: string): never => {
  throw new Refused(reason);
};

/** `campaign@2` persisted snapshot + the v1 document's facts → a current (`campaign@6`) persisted snapshot. */
export function migrateCampaign2to3(snapshot2: unknown, facts: CampaignV1Facts): SnapshotMigration {
  try {
    const snap = record(snapshot2, 'snapshot');
    const { value, historyValue, context: _old, children: _children, ...rest } = snap;
    if (typeof snap.status !== 'string') refuse('snapshot.status is not a string');
    if (typeof historyValue !== 'object' || historyValue === null) refuse('snapshot.historyValue is not an object');
    const snapshot: PersistedCampaignSnapshot3 = {
      ...rest,
      status: snap.status as string,
      value: migrateValue(value),
      // History names attention states, which keep their ids in campaign@3.
      historyValue,
      context: migrateContext(record(snap.context, 'snapshot.context'), facts),
      // A quiescent campaign@2 snapshot had no live children; campaign@3 starts none on restore.
      children: {},
    };
    checkCoherent(snapshot);
    // Then what campaign@5 adds (the Argus memory, the attention's own states), so the document
    // is current, with its long-lived status reader.
    return { ok: true, version: CAMPAIGN_MACHINE_VERSION, snapshot: withStatusReader(migrateCampaign4to5(snapshot)) as PersistedCampaignSnapshot3 };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: `campaign@2 snapshot: ${error.message}` };
    throw error;
  }
}

/** Same states, plus the `heartbeat` region under `active` (idle: no read was in flight). */
function migrateValue(value: unknown): unknown {
  if (value === 'paused' || value === 'closed') return value;
  const active = record(record(value, 'value').active, 'value.active');
  const authority = typeof active.authority === 'string' ? active.authority : JSON.stringify(active.authority);
  if (!QUIESCENT_AUTHORITY.includes(authority)) refuse(`authority state ${authority?.slice(0, 80)} is not one campaign@2 persisted`);
  if (typeof active.attention !== 'string' || !ATTENTION.includes(active.attention)) refuse(`attention state ${JSON.stringify(active.attention)?.slice(0, 80)} unknown`);
  if (Object.keys(active).length !== 2) refuse('value.active has regions campaign@2 did not have');
  return { active: { authority: active.authority, attention: active.attention, heartbeat: 'idle' } };
}

/**
 * campaign@2 entered `controlling` only by adopting a lease and `ambiguous-intent` only with its
 * intent: a snapshot in either without it restores into a state whose rules can never hold
 * (a release with no epoch, a readback of no request id), so it is refused, not guessed.
 */
function checkCoherent(snapshot: PersistedCampaignSnapshot3): void {
  const authority = JSON.stringify((snapshot.value as { active?: { authority?: unknown } }).active?.authority ?? null);
  if (authority === '{"controlling":"ready"}' && snapshot.context.lease === null) refuse('controlling without a lease in its context');
  if (authority === '{"ambiguous-intent":"unresolved"}' && snapshot.context.pendingIntent === null) refuse('ambiguous-intent without its pending intent');
}

function migrateContext(old: Record<string, unknown>, facts: CampaignV1Facts): CampaignContext {
  const oldAttempts = count(old.attemptsSubmitted, 'attemptsSubmitted');
  const wakes = record(old.wakes, 'context.wakes');
  return {
    campaignId: text(old.campaignId, 'campaignId'),
    controllerId: text(old.controllerId, 'controllerId'),
    createdAt: facts.createdAt,
    maxAttempts: count(old.maxAttempts, 'maxAttempts'),
    // The v1 document counted a submit the snapshot sometimes missed: the higher count is the
    // one that was really sent (attempts only ever go up).
    attemptsSubmitted: Math.max(oldAttempts, facts.attemptsSubmitted),
    lease: migrateLease(old.lease, facts),
    lastEpoch: nullable(old.lastEpoch, count, 'lastEpoch'),
    lastHeldSince: nullable(old.lastHeldSince, text, 'lastHeldSince'),
    pendingIntent: nullable(old.pendingIntent, migratePendingIntent, 'pendingIntent'),
    pendingQuestion: nullable(old.pendingQuestion, (q) => migrateQuestion(q, facts), 'pendingQuestion'),
    lastErrorCode: nullable(old.lastErrorCode, text, 'lastErrorCode'),
    remote: facts.remoteView,
    readFailures: migrateReadFailures(facts.readFailures),
    wakes: { lastArgusEventKey: nullable(wakes.lastArgusEventKey, text, 'wakes.lastArgusEventKey') },
    argus: initialArgusMemory(),
    // The lease's context wins over the view's: it is the context we were granted control of.
    binding: { taskId: facts.bindingTaskId, contextId: facts.lease?.contextId ?? facts.bindingContextId ?? facts.remoteView?.contextId ?? null },
    environment: NO_ENVIRONMENT,
  };
}

function migrateLease(raw: unknown, facts: CampaignV1Facts): OurLease | null {
  if (raw === null) return null;
  const lease = record(raw, 'context.lease');
  const heldSince = text(lease.heldSince, 'lease.heldSince');
  return {
    epoch: count(lease.epoch, 'lease.epoch'),
    expiresAt: text(lease.expiresAt, 'lease.expiresAt'),
    heldSince,
    // campaign@2 did not record renewals' confirmations; the claim readback is the last one known.
    confirmedAt: heldSince,
    contextId: facts.lease?.contextId ?? facts.bindingContextId ?? facts.remoteView?.contextId ?? '',
    ttlSeconds: facts.lease?.ttlSeconds ?? V1_DEFAULT_TTL_SECONDS,
  };
}

function migratePendingIntent(raw: unknown): PendingIntent {
  const intent = record(raw, 'context.pendingIntent');
  const kind = intent.kind;
  if (!MUTATION_KINDS.includes(kind as MutationKind)) refuse(`pendingIntent.kind ${JSON.stringify(kind)?.slice(0, 40)} unknown`);
  // campaign@2 kept only the id and kind of an open intent (it was restored in doubt, never
  // re-sent): the rest of what campaign@3 remembers about a mutation in flight is unknown.
  return { requestId: text(intent.requestId, 'pendingIntent.requestId'), kind: kind as MutationKind, epoch: null, mutation: null, binding: null, readback: null };
}

function migrateQuestion(raw: unknown, facts: CampaignV1Facts): PendingQuestion {
  const question = record(raw, 'context.pendingQuestion');
  const source = question.source;
  if (!QUESTION_SOURCES.includes(source as PendingQuestion['source'])) refuse(`pendingQuestion.source ${JSON.stringify(source)?.slice(0, 40)} unknown`);
  return {
    key: text(question.key, 'pendingQuestion.key'),
    text: typeof question.text === 'string' ? question.text : refuse('pendingQuestion.text is not a string'),
    source: source as PendingQuestion['source'],
    // The document recorded when it was asked; without that, the campaign's start is the
    // earliest it can have been asked (never later than the truth).
    askedAt: facts.pendingQuestion?.askedAt ?? facts.createdAt,
  };
}

const migrateReadFailures = (f: CampaignV1Facts['readFailures']): ReadFailures => ({
  consecutive: f.consecutiveFailures,
  nextReadAt: f.nextReadAt,
  criticalRaised: f.criticalRaised,
});

function record(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refuse(`${what} is not an object`);
  return raw as Record<string, unknown>;
}

function text(raw: unknown, what: string): string {
  return typeof raw === 'string' && raw.length > 0 ? raw : refuse(`${what} is not a non-empty string`);
}

function count(raw: unknown, what: string): number {
  return typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : refuse(`${what} is not a count`);
}

function nullable<T>(raw: unknown, read: (raw: unknown, what: string) => T, what: string): T | null {
  if (raw === null) return null;
  if (raw === undefined) return refuse(`context.${what} is missing`);
  return read(raw, what);
}
