/**
 * Errors are values with stable codes. The store never throws for an expected condition
 * (missing, corrupt, locked, refused); it returns `{ ok: false, code, reason }` so callers
 * switch on the code instead of parsing a message.
 * @module
 */

export const STORE_ERROR_CODES = [
  'invalid_campaign_id',
  'campaign_not_found',
  'campaign_exists',
  /** Unparseable JSON or a document that fails the schema. Never rewritten. */
  'document_corrupt',
  /** A `documentVersion` this build does not know. Never rewritten (a newer build wrote it). */
  'document_version_unknown',
  /** A machine snapshot written by a statechart version this build does not know. Never rewritten. */
  'machine_version_unknown',
  /** A transaction produced a document that fails the schema; nothing was written. */
  'document_invalid',
  /** A transaction tried to move a monotonic field backwards or drop a journal entry. */
  'document_regression',
  /** The transaction function threw; nothing was written. */
  'transaction_failed',
  'lock_timeout',
  /** Another process took the lock as stale while we held it; nothing was written. */
  'lock_compromised',
  /** The write's fence is no longer current (the right to host was lost or taken over); nothing was written. */
  'fence_stale',
  'io_failed',
] as const;
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

export interface StoreFailure<C extends string = StoreErrorCode> {
  readonly ok: false;
  readonly code: C;
  /** One sentence for logs and operators; never parsed. */
  readonly reason: string;
  /** For `io_failed`: the operating system's error code (ENOSPC, EIO, EACCES, EROFS, ...). */
  readonly errno?: string;
}

export const failure = <C extends string>(code: C, reason: string): StoreFailure<C> => ({ ok: false, code, reason });

/** An I/O failure as a value, keeping the errno of the error (or of its cause). */
export function ioFailure(error: unknown): StoreFailure<'io_failed'> {
  const errno = errnoOf(error);
  return { ok: false, code: 'io_failed', reason: describeError(error), ...(errno ? { errno } : {}) };
}

export function errnoOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * The one thrown form, for the lowdb `Adapter` contract (whose `read()` can only resolve to
 * data or null): a corrupt file must reject with a code, never look like a missing one.
 */
export class PersistenceError extends Error {
  override readonly name = 'PersistenceError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isPersistenceError = (error: unknown): error is PersistenceError => error instanceof PersistenceError;

/** A short, single-line description of an unknown thrown value (no stack, bounded). */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}` : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 300);
}
