/**
 * Parameter shapes of the control extension's methods and of the authority carried by
 * fenced mutations, checked with zod so a malformed call gets -32602, never a half-apply.
 * @module
 */
import { z } from 'zod';
import type { ControlAuthority } from '../../adapters/a2a/control-contract.js';
import { invalidParams } from './json-rpc.js';

const id = z.string().min(1).max(256);

export const authoritySchema = z.object({
  controllerId: id,
  epoch: z.number().int().nonnegative(),
  requestId: id,
});

export const leaseGetSchema = z.object({ contextId: id });
export const leaseClaimSchema = z.object({
  contextId: id.optional(),
  controllerId: id,
  ttlSeconds: z.number(),
  requestId: id,
});
export const leaseRenewSchema = z.object({
  contextId: id,
  controllerId: id,
  epoch: z.number().int().nonnegative(),
  ttlSeconds: z.number(),
  requestId: id,
});
export const leaseReleaseSchema = z.object({
  contextId: id,
  controllerId: id,
  epoch: z.number().int().nonnegative(),
  requestId: id,
});
export const interveneSchema = z.object({
  taskId: id,
  instruction: z.string().min(1).max(10_000),
  authority: authoritySchema.optional(),
});
export const requestGetSchema = z.object({ requestId: id });

/** Parses params or throws -32602 naming the first problem. */
export function parseParams<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidParams(`invalid params: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'malformed'}`);
  }
  return parsed.data;
}

/** Authority from `metadata[uri]`: absent → undefined; present but malformed → -32602. */
export function parseAuthority(raw: unknown): ControlAuthority | undefined {
  if (raw === undefined || raw === null) return undefined;
  return parseParams(authoritySchema, raw);
}
