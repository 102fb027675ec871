/**
 * The one durable document per campaign: everything the supervisor must remember across a
 * restart (remote binding, authority, journal, outbox, the XState snapshot). It is validated
 * on every read and every write; an unknown `documentVersion` fails closed because a newer
 * build wrote it and rewriting it here would drop what this build cannot see. Objects are
 * strict for the same reason: an unknown field is refused, never silently stripped.
 * @module
 */
import { z } from 'zod';
import { PUBLIC_EVENT_KINDS, SIGNIFICANT_EVENT_CLASSES, WAKE_TARGETS } from '../machines/vocabulary.js';
import { IDEMPOTENCY_KEY_RETENTION, idempotencyRecordSchema } from './idempotency.js';
import { leaseSnapshotSchema, remoteViewSchema } from './remote-view.js';
import { failure, type StoreFailure } from './store-errors.js';

export const DOCUMENT_VERSION = 1;

/** Retention bounds. Counters (`nextSeq`, wake totals) never go back when entries are trimmed. */
export const OUTBOX_EVENT_RETENTION = 200;
export const PUBLISHED_KEY_RETENTION = 1000;
export const WAKE_REQUEST_RETENTION = 100;
/** Settled intents kept; unresolved (open or ambiguous) intents are never trimmed. */
export const SETTLED_INTENT_RETENTION = 500;

export const DEFAULT_MAX_ATTEMPTS = 3;
export const MAX_ATTEMPTS_BOUNDS = { min: 1, max: 20 } as const;

export const MUTATION_ACTIONS = ['claim', 'renew', 'release', 'submit', 'intervene', 'cancel'] as const;
export type MutationAction = (typeof MUTATION_ACTIONS)[number];

export const INTENT_STATUSES = ['applied', 'rejected', 'not_applied', 'ambiguous'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

const timestamp = z.iso.datetime({ offset: true });
const nonEmpty = z.string().min(1);
const counter = z.number().int().nonnegative();

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
});
export type MutationIntent = z.infer<typeof mutationIntentSchema>;

const campaignDocumentShape = z.strictObject({
  documentVersion: z.literal(DOCUMENT_VERSION),
  campaignId: nonEmpty,
  objective: z.string(),
  createdAt: timestamp,
  remote: z.strictObject({
    taskId: z.string().nullable(),
    contextId: z.string().nullable(),
    /** An attached task was started elsewhere: the supervisor never sends it again; a new attempt is only ever an explicit operator submit. */
    attached: z.boolean(),
  }),
  remoteView: remoteViewSchema.nullable(),
  attemptId: z.string().nullable(),
  sourceSha: z.string().nullable(),
  /** Our lease as last read back; a local copy is never proof of authority. */
  lease: leaseSnapshotSchema.nullable(),
  controllerMode: z.enum(['observer', 'controller']),
  argusMission: z.strictObject({ projectId: nonEmpty, boundAt: timestamp }).nullable(),
  pendingQuestion: z.strictObject({ text: z.string(), askedAt: timestamp, eventId: z.string() }).nullable(),
  /** Opaque to persistence; the authority gate decides what a verdict string means. */
  reviewerVerdict: z.strictObject({ verdict: nonEmpty, eventId: z.string(), at: timestamp }).nullable(),
  latestEvidence: z.strictObject({ ref: nonEmpty, at: timestamp }).nullable(),
  maxAttempts: z.number().int().min(MAX_ATTEMPTS_BOUNDS.min).max(MAX_ATTEMPTS_BOUNDS.max).default(DEFAULT_MAX_ATTEMPTS),
  attemptsSubmitted: counter,
  readFailures: z.strictObject({
    consecutiveFailures: counter,
    nextReadAt: timestamp.nullable(),
    /** The one CRITICAL for this failure streak has been published. */
    criticalRaised: z.boolean(),
  }),
  outbox: z.strictObject({
    /** The next event's seq. Monotonic; trimming events never lowers it. */
    nextSeq: z.number().int().positive(),
    events: z.array(publicEventSchema).max(OUTBOX_EVENT_RETENTION),
    publishedKeys: z.array(nonEmpty).max(PUBLISHED_KEY_RETENTION),
  }),
  wake: z.strictObject({
    requests: z.array(wakeRequestSchema).max(WAKE_REQUEST_RETENTION),
    totals: z.strictObject({ argus: counter, foreman: counter }),
  }),
  intents: z.array(mutationIntentSchema),
  consumedDecisions: z.array(nonEmpty),
  /**
   * Answers to requests sent with an Idempotency-Key (see idempotency.ts), newest last.
   * Absent in documents written before it existed: they read as none (the migration).
   */
  idempotency: z.array(idempotencyRecordSchema).max(IDEMPOTENCY_KEY_RETENTION).default([]),
  paused: z.boolean(),
  /** The XState persisted snapshot with the machine version that wrote it. Opaque here. */
  machine: z.strictObject({ version: nonEmpty, snapshot: z.unknown() }).nullable(),
});

export const campaignDocumentSchema = campaignDocumentShape.superRefine((doc, ctx) => {
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
  let unresolved = 0;
  doc.intents.forEach((intent, index) => {
    if (requestIds.has(intent.requestId)) {
      ctx.addIssue({ code: 'custom', path: ['intents', index], message: 'duplicate requestId' });
    }
    requestIds.add(intent.requestId);
    if (isUnresolved(intent)) unresolved++;
  });
  if (unresolved > 1) ctx.addIssue({ code: 'custom', path: ['intents'], message: 'at most one unresolved intent' });
  if (new Set(doc.consumedDecisions).size !== doc.consumedDecisions.length) {
    ctx.addIssue({ code: 'custom', path: ['consumedDecisions'], message: 'duplicate decision id' });
  }
});

export type CampaignDocument = z.infer<typeof campaignDocumentSchema>;

/** Open (no outcome yet) or ambiguous: either way it blocks every further mutation. */
export const isUnresolved = (intent: MutationIntent): boolean =>
  intent.outcome === null || intent.outcome.status === 'ambiguous';

export interface NewCampaignInput {
  campaignId: string;
  objective: string;
  createdAt: Date | string;
  maxAttempts?: number;
  remote?: { taskId: string | null; contextId: string | null; attached: boolean };
  sourceSha?: string | null;
}

/** A fresh document: observer mode, empty journal and outbox, no machine snapshot yet. */
export function newCampaignDocument(input: NewCampaignInput): CampaignDocument {
  return {
    documentVersion: DOCUMENT_VERSION,
    campaignId: input.campaignId,
    objective: input.objective,
    createdAt: toIso(input.createdAt),
    remote: input.remote ?? { taskId: null, contextId: null, attached: false },
    remoteView: null,
    attemptId: null,
    sourceSha: input.sourceSha ?? null,
    lease: null,
    controllerMode: 'observer',
    argusMission: null,
    pendingQuestion: null,
    reviewerVerdict: null,
    latestEvidence: null,
    maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    attemptsSubmitted: 0,
    readFailures: { consecutiveFailures: 0, nextReadAt: null, criticalRaised: false },
    outbox: { nextSeq: 1, events: [], publishedKeys: [] },
    wake: { requests: [], totals: { argus: 0, foreman: 0 } },
    intents: [],
    consumedDecisions: [],
    idempotency: [],
    paused: false,
    machine: null,
  };
}

export type DocumentParseFailure = StoreFailure<'document_corrupt' | 'document_version_unknown'>;
export type DocumentParseResult = { ok: true; doc: CampaignDocument } | DocumentParseFailure;

/**
 * Validates parsed JSON as a campaign document. The version is checked first so a newer
 * document reports `document_version_unknown`, not a confusing schema error.
 */
export function parseCampaignDocument(raw: unknown, expectedId?: string): DocumentParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return failure('document_corrupt', 'document is not a JSON object');
  }
  const version = (raw as { documentVersion?: unknown }).documentVersion;
  if (version !== DOCUMENT_VERSION) {
    return version === undefined
      ? failure('document_corrupt', 'documentVersion is missing')
      : failure('document_version_unknown', `documentVersion ${JSON.stringify(version)?.slice(0, 40)} is not ${DOCUMENT_VERSION}`);
  }
  const parsed = campaignDocumentSchema.safeParse(raw);
  if (!parsed.success) return failure('document_corrupt', summarizeIssues(parsed.error));
  if (expectedId !== undefined && parsed.data.campaignId !== expectedId) {
    return failure('document_corrupt', `campaignId ${JSON.stringify(parsed.data.campaignId)} does not match file ${expectedId}`);
  }
  return { ok: true, doc: parsed.data };
}

export function summarizeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return `schema: ${shown.join('; ')}${more}`;
}

export const toIso = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString());
