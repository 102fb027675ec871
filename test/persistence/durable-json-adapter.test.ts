import { readFile, readdir, writeFile } from 'node:fs/promises';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { describe, expect, it } from 'vitest';
import { DurableJsonFile, type DurableFs } from '../../persistence/durable-json-adapter.js';
import { PersistenceError } from '../../persistence/store-errors.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs();

/** Wraps the real fs and records every call that matters for durability, in order. */
function recordingFs(calls: string[], dir: string): DurableFs {
  const name = (file: string) => (file === dir ? '<dir>' : path.basename(file).endsWith('.tmp') ? '<tmp>' : path.basename(file));
  return {
    async open(file, flags, mode) {
      const handle = await fsp.open(file, flags, mode);
      calls.push(`open ${name(file)} ${flags}`);
      const sync = handle.sync.bind(handle);
      const close = handle.close.bind(handle);
      handle.sync = async () => {
        calls.push(`fsync ${name(file)}`);
        return sync();
      };
      handle.close = async () => {
        calls.push(`close ${name(file)}`);
        return close();
      };
      return handle;
    },
    async rename(from, to) {
      calls.push(`rename ${name(from)} -> ${name(to)}`);
      return fsp.rename(from, to);
    },
    unlink: fsp.unlink,
    readFile: (file, encoding) => fsp.readFile(file, encoding),
  };
}

describe('DurableJsonFile', () => {
  it('round-trips through lowdb and resolves null for a missing file', async () => {
    const file = path.join(await tempDir(), 'doc.json');
    const db = new Low(new DurableJsonFile<{ n: number }>(file), { n: 0 });
    await db.read();
    expect(db.data).toEqual({ n: 0 });
    db.data.n = 7;
    await db.write();
    const again = new Low(new DurableJsonFile<{ n: number }>(file), { n: 0 });
    await again.read();
    expect(again.data).toEqual({ n: 7 });
    expect(await new DurableJsonFile(path.join(path.dirname(file), 'absent.json')).read()).toBeNull();
  });

  it.each([
    ['truncated JSON', '{"n": 1'],
    ['empty file', ''],
    ['garbage', '\u0000\u0001binary'],
  ])('rejects %s as document_corrupt instead of returning null', async (_label, bytes) => {
    const file = path.join(await tempDir(), 'doc.json');
    await writeFile(file, bytes);
    const error = await new DurableJsonFile(file).read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistenceError);
    expect((error as PersistenceError).code).toBe('document_corrupt');
  });

  it('writes a temp file, fsyncs it, renames it over the target, then fsyncs the folder', async () => {
    const dir = await tempDir();
    const calls: string[] = [];
    await new DurableJsonFile(path.join(dir, 'doc.json'), { fs: recordingFs(calls, dir) }).write({ n: 1 });
    expect(calls).toEqual([
      'open <tmp> wx',
      'fsync <tmp>',
      'close <tmp>',
      'rename <tmp> -> doc.json',
      'open <dir> r',
      'fsync <dir>',
      'close <dir>',
    ]);
    expect(JSON.parse(await readFile(path.join(dir, 'doc.json'), 'utf8'))).toEqual({ n: 1 });
    expect(await readdir(dir)).toEqual(['doc.json']);
  });

  it('leaves the target untouched and no temp file behind when the commit is refused', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'doc.json');
    await new DurableJsonFile(file).write({ n: 1 });
    const refusing = new DurableJsonFile(file, {
      beforeCommit: () => {
        throw new PersistenceError('lock_compromised', 'test');
      },
    });
    await expect(refusing.write({ n: 2 })).rejects.toMatchObject({ code: 'lock_compromised' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 1 });
    expect(await readdir(dir)).toEqual(['doc.json']);
  });

  it('gives concurrent writers distinct temp files, so the result is one whole document', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'doc.json');
    const writers = Array.from({ length: 20 }, (_, n) => new DurableJsonFile(file).write({ n, pad: 'y'.repeat(10_000) }));
    await Promise.all(writers);
    const final = JSON.parse(await readFile(file, 'utf8')) as { n: number };
    expect(final.n).toBeGreaterThanOrEqual(0);
    expect(await readdir(dir)).toEqual(['doc.json']);
  });
});
