/**
 * Dedupe keys built from remote identity. Remote values are already sanitized and capped
 * (adapters/a2a/sanitize.ts), but a key is retained by the hundreds (the outbox keeps 1000),
 * so it must be short and never carry remote prose: plain short identifiers stay readable,
 * anything else becomes a sha256 digest of the sanitized parts.
 * @module
 */
import { createHash } from 'node:crypto';

/** Longest key kept readable; a key that would be longer is a digest (≤ prefix + 34 chars). */
export const DEDUPE_KEY_MAX = 64;
/** A part kept verbatim: a conservative identifier alphabet with no `:` (the separator). */
const PLAIN_PART = /^[A-Za-z0-9._@+#-]{1,64}$/;

/** Digest of values, truncated to 128 bits: collision-free for any realistic key set. */
export const digestOf = (values: readonly unknown[]): string => createHash('sha256').update(JSON.stringify(values)).digest('hex').slice(0, 32);

/**
 * `prefix:part:part…` when every part is a plain identifier and the key stays short, else
 * `prefix:~<digest>`. The prefix is ours (a literal), never remote text.
 * @example dedupeKey('stage', 'task-1', '#1', 'training') // 'stage:task-1:#1:training'
 * @example dedupeKey('stage', 'task-1', '#1', 'x'.repeat(64) + '!') // 'stage:~3f…' (32 hex)
 */
export function dedupeKey(prefix: string, ...parts: readonly (string | number | null)[]): string {
  const text = parts.map((p) => (p === null ? '-' : String(p)));
  const readable = `${prefix}:${text.join(':')}`;
  if (readable.length <= DEDUPE_KEY_MAX && text.every((p) => p === '-' || PLAIN_PART.test(p))) return readable;
  return `${prefix}:~${digestOf(text)}`;
}
