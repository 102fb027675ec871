/**
 * Schema v1 of the campaign document, frozen as the release at 8a73a04 wrote it (see
 * test/persistence/fixtures/v1). It is only read now: a v1 document is validated against its
 * own schema first (one that fails it is corrupt, not "migratable"), then migrated in memory
 * by `v1-to-v2.ts` and written as v2 on the next write. Do not change it: a v1 file on disk
 * does not change either.
 * @module
 */
import { z } from 'zod';
import {
  checkRecords,
  counter,
  idempotencyLogSchema,
  mutationIntentSchema,
  nonEmpty,
  outboxSchema,
  remoteBindingSchema,
  timestamp,
  wakeLogSchema,
} from '../document-records.js';
import { leaseSnapshotSchema, remoteViewSchema } from '../remote-view.js';

const V1_DEFAULT_MAX_ATTEMPTS = 3;

/**
 * The intent as v1 wrote it: the six actions of that release and no decision id. The shared
 * record schema has grown since (`answer`, `decisionId`); v1 stays what was on disk then.
 */
const V1_MUTATION_ACTIONS = ['claim', 'renew', 'release', 'submit', 'intervene', 'cancel'] as const;
const v1IntentSchema = mutationIntentSchema.omit({ decisionId: true }).extend({ action: z.enum(V1_MUTATION_ACTIONS) });

const v1Shape = z.strictObject({
  documentVersion: z.literal(1),
  campaignId: nonEmpty,
  objective: z.string(),
  createdAt: timestamp,
  remote: remoteBindingSchema,
  remoteView: remoteViewSchema.nullable(),
  attemptId: z.string().nullable(),
  sourceSha: z.string().nullable(),
  /** Our lease as last read back (a copy; the snapshot's context held the one the chart used). */
  lease: leaseSnapshotSchema.nullable(),
  controllerMode: z.enum(['observer', 'controller']),
  argusMission: z.strictObject({ projectId: nonEmpty, boundAt: timestamp }).nullable(),
  pendingQuestion: z.strictObject({ text: z.string(), askedAt: timestamp, eventId: z.string() }).nullable(),
  reviewerVerdict: z.strictObject({ verdict: nonEmpty, eventId: z.string(), at: timestamp }).nullable(),
  latestEvidence: z.strictObject({ ref: nonEmpty, at: timestamp }).nullable(),
  maxAttempts: z.number().int().min(1).max(20).default(V1_DEFAULT_MAX_ATTEMPTS),
  attemptsSubmitted: counter,
  readFailures: z.strictObject({
    consecutiveFailures: counter,
    nextReadAt: timestamp.nullable(),
    criticalRaised: z.boolean(),
  }),
  outbox: outboxSchema,
  wake: wakeLogSchema,
  intents: z.array(v1IntentSchema),
  consumedDecisions: z.array(nonEmpty),
  idempotency: idempotencyLogSchema,
  paused: z.boolean(),
  /** The XState persisted snapshot (`campaign@2` for every document today's release wrote). */
  machine: z.strictObject({ version: nonEmpty, snapshot: z.unknown() }).nullable(),
});

export const campaignDocumentV1Schema = v1Shape.superRefine(checkRecords);
export type CampaignDocumentV1 = z.infer<typeof campaignDocumentV1Schema>;
