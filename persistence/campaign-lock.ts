/**
 * The cross-process lock around one campaign document, on proper-lockfile: an atomic
 * `mkdir` lock directory under `<root>/locks/`, refreshed (mtime) every stale/2 while held,
 * and taken over as stale by a waiter once it is older than `staleMs` (so a SIGKILLed holder
 * blocks others for at most that long). The waiter retries with jittered exponential backoff
 * for well over twice the stale time, so a dead holder's lock is always outlived.
 *
 * Only a held lock (ELOCKED) is waited for: a file system that refuses the lock directory
 * itself (read-only, no permission, full) answers the same on every attempt, so it fails at
 * once instead of after ~40 s of retries (issue 19, defect 12).
 *
 * Paths are resolved by the store from the realpath of its root, so the document need not
 * exist yet (create) and `realpath: false` is safe.
 * @module
 */
import * as nodeFs from 'node:fs';
import lockfile from 'proper-lockfile';
import { describeError, errnoOf, failure, type StoreFailure } from './store-errors.js';

export interface LockSettings {
  /** A lock not refreshed for this long is stale. proper-lockfile's floor is effectively 5 s. */
  staleMs: number;
  retries: { retries: number; factor: number; minTimeout: number; maxTimeout: number; randomize: boolean };
}

export const MIN_LOCK_STALE_MS = 5_000;

/** ~40 s of patience: 8 short steps up to 0.5 s, then ~52 steps of 0.5–1 s. */
export const DEFAULT_LOCK_SETTINGS: LockSettings = {
  staleMs: 10_000,
  retries: { retries: 60, factor: 1.5, minTimeout: 20, maxTimeout: 500, randomize: true },
};

export interface HeldLock {
  /** True once another process took the lock over as stale; the holder must not commit. */
  readonly compromised: boolean;
  release(): Promise<void>;
}

export type LockFailure = StoreFailure<'lock_timeout' | 'io_failed'>;

/** Errors the storage gives the same way on every attempt: refused at once, never retried. */
export const LOCK_FAIL_FAST_ERRNOS: ReadonlySet<string> = new Set(['EROFS', 'EPERM', 'EACCES', 'ENOSPC', 'EDQUOT']);

/** The lock directory's `mkdir`, injectable so tests can fail it and count attempts (the store's `fs.mkdir`). */
export type LockMkdir = (dir: string) => Promise<void>;

/** The wait before retry `attempt` (0-based), as the `retry` package computes it for proper-lockfile. */
export function lockRetryDelayMs(retries: LockSettings['retries'], attempt: number): number {
  const random = retries.randomize ? Math.random() + 1 : 1;
  return Math.min(Math.round(random * Math.max(retries.minTimeout, 1) * retries.factor ** attempt), retries.maxTimeout);
}

/** proper-lockfile's file system with `mkdir` (the one call that takes the lock) replaced. */
function lockFsWith(mkdir: LockMkdir): typeof nodeFs {
  return {
    ...nodeFs,
    mkdir: ((dir: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
      mkdir(dir).then(() => callback(null), (error: NodeJS.ErrnoException) => callback(error));
    }) as typeof nodeFs.mkdir,
  };
}

export async function acquireCampaignLock(
  documentPath: string,
  lockPath: string,
  settings: LockSettings,
  onCompromised: (reason: string) => void,
  mkdir?: LockMkdir,
): Promise<HeldLock | LockFailure> {
  let compromised = false;
  let release: (() => Promise<void>) | null = null;
  const options: lockfile.LockOptions = {
    lockfilePath: lockPath,
    realpath: false,
    stale: Math.max(settings.staleMs, MIN_LOCK_STALE_MS),
    // One attempt per call: the loop below decides what is worth another.
    retries: 0,
    ...(mkdir ? { fs: lockFsWith(mkdir) } : {}),
    // The default throws from a timer and kills the process; record it and refuse the commit.
    onCompromised: (error) => {
      compromised = true;
      onCompromised(describeError(error));
    },
  };
  for (let attempt = 0; release === null; attempt++) {
    try {
      release = await lockfile.lock(documentPath, options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const errno = errnoOf(error);
      const retry = attempt < settings.retries.retries && !(errno && LOCK_FAIL_FAST_ERRNOS.has(errno));
      if (retry) {
        await new Promise((resolve) => setTimeout(resolve, lockRetryDelayMs(settings.retries, attempt)));
        continue;
      }
      return code === 'ELOCKED'
        ? failure('lock_timeout', `lock ${lockPath} still held after retries`)
        : { ...failure('io_failed', `cannot lock ${lockPath}: ${describeError(error)}`), ...(errno ? { errno } : {}) };
    }
  }
  const held = release;
  return {
    get compromised() {
      return compromised;
    },
    async release() {
      // A compromised lock is no longer ours to remove.
      await held().catch(() => undefined);
    },
  };
}

export const isLockFailure = (value: HeldLock | LockFailure): value is LockFailure => 'ok' in value && value.ok === false;
