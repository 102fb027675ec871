/**
 * The local API key: with no `ARGUS_SUPERVISOR_API_KEY`, a supervisor that only this machine
 * can reach (loopback TCP, a Unix socket) still needs a key, or every protected route would
 * refuse everyone. `serve` reads `<state root>/local-api-key` or creates it: 32 random bytes,
 * base64url, mode 0600, written to a unique temp file, fsynced, then hard-linked into place
 * (a link never replaces an existing file, so two starts racing end with one key) and the
 * folder fsynced. The CLI client and the demo read the same file.
 *
 * A file we did not make safely is refused rather than "fixed": another owner, a mode that lets
 * anyone else read or write it, a symlink, or content that is not a strong key. Only the path is
 * ever reported, never the value or a hash of it.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import path from 'node:path';
import { StartupFailure } from './startup-failure.js';
import { MIN_API_KEY_LENGTH, type SupervisorConfig } from '../config/config.js';

export const LOCAL_KEY_FILE = 'local-api-key';
/** 32 bytes is 256 bits; base64url makes it 43 header-safe characters. */
const KEY_BYTES = 32;
const KEY_PATTERN = /^[A-Za-z0-9_-]+$/;

export const localKeyPath = (stateRoot: string): string => path.join(stateRoot, LOCAL_KEY_FILE);

export interface LocalKey {
  key: string;
  path: string;
  created: boolean;
}

const refuse = (file: string, why: string): never => {
  throw new StartupFailure('local_key_unsafe', `${file} ${why}; remove it or set ARGUS_SUPERVISOR_API_KEY`);
};

/**
 * Reads the key file, refusing one that is not ours alone: a regular file (not a link), owned by
 * this user, with no group/other bits, holding one strong key.
 */
export async function readLocalKey(file: string): Promise<string | null> {
  let handle: fsp.FileHandle;
  try {
    // O_NOFOLLOW: a symlink planted at the path is refused (ELOOP), never followed. O_NONBLOCK:
    // a FIFO planted there opens at once (and is refused below) instead of waiting for a writer.
    handle = await fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return refuse(file, 'is a symbolic link');
    throw error;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return refuse(file, 'is not a regular file');
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return refuse(file, 'is owned by another user');
    if ((st.mode & 0o077) !== 0) return refuse(file, `has mode ${(st.mode & 0o777).toString(8)}, not 600`);
    const key = (await handle.readFile('utf8')).trim();
    if (key.length < MIN_API_KEY_LENGTH || !KEY_PATTERN.test(key)) return refuse(file, 'does not hold a strong key');
    return key;
  } finally {
    await handle.close();
  }
}

/** The key in `<state root>/local-api-key`, created (0600, fsynced, never replacing) if absent. */
export async function ensureLocalKey(stateRoot: string): Promise<LocalKey> {
  const file = localKeyPath(stateRoot);
  const existing = await readLocalKey(file);
  if (existing !== null) return { key: existing, path: file, created: false };
  await fsp.mkdir(stateRoot, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES).toString('base64url');
  const temp = path.join(stateRoot, `.${LOCAL_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fsp.open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${key}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  let created = true;
  try {
    await fsp.link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false; // another start won the race: use its key
  } finally {
    await fsp.unlink(temp).catch(() => undefined);
  }
  await syncDir(stateRoot);
  if (!created) {
    const theirs = await readLocalKey(file);
    if (theirs === null) throw new StartupFailure('local_key_unsafe', `${file} vanished while it was being created`);
    return { key: theirs, path: file, created: false };
  }
  return { key, path: file, created: true };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The configuration `serve` runs with: a deployment secret as is; otherwise (the listener is
 * loopback or a socket, or loadConfig would have refused it) the local key.
 */
export async function withLocalKey(config: SupervisorConfig): Promise<{ config: SupervisorConfig; localKey: LocalKey | null }> {
  if (config.apiKey !== null) return { config, localKey: null };
  let localKey: LocalKey;
  try {
    localKey = await ensureLocalKey(config.stateRoot);
  } catch (error) {
    if (error instanceof StartupFailure) throw error;
    // The same line the owner lock gives for a root it cannot use (a file, no permission).
    const errno = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StartupFailure('state_root_unusable', `${config.stateRoot} cannot be used as the state root (${errno})`);
  }
  return { config: { ...config, apiKey: localKey.key, apiKeySource: 'generated_local' }, localKey };
}
