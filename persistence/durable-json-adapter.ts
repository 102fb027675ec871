/**
 * A lowdb `Adapter<T>` that survives power loss. lowdb's own `JSONFile` (steno) renames a
 * fixed `.<name>.tmp` without fsync, and two processes would share that temp name; here every
 * write uses a unique temp file in the same folder, fsyncs it, renames it over the target and
 * fsyncs the folder, so the target is always either the old or the new bytes, and the new
 * bytes are on disk once `write()` resolves.
 *
 * `read()` resolves to null only for a missing file. Unparseable bytes reject with a
 * `PersistenceError('document_corrupt')` so a corrupt document can never pass for a new one.
 *
 * @example
 *   const db = new Low(new DurableJsonFile<Doc>('/state/doc.json'), null);
 *   await db.read();
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { PersistenceError, describeError } from './store-errors.js';

/** The few file-system calls the adapter makes; tests pass a recording wrapper. */
export interface DurableFs {
  open(file: string, flags: string, mode?: number): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  readFile(file: string, encoding: 'utf8'): Promise<string>;
  /**
   * Optional: the bulk load at boot reads synchronously in small batches when it is there.
   * Thousands of ~1 KB documents read through the thread pool (open, fstat, read, close: four
   * round trips each) cost about 7x the CPU of plain synchronous reads of a warm file cache.
   */
  readFileSync?(file: string, encoding: 'utf8'): string;
  /** Optional: the campaign lock's `mkdir` of its lock directory (node's when absent); tests fail it and count attempts. */
  mkdir?(dir: string): Promise<void>;
}

export interface DurableJsonFileOptions {
  fs?: DurableFs;
  /**
   * Called after the temp file is durable and just before the rename; throwing aborts the
   * commit (the temp file is removed, the target is untouched). The store uses it to refuse a
   * write whose cross-process lock was compromised or whose fence is stale.
   */
  beforeCommit?: () => void | Promise<void>;
  /** File mode for new documents. Owner-only by default: documents are operator state. */
  mode?: number;
}

const nodeFs: DurableFs = {
  open: (file, flags, mode) => fsp.open(file, flags, mode),
  rename: fsp.rename,
  unlink: fsp.unlink,
  readFile: (file, encoding) => fsp.readFile(file, encoding),
  readFileSync: (file, encoding) => readFileSync(file, encoding),
};

/** Temp files start with a dot so no listing of documents can mistake one for a campaign. */
export const isTempFileName = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp');

export class DurableJsonFile<T> implements Adapter<T> {
  readonly file: string;
  private readonly fs: DurableFs;
  private readonly beforeCommit: (() => void | Promise<void>) | undefined;
  private readonly mode: number;

  constructor(file: string, options: DurableJsonFileOptions = {}) {
    this.file = path.resolve(file);
    this.fs = options.fs ?? nodeFs;
    this.beforeCommit = options.beforeCommit;
    this.mode = options.mode ?? 0o600;
  }

  /** The raw text, or null when the file does not exist. */
  async readText(): Promise<string | null> {
    try {
      return await this.fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new PersistenceError('io_failed', `cannot read ${path.basename(this.file)}: ${describeError(error)}`, { cause: error });
    }
  }

  /** Whether `readTextSync` can read (the file system has a synchronous read). */
  get canReadSync(): boolean {
    return this.fs.readFileSync !== undefined;
  }

  /** Like `readText`, synchronously; undefined when this file system has no synchronous read. */
  readTextSync(): string | null | undefined {
    const read = this.fs.readFileSync;
    if (!read) return undefined;
    try {
      return read(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new PersistenceError('io_failed', `cannot read ${path.basename(this.file)}: ${describeError(error)}`, { cause: error });
    }
  }

  async read(): Promise<T | null> {
    const text = await this.readText();
    if (text === null) return null;
    return parseJsonDocument<T>(text, path.basename(this.file));
  }

  async write(data: T): Promise<void> {
    const text = `${JSON.stringify(data)}\n`;
    const dir = path.dirname(this.file);
    const temp = path.join(dir, `.${path.basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    let committed = false;
    try {
      // 'wx': a unique name that already exists means something is badly wrong; never reuse.
      const handle = await this.fs.open(temp, 'wx', this.mode);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.beforeCommit?.();
      await this.fs.rename(temp, this.file);
      committed = true;
    } finally {
      if (!committed) await this.fs.unlink(temp).catch(() => undefined);
    }
    // The rename is only durable once the directory entry is; without this a crash can bring
    // back the old document after write() resolved.
    await syncDirectory(this.fs, dir);
  }
}

/** Parses document text; anything unparseable is corrupt, including an empty file. */
export function parseJsonDocument<T>(text: string, label: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new PersistenceError('document_corrupt', `${label} is not valid JSON: ${describeError(error)}`, { cause: error });
  }
}

/** fsync a directory. Windows cannot open directories for sync; everywhere else failure is real. */
export async function syncDirectory(fs: DurableFs, dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(process.platform === 'win32' && (code === 'EPERM' || code === 'EISDIR'))) throw error;
  } finally {
    await handle.close();
  }
}
