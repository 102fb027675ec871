/**
 * What the campaign remembers of its remote task between ticks: only the material fields.
 * The reducer compares a fresh TaskSnapshot against this; the fingerprint is a stable string
 * of the same fields so an unchanged tick costs one string comparison and nothing else.
 * @module
 */
import { z } from 'zod';

export const leaseSnapshotSchema = z.object({
  contextId: z.string(),
  holder: z.string(),
  epoch: z.number().int().nonnegative(),
  expiresAt: z.string(),
  ttlSeconds: z.number().int().positive(),
});
export type LeaseSnapshot = z.infer<typeof leaseSnapshotSchema>;

export const remoteViewSchema = z.object({
  taskId: z.string(),
  contextId: z.string(),
  state: z.enum(['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected', 'unknown']),
  stage: z.string().nullable(),
  /** Last revision seen; kept for dedupe and diagnostics, never material on its own. */
  revision: z.number().int().nonnegative().nullable(),
  attempt: z.number().int().nonnegative().nullable(),
  attemptId: z.string().nullable(),
  artifactIds: z.array(z.string()),
  lease: leaseSnapshotSchema.nullable(),
  missionComplete: z.boolean(),
  latestAgentMessageDigest: z.string().nullable(),
  /** The material fingerprint this view was reduced from. */
  fingerprint: z.string(),
  observedAt: z.string(),
});
export type RemoteView = z.infer<typeof remoteViewSchema>;
