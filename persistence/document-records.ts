/**
 * The records a campaign document keeps, shared by every document schema version (v1 in
 * `migrations/v1-schema.ts`, v2 in `campaign-document.ts`): public events, wake requests,
 * journaled intents, and the cross-record checks both versions enforce. A migration carries
 * these records over untouched, so they must mean the same thing in both versions.
 * @module
 */
import { z } from 'zod';
import { PUBLIC_EVENT_KINDS, SIGNIFICANT_EVENT_CLASSES, WAKE_TARGETS } from '../machines/vocabulary.js';
import { IDEMPOTENCY_KEY_RETENTION, idempotencyRecordSchema } from './idempotency.js';

/** Retention bounds. Counters (`nextSeq`, wake totals) never go back when entries are trimmed. */
export const OUTBOX_EVENT_RETENTION = 200;
export const PUBLISHED_KEY_RETENTION = 1000;
export const WAKE_REQUEST_RETENTION = 100;
/** Settled intents kept; unresolved (open or ambiguous) intents are never trimmed. */
export const SETTLED_INTENT_RETENTION = 500;

/** `answer`: the operator's reply to the remote's own question (A2A input-required), fenced like intervene. */
export const MUTATION_ACTIONS = ['claim', 'renew', 'release', 'submit', 'intervene', 'cancel', 'answer'] as const;
export type MutationAction = (typeof MUTATION_ACTIONS)[number];

export const INTENT_STATUSES = ['applied', 'rejected', 'not_applied', 'ambiguous'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

export const timestamp = z.iso.datetime({ offset: true });
export const nonEmpty = z.string().min(1);
export const counter = z.number().int().nonnegative();
/** An Argus decision id as the proposal file carries it: an identifier (charset and length of a remote one). */
export const decisionIdSchema = z.string().regex(/^[A-Za-z0-9._:@+/=~#-]{1,128}$/, 'identifier');

export const publicEventSchema = z.strictObject({
  /** `${campaignId}:${seq}`: stable across restarts, consumers dedupe by it. */
  id: nonEmpty,
  seq: z.number().int().positive(),
  kind: z.enum(PUBLIC_EVENT_KINDS),
  campaignId: nonEmpty,
  at: timestamp,
  /** Durable remote identity (task, attempt, stage, revision): the same key never publishes twice. */
  dedupeKey: nonEmpty,
  summary: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type PublicEvent = z.infer<typeof publicEventSchema>;

export const wakeRequestSchema = z.strictObject({
  /** Per-target sequence (equals that target's total after this request). */
  seq: z.number().int().positive(),
  target: z.enum(WAKE_TARGETS),
  /** The reducer's reason code for waking. */
  reason: nonEmpty,
  eventClass: z.enum(SIGNIFICANT_EVENT_CLASSES).nullable(),
  /** The public event this wake is about, when there is one. */
  eventId: z.string().nullable(),
  dedupeKey: nonEmpty,
  at: timestamp,
  /**
   * How the decision boundary this wake opened settled (`relayed`, `interrupted`, `timeout`, …).
   * Absent while it is open, and in documents written before decisions were wired.
   */
  settled: z
    .strictObject({ outcome: nonEmpty, code: z.string().nullable(), decisionId: z.string().nullable(), at: timestamp })
    .optional(),
});
export type WakeRequest = z.infer<typeof wakeRequestSchema>;

export const intentOutcomeSchema = z.strictObject({
  status: z.enum(INTENT_STATUSES),
  code: z.string().optional(),
  at: timestamp,
  settledBy: z.enum(['response', 'readback']).optional(),
});
export type IntentOutcome = z.infer<typeof intentOutcomeSchema>;

export const mutationIntentSchema = z.strictObject({
  requestId: nonEmpty,
  action: z.enum(MUTATION_ACTIONS),
  /** The fencing epoch the mutation carries; null only for a claim (no epoch yet). */
  epoch: counter.nullable(),
  payloadDigest: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 hex'),
  createdAt: timestamp,
  /** null = sent or about to be sent, outcome unknown. Restoring with null means ambiguous. */
  outcome: intentOutcomeSchema.nullable(),
  /**
   * The Reviewer-approved decision this mutation applies. Optional: an operator's own mutation
   * carries none, and documents written before it existed still parse.
   */
  decisionId: decisionIdSchema.optional(),
});
export type MutationIntent = z.infer<typeof mutationIntentSchema>;

/** The binding: which remote task and context this campaign acts on. */
export const remoteBindingSchema = z.strictObject({
  taskId: z.string().nullable(),
  contextId: z.string().nullable(),
  /** An attached task was started elsewhere: the supervisor never sends it again; a new attempt is only ever an explicit operator submit. */
  attached: z.boolean(),
});
export type RemoteBinding = z.infer<typeof remoteBindingSchema>;

export const outboxSchema = z.strictObject({
  /** The next event's seq. Monotonic; trimming events never lowers it. */
  nextSeq: z.number().int().positive(),
  events: z.array(publicEventSchema).max(OUTBOX_EVENT_RETENTION),
  publishedKeys: z.array(nonEmpty).max(PUBLISHED_KEY_RETENTION),
});

export const wakeLogSchema = z.strictObject({
  requests: z.array(wakeRequestSchema).max(WAKE_REQUEST_RETENTION),
  totals: z.strictObject({ argus: counter, foreman: counter }),
});

/**
 * Answers to requests sent with an Idempotency-Key (see idempotency.ts), newest last.
 * Absent in v1 documents written before it existed: they read as none.
 */
export const idempotencyLogSchema = z.array(idempotencyRecordSchema).max(IDEMPOTENCY_KEY_RETENTION).default([]);

/** Open (no outcome yet) or ambiguous: either way it blocks every further mutation. */
export const isUnresolved = (intent: MutationIntent): boolean =>
  intent.outcome === null || intent.outcome.status === 'ambiguous';

interface RecordsView {
  campaignId: string;
  outbox: { nextSeq: number; events: PublicEvent[] };
  intents: MutationIntent[];
  consumedDecisions: string[];
}

/** The cross-record rules of every version: stable event ids, one open intent, no reused decision (consumed or journaled). */
export function checkRecords(doc: RecordsView, ctx: z.RefinementCtx): void {
  let previousSeq = 0;
  doc.outbox.events.forEach((event, index) => {
    const where = ['outbox', 'events', index];
    if (event.campaignId !== doc.campaignId || event.id !== `${doc.campaignId}:${event.seq}`) {
      ctx.addIssue({ code: 'custom', path: where, message: 'event id must be `${campaignId}:${seq}`' });
    }
    if (event.seq <= previousSeq || event.seq >= doc.outbox.nextSeq) {
      ctx.addIssue({ code: 'custom', path: where, message: 'event seqs must increase and stay below nextSeq' });
    }
    previousSeq = event.seq;
  });
  const requestIds = new Set<string>();
  const decisionIds = new Set<string>();
  let unresolved = 0;
  doc.intents.forEach((intent, index) => {
    if (requestIds.has(intent.requestId)) {
      ctx.addIssue({ code: 'custom', path: ['intents', index], message: 'duplicate requestId' });
    }
    requestIds.add(intent.requestId);
    // One approval authorizes one mutation: two intents applying the same decision is a replay.
    if (intent.decisionId !== undefined) {
      if (decisionIds.has(intent.decisionId)) ctx.addIssue({ code: 'custom', path: ['intents', index], message: 'duplicate decisionId' });
      decisionIds.add(intent.decisionId);
    }
    if (isUnresolved(intent)) unresolved++;
  });
  if (unresolved > 1) ctx.addIssue({ code: 'custom', path: ['intents'], message: 'at most one unresolved intent' });
  if (new Set(doc.consumedDecisions).size !== doc.consumedDecisions.length) {
    ctx.addIssue({ code: 'custom', path: ['consumedDecisions'], message: 'duplicate decision id' });
  }
}
