/**
 * The embedded `Ownership`: one owner per state root. The process that hosts the campaigns
 * holds `<root>/owner.json` (`{pid, host, fencing, claimId, acquiredAt, releasedAt}`), and every
 * other process is refused.
 *
 * Why a pid record and not proper-lockfile alone: proper-lockfile judges a lock by its mtime,
 * so a SIGKILLed owner would block the next start for the whole stale time (≥ 5 s; chaos
 * restarts hundreds of times). A pid is checked at once: `process.kill(pid, 0)` says whether the
 * owner is alive, so a dead owner's record is taken over immediately and a live one never is.
 * proper-lockfile still serves as the short mutex around "read the record, decide, write it"
 * (held for milliseconds), so two starters never both take over the same dead owner.
 *
 * - Same host: liveness by pid (a zombie counts as dead). A record naming our own pid that this
 *   process does not hold is a previous incarnation (a container restarted as pid 1): stale.
 * - Another host sharing the folder (NFS): its pid cannot be checked, so the record is live
 *   while its owner keeps touching it (every STALE_MS / 3) and stale after STALE_MS.
 * - The fence (`fencing` in the record) goes up by one on every claim and takeover, is written
 *   durably before it is handed out, and is kept across releases. Deleting or damaging
 *   owner.json by hand restarts it at 1; the write-time check still holds, because it asks
 *   "does the record carry our claim id and fence", not "is our fence the largest".
 * - Write-time check (`verify`): one read of owner.json per document write. A takeover of a
 *   live owner only happens on another host after OWNER_STALE_MS without touches (or by hand),
 *   so the few milliseconds between the check and the rename are far inside that margin.
 *   The supervisor also asks `verify` before every remote call, so it is cheap when nothing
 *   changed: a `stat` whose inode, size, mtime and ctime equal those seen just before the last
 *   read that proved the record ours needs no read (any write or rename changes ctime or the
 *   inode; a takeover renames). `renew` always reads.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { DurableJsonFile } from './durable-json-adapter.js';
import { describeError } from './store-errors.js';
import { WHOLE_STATE_ROOT, type FenceVerdict, type HostingRight, type Ownership, type OwnershipRefusal, type RenewOutcome } from './ownership.js';

export { WHOLE_STATE_ROOT, type HostingRight, type Ownership, type OwnershipRefusal } from './ownership.js';

interface OwnerRecord {
  pid: number;
  host: string;
  /** The fence: +1 on every successful claim or takeover, never reset by a release. */
  fencing: number;
  /** Random per claim, so "is this still our record" never rests on a pid that can be reused. */
  claimId: string;
  acquiredAt: string;
  releasedAt: string | null;
}

/** A record from another host that has not been touched for this long is stale. */
export const OWNER_STALE_MS = 30_000;

/** Roots held by this process (realpaths), so a second owner inside one process is refused too. */
const heldHere = new Set<string>();

export interface StateRootOwnershipOptions {
  root: string;
  /** Called once if the right is lost (another process replaced our record). */
  onLost?: (reason: string) => void;
}

/**
 * The embedded default: one owner for the whole state root.
 * @example
 *   const right = await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT);
 *   if (!right.ok) { console.error(`${right.code}: ${right.message}`); process.exit(2); }
 *   const store = await openCampaignStore({ root, fence: right });
 *   // ... host the campaigns ...
 *   await right.release();
 */
export function stateRootOwnership(options: StateRootOwnershipOptions): Ownership {
  return {
    granularity: 'state-root',
    claim: async (scope) =>
      scope.kind === 'state-root' ? claimRoot(options) : refusal('scope_unsupported', `${options.root} is owned as a whole; campaign ${scope.campaignId} cannot be claimed alone`),
  };
}

async function claimRoot(options: StateRootOwnershipOptions): Promise<HostingRight | OwnershipRefusal> {
  let root: string;
  try {
    await fsp.mkdir(options.root, { recursive: true, mode: 0o700 });
    root = await fsp.realpath(options.root);
  } catch (error) {
    return refusal('state_root_unusable', `${options.root} cannot be used as the state root (${describeError(error)})`);
  }
  const file = new DurableJsonFile<OwnerRecord>(path.join(root, 'owner.json'), { mode: 0o600 });
  const decided = await underMutex(root, async () => {
    const previous = await readRecord(file);
    if (previous && previous.releasedAt === null && isLive(previous, root, file.file)) {
      const where = previous.host === os.hostname() ? '' : ` on host ${previous.host}`;
      return refusal('state_root_locked', `${options.root} is owned by pid ${previous.pid}${where}`, previous.pid);
    }
    const record: OwnerRecord = {
      pid: process.pid,
      host: os.hostname(),
      fencing: (previous?.fencing ?? 0) + 1,
      claimId: randomBytes(12).toString('hex'),
      acquiredAt: new Date().toISOString(),
      releasedAt: null,
    };
    // Marked held before the mutex opens, so a second start() in this process sees it.
    heldHere.add(root);
    try {
      // Durable (fsync file + folder) before the fence is handed out: a fence never repeats.
      await file.write(record);
    } catch (error) {
      heldHere.delete(root);
      throw error;
    }
    return record;
  });
  if (!decided.ok) return decided.refusal;
  if ('ok' in decided.value) return decided.value;
  return holdRight(root, file, decided.value, options);
}

function holdRight(root: string, file: DurableJsonFile<OwnerRecord>, record: OwnerRecord, options: StateRootOwnershipOptions): HostingRight {
  let lostReason: string | null = null;
  let released = false;
  const listeners = new Set<(reason: string) => void>();
  if (options.onLost) listeners.add(options.onLost);
  /** The record's stat signature taken just before the last read that found it ours. */
  let confirmed: string | null = null;
  const ours = (r: OwnerRecord | null) => r !== null && r.claimId === record.claimId && r.fencing === record.fencing && r.releasedAt === null;
  const markLost = (reason: string) => {
    if (lostReason !== null || released) return;
    lostReason = reason;
    clearInterval(timer);
    heldHere.delete(root);
    for (const listener of listeners) listener(reason);
  };
  /** Re-reads the record (`unchangedIsOurs`: not when it is unchanged); a missing, unreadable or foreign one means the right is gone. */
  const stillOurs = async (unchangedIsOurs = false): Promise<boolean> => {
    if (lostReason !== null || released) return false;
    // The fence check before every remote call (`unchangedIsOurs`) stats the record synchronously:
    // one metadata syscall of a few microseconds, where the promise API's round trip through
    // the libuv pool cost far more, once per status read of every sweep.
    const before = unchangedIsOurs ? signatureNow(file.file) : await fsp.stat(file.file).then(statSignature, () => null);
    if (unchangedIsOurs && before !== null && before === confirmed) return true;
    const current = await readRecord(file).catch(() => null);
    if (ours(current)) {
      confirmed = before;
      return true;
    }
    confirmed = null;
    const by = current ? `pid ${current.pid} on ${current.host}, fence ${current.fencing}` : 'nobody readable';
    markLost(`${root}/owner.json no longer names this process (fence ${record.fencing}; now ${by})`);
    return false;
  };
  const renew = async (): Promise<RenewOutcome> => {
    if (!(await stillOurs())) return { ok: false, code: 'hosting_lost', reason: lostReason ?? `${root} was released` };
    // Touching the record is what keeps it live for a process on another host.
    const now = new Date();
    await fsp.utimes(file.file, now, now).catch(() => undefined);
    return { ok: true };
  };
  const timer = setInterval(() => void renew(), OWNER_STALE_MS / 3);
  timer.unref();
  return {
    ok: true,
    scope: WHOLE_STATE_ROOT,
    fence: record.fencing,
    get lost() {
      return released || lostReason !== null;
    },
    hosts: () => true,
    fenceFor: () => (released || lostReason !== null ? null : record.fencing),
    async verify(campaignId, fence) {
      if (fence !== record.fencing) return stale(campaignId, `it carries fence ${fence}, this right is fence ${record.fencing}`);
      if (!(await stillOurs(true))) return stale(campaignId, lostReason ?? 'the right was released');
      return { ok: true };
    },
    renew,
    onLost(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (lostReason !== null) return; // someone else's record now: never touch it
      heldHere.delete(root);
      // Keep the record (and its fence) but mark it free; never free someone else's.
      await underMutex(root, async () => {
        const current = await readRecord(file);
        if (ours(current)) await file.write({ ...current!, releasedAt: new Date().toISOString() });
        return null;
      });
    },
  };
}

const statSignature = (s: { ino: number; size: number; mtimeMs: number; ctimeMs: number }): string => `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/** The record's stat signature now, or null when it cannot be stat'ed (then it is read, and judged). */
function signatureNow(file: string): string | null {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    return stat ? statSignature(stat) : null;
  } catch {
    return null;
  }
}

const stale = (campaignId: string, why: string): FenceVerdict => ({ ok: false, code: 'fence_stale', reason: `write to ${campaignId} refused: ${why}` });

/** Runs `fn` while holding `<root>/owner.lock` (proper-lockfile, mkdir-based) for a moment. */
async function underMutex<T>(root: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; refusal: OwnershipRefusal }> {
  let unlock: () => Promise<void>;
  try {
    unlock = await lockfile.lock(path.join(root, 'owner.json'), {
      lockfilePath: path.join(root, 'owner.lock'),
      realpath: false,
      // Held for milliseconds; a holder killed inside it delays the next start by at most this.
      stale: 5_000,
      retries: { retries: 40, factor: 1.3, minTimeout: 10, maxTimeout: 250, randomize: true },
      onCompromised: () => undefined,
    });
  } catch (error) {
    return { ok: false, refusal: refusal('state_root_unusable', `${root} cannot be locked (${describeError(error)})`) };
  }
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, refusal: refusal('state_root_unusable', `${root}/owner.json cannot be read or written (${describeError(error)})`) };
  } finally {
    await unlock().catch(() => undefined);
  }
}

async function readRecord(file: DurableJsonFile<OwnerRecord>): Promise<OwnerRecord | null> {
  let value: unknown;
  try {
    value = await file.read();
  } catch {
    return null; // unreadable or torn: nobody can prove ownership with it
  }
  const r = value as Partial<OwnerRecord> | null;
  if (!r || !Number.isInteger(r.pid) || !Number.isInteger(r.fencing) || typeof r.host !== 'string') return null;
  // A record from before claim ids existed has none: it can be judged and taken over, never be ours.
  return { pid: r.pid!, host: r.host, fencing: r.fencing!, claimId: typeof r.claimId === 'string' ? r.claimId : '', acquiredAt: String(r.acquiredAt ?? ''), releasedAt: r.releasedAt ?? null };
}

function isLive(record: OwnerRecord, root: string, recordPath: string): boolean {
  if (record.host !== os.hostname()) {
    // Another host: only the touches tell; when we cannot even stat it, assume live.
    try {
      return Date.now() - statSync(recordPath).mtimeMs < OWNER_STALE_MS;
    } catch {
      return true;
    }
  }
  if (record.pid === process.pid) return heldHere.has(root);
  return pidAlive(record.pid);
}

/** `kill(pid, 0)`: ESRCH means gone; EPERM means alive under another user. A zombie is dead. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: field 3 of /proc/<pid>/stat is the state; Z is a zombie awaiting its parent.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

const refusal = (code: OwnershipRefusal['code'], message: string, pid?: number): OwnershipRefusal => ({
  ok: false,
  code,
  message,
  ...(pid !== undefined ? { pid } : {}),
});
