import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { describe, expect, it } from 'vitest';
import { DurableJsonFile } from '../../persistence/durable-json-adapter.js';
import { PersistenceError } from '../../persistence/store-errors.js';
import { namerFor, recordingFs } from './support/recording-fs.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs();

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

  it('writes the bytes, fsyncs them, closes, renames over the target, then fsyncs the folder — in that order only', async () => {
    const dir = await tempDir();
    const calls: string[] = [];
    const data = { n: 1 };
    const bytes = Buffer.byteLength(`${JSON.stringify(data)}\n`);
    await new DurableJsonFile(path.join(dir, 'doc.json'), { fs: recordingFs(calls, namerFor(dir)) }).write(data);
    // Exact sequence: an fsync before the write (an empty file made durable), a rename before
    // the fsync, or a missing folder fsync each change this list.
    expect(calls).toEqual([
      'open <tmp> wx',
      `write <tmp> ${bytes}B`,
      `fsync <tmp> (${bytes}B on disk)`,
      'close <tmp>',
      'rename <tmp> -> doc.json',
      'open <dir> r',
      'fsync <dir>',
      'close <dir>',
    ]);
    expect(JSON.parse(await readFile(path.join(dir, 'doc.json'), 'utf8'))).toEqual(data);
    expect(await readdir(dir)).toEqual(['doc.json']);
  });

  it('leaves the target untouched and no temp file behind when the commit is refused', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'doc.json');
    await new DurableJsonFile(file).write({ n: 1 });
    const calls: string[] = [];
    const refusing = new DurableJsonFile(file, {
      fs: recordingFs(calls, namerFor(dir)),
      beforeCommit: () => {
        throw new PersistenceError('lock_compromised', 'test');
      },
    });
    await expect(refusing.write({ n: 2 })).rejects.toMatchObject({ code: 'lock_compromised' });
    expect(calls.filter((call) => call.startsWith('rename'))).toEqual([]);
    expect(calls.at(-1)).toBe('unlink <tmp>');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ n: 1 });
    expect(await readdir(dir)).toEqual(['doc.json']);
  });

  it('gives concurrent writers distinct temp files, so the result is one whole document', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'doc.json');
    const written = Array.from({ length: 20 }, (_, n) => ({ n, pad: String(n).repeat(10_000) }));
    await Promise.all(written.map((doc) => new DurableJsonFile(file).write(doc)));
    // Whole: exactly one writer's document, byte for byte (a torn or interleaved write is not).
    const text = await readFile(file, 'utf8');
    const final = JSON.parse(text) as { n: number };
    expect(text).toBe(`${JSON.stringify(written[final.n])}\n`);
    expect(await readdir(dir)).toEqual(['doc.json']);
  });
});
