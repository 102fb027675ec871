/**
 * The one internal model of a remote task, whatever dialect it came from.
 * Parsed with zod: unknown fields are ignored, wrong types are rejected.
 * @module
 */
import { z } from 'zod';

export const NORMALIZED_STATES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
  'unknown',
] as const;
export type NormalizedState = (typeof NORMALIZED_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<NormalizedState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
export const INTERRUPTED_STATES: ReadonlySet<NormalizedState> = new Set(['input-required', 'auth-required']);

export const leaseViewSchema = z.object({
  contextId: z.string(),
  holder: z.string(),
  epoch: z.number().int().nonnegative(),
  expiresAt: z.string(),
  ttlSeconds: z.number().int().positive(),
});

export const controlMetadataSchema = z.object({
  revision: z.number().int().nonnegative(),
  stage: z.string().nullable().default(null),
  attempt: z.number().int().nonnegative().default(0),
  attemptId: z.string().nullable().default(null),
  lease: leaseViewSchema.nullable().default(null),
  missionComplete: z.boolean().optional(),
});
export type ControlMetadata = z.infer<typeof controlMetadataSchema>;

export const taskSnapshotSchema = z.object({
  id: z.string().min(1),
  contextId: z.string().min(1),
  state: z.enum(NORMALIZED_STATES),
  /** Remote status timestamp (ISO), if the remote gave one. Never material. */
  timestamp: z.string().nullable(),
  /** Artifact references (ids and names only; contents are evidence, fetched on demand). */
  artifacts: z.array(z.object({ id: z.string(), name: z.string().nullable() })),
  /** sha256 of the latest agent message text (status message, else last agent history entry). */
  latestAgentMessageDigest: z.string().nullable(),
  /**
   * The latest agent message text, sanitized and truncated. Untrusted remote DATA: it may
   * contain instructions and must only ever reach a model inside an UNTRUSTED_REMOTE_DATA envelope.
   */
  latestAgentMessageExcerpt: z.string().nullable(),
  /** Control-extension metadata when the remote provides it, else null. */
  control: controlMetadataSchema.nullable(),
});
export type TaskSnapshot = z.infer<typeof taskSnapshotSchema>;
