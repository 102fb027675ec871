/**
 * A DurableFs that wraps the real one and records, in one sequence, every call that matters
 * for durability — including the FileHandle's own write/writeFile/sync/datasync/close — so a
 * test can fail on any order other than the one that survives power loss.
 */
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DurableFs } from '../../../persistence/durable-json-adapter.js';

/** `<tmp>` for a temp file, `<dir>` for the folder, the base name otherwise. */
export type Namer = (file: string) => string;

export function namerFor(dir: string): Namer {
  return (file) => (file === dir ? '<dir>' : path.basename(file).endsWith('.tmp') ? '<tmp>' : path.basename(file));
}

/** Bytes of `file` on disk right now (what an fsync at this moment would make durable). */
async function sizeOf(file: string): Promise<number | 'dir'> {
  const stat = await fsp.stat(file);
  return stat.isDirectory() ? 'dir' : stat.size;
}

function recordHandle(handle: FileHandle, label: string, file: string, calls: string[]): FileHandle {
  const original = {
    write: handle.write.bind(handle),
    writeFile: handle.writeFile.bind(handle),
    sync: handle.sync.bind(handle),
    datasync: handle.datasync.bind(handle),
    close: handle.close.bind(handle),
  };
  const bytes = (data: unknown) => (typeof data === 'string' ? Buffer.byteLength(data) : (data as Uint8Array).byteLength);
  // Each call is recorded when it completes, so "write then fsync" means the bytes were handed
  // to the kernel before the fsync began.
  handle.write = (async (data: never, ...rest: never[]) => {
    const result = await (original.write as (...args: unknown[]) => Promise<unknown>)(data, ...rest);
    calls.push(`write ${label} ${bytes(data)}B`);
    return result;
  }) as FileHandle['write'];
  handle.writeFile = async (data, options) => {
    await original.writeFile(data, options);
    calls.push(`write ${label} ${bytes(data)}B`);
  };
  const syncing = (kind: 'fsync' | 'fdatasync', run: () => Promise<void>) => async () => {
    const size = await sizeOf(file);
    calls.push(size === 'dir' ? `${kind} ${label}` : `${kind} ${label} (${size}B on disk)`);
    return run();
  };
  handle.sync = syncing('fsync', original.sync);
  handle.datasync = syncing('fdatasync', original.datasync);
  handle.close = async () => {
    calls.push(`close ${label}`);
    return original.close();
  };
  return handle;
}

/** The real fs, recording into `calls`. */
export function recordingFs(calls: string[], name: Namer): DurableFs {
  return {
    async open(file, flags, mode) {
      const handle = await fsp.open(file, flags, mode);
      calls.push(`open ${name(file)} ${flags}`);
      return recordHandle(handle, name(file), file, calls);
    },
    async rename(from, to) {
      await fsp.rename(from, to);
      calls.push(`rename ${name(from)} -> ${name(to)}`);
    },
    async unlink(file) {
      await fsp.unlink(file);
      calls.push(`unlink ${name(file)}`);
    },
    readFile: (file, encoding) => fsp.readFile(file, encoding),
  };
}
