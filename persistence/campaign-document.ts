/**
 * The one durable document per campaign, schema v2: what the supervisor must remember across a
 * restart that the chart never reads (the remote binding, the outbox, the wake log, the intent
 * journal, consumed decisions, idempotency answers) beside the XState snapshot, whose context
 * is the one truth for everything the chart decides on (lease, question, attempts, read
 * failures, the remote view). Nothing is stored twice: a view of the campaign is a projection
 * of binding + snapshot + outbox.
 *
 * It is validated on every read and every write. A v1 document (schema in
 * `migrations/v1-schema.ts`) is migrated in memory on read and written as v2 on the next
 * write; any other `documentVersion` fails closed because a newer build wrote it and rewriting
 * it here would drop what this build cannot see. Objects are strict for the same reason: an
 * unknown field is refused, never silently stripped.
 * @module
 */
import { z } from 'zod';
import { IDEMPOTENCY_KEY_RETENTION, idempotencyRecordSchema } from './idempotency.js';
import {
  checkRecords,
  mutationIntentSchema,
  nonEmpty,
  outboxSchema,
  remoteBindingSchema,
  timestamp,
  wakeLogSchema,
  type RemoteBinding,
} from './document-records.js';
import { campaignDocumentV1Schema } from './migrations/v1-schema.js';
import { migrateV1toV2 } from './migrations/v1-to-v2.js';
import { historySchema } from './state-history.js';
import { failure, type StoreFailure } from './store-errors.js';

export * from './document-records.js';

export const DOCUMENT_VERSION = 2;

/** The persisted snapshot with the machine version that wrote it. Opaque here: the chart checks it. */
export const persistedMachineSchema = z.strictObject({ version: nonEmpty, snapshot: z.unknown() });
export type PersistedMachine = z.infer<typeof persistedMachineSchema>;

const campaignDocumentShape = z.strictObject({
  documentVersion: z.literal(DOCUMENT_VERSION),
  campaignId: nonEmpty,
  objective: z.string(),
  createdAt: timestamp,
  sourceSha: z.string().nullable(),
  /** The binding: the task and context every effect acts on. */
  remote: remoteBindingSchema,
  outbox: outboxSchema,
  wake: wakeLogSchema,
  intents: z.array(mutationIntentSchema),
  consumedDecisions: z.array(nonEmpty),
  /** Answers to requests sent with an Idempotency-Key (see idempotency.ts), newest last. */
  idempotency: z.array(idempotencyRecordSchema).max(IDEMPOTENCY_KEY_RETENTION),
  /** Required in v2: a campaign without a snapshot has no state to restore into. */
  machine: persistedMachineSchema,
  /**
   * State changes, newest last (state-history.ts). Optional: a document written before it
   * existed, or by a campaign that never changed state, has none and stays valid as it is.
   */
  history: historySchema.optional(),
});

export const campaignDocumentSchema = campaignDocumentShape.superRefine(checkRecords);

export type CampaignDocument = z.infer<typeof campaignDocumentSchema>;

export interface NewCampaignInput {
  campaignId: string;
  objective: string;
  createdAt: Date | string;
  /** The chart's initial persisted snapshot (with its version): v2 always has one. */
  machine: PersistedMachine;
  remote?: RemoteBinding;
  sourceSha?: string | null;
}

/** A fresh document: empty journal and outbox, the chart's initial snapshot. */
export function newCampaignDocument(input: NewCampaignInput): CampaignDocument {
  return {
    documentVersion: DOCUMENT_VERSION,
    campaignId: input.campaignId,
    objective: input.objective,
    createdAt: toIso(input.createdAt),
    sourceSha: input.sourceSha ?? null,
    remote: input.remote ?? { taskId: null, contextId: null, attached: false },
    outbox: { nextSeq: 1, events: [], publishedKeys: [] },
    wake: { requests: [], totals: { argus: 0, foreman: 0 } },
    intents: [],
    consumedDecisions: [],
    idempotency: [],
    machine: input.machine,
  };
}

export type DocumentParseFailure = StoreFailure<'document_corrupt' | 'document_version_unknown'>;
/** `migratedFrom` is set when the document on disk is older (migrated in memory, not yet written). */
export type DocumentParseResult = { ok: true; doc: CampaignDocument; migratedFrom?: 1 } | DocumentParseFailure;

/**
 * Validates parsed JSON as a campaign document. The version is checked first so a newer
 * document reports `document_version_unknown`, not a confusing schema error. A v1 document is
 * validated against its own schema (failing it is `document_corrupt`), then migrated; a
 * migration that cannot place it (e.g. a snapshot in a state campaign@2 never persisted) is
 * `document_corrupt` too: failing closed beats restoring into a guessed state.
 */
export function parseCampaignDocument(raw: unknown, expectedId?: string): DocumentParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return failure('document_corrupt', 'document is not a JSON object');
  }
  const version = (raw as { documentVersion?: unknown }).documentVersion;
  if (version === 1) return parseV1(raw, expectedId);
  if (version !== DOCUMENT_VERSION) {
    return version === undefined
      ? failure('document_corrupt', 'documentVersion is missing')
      : failure('document_version_unknown', `documentVersion ${JSON.stringify(version)?.slice(0, 40)} is not 1 or ${DOCUMENT_VERSION}`);
  }
  const parsed = campaignDocumentSchema.safeParse(raw);
  if (!parsed.success) return failure('document_corrupt', summarizeIssues(parsed.error));
  const idProblem = checkId(parsed.data.campaignId, expectedId);
  return idProblem ?? { ok: true, doc: parsed.data };
}

function parseV1(raw: object, expectedId: string | undefined): DocumentParseResult {
  const v1 = campaignDocumentV1Schema.safeParse(raw);
  if (!v1.success) return failure('document_corrupt', `v1 ${summarizeIssues(v1.error)}`);
  const idProblem = checkId(v1.data.campaignId, expectedId);
  if (idProblem) return idProblem;
  const migrated = migrateV1toV2(v1.data);
  if (!migrated.ok) return failure('document_corrupt', `v1 migration: ${migrated.reason}`);
  // The migration must produce what v2 accepts; if it did not, that is this build's bug and
  // the document is refused rather than written in a shape the next read would reject.
  const v2 = campaignDocumentSchema.safeParse(migrated.doc);
  if (!v2.success) return failure('document_corrupt', `v1 migration produced an invalid v2 document: ${summarizeIssues(v2.error)}`);
  return { ok: true, doc: v2.data, migratedFrom: 1 };
}

function checkId(campaignId: string, expectedId: string | undefined): DocumentParseFailure | null {
  if (expectedId === undefined || campaignId === expectedId) return null;
  return failure('document_corrupt', `campaignId ${JSON.stringify(campaignId)} does not match file ${expectedId}`);
}

export function summarizeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return `schema: ${shown.join('; ')}${more}`;
}

export const toIso = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString());
