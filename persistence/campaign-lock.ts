/**
 * The cross-process lock around one campaign document, on proper-lockfile: an atomic
 * `mkdir` lock directory under `<root>/locks/`, refreshed (mtime) every stale/2 while held,
 * and taken over as stale by a waiter once it is older than `staleMs` (so a SIGKILLed holder
 * blocks others for at most that long). The waiter retries with jittered exponential backoff
 * for well over twice the stale time, so a dead holder's lock is always outlived.
 *
 * Paths are resolved by the store from the realpath of its root, so the document need not
 * exist yet (create) and `realpath: false` is safe.
 * @module
 */
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

export async function acquireCampaignLock(
  documentPath: string,
  lockPath: string,
  settings: LockSettings,
  onCompromised: (reason: string) => void,
): Promise<HeldLock | LockFailure> {
  let compromised = false;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(documentPath, {
      lockfilePath: lockPath,
      realpath: false,
      stale: Math.max(settings.staleMs, MIN_LOCK_STALE_MS),
      retries: settings.retries,
      // The default throws from a timer and kills the process; record it and refuse the commit.
      onCompromised: (error) => {
        compromised = true;
        onCompromised(describeError(error));
      },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ELOCKED'
      ? failure('lock_timeout', `lock ${lockPath} still held after retries`)
      : { ...failure('io_failed', `cannot lock ${lockPath}: ${describeError(error)}`), ...(errnoOf(error) ? { errno: errnoOf(error)! } : {}) };
  }
  return {
    get compromised() {
      return compromised;
    },
    async release() {
      // A compromised lock is no longer ours to remove.
      await release().catch(() => undefined);
    },
  };
}

export const isLockFailure = (value: HeldLock | LockFailure): value is LockFailure => 'ok' in value && value.ok === false;
