/** The stale-build check of the global setup, on a small fake repository. */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { staleDistReason } from './dist-fresh.js';

const SOURCES = ['index.ts', 'bin', 'services', 'bench'];

const OLD = new Date('2026-01-01T00:00:00Z');
const NEW = new Date('2026-01-02T00:00:00Z');

async function fakeRepo(files: Record<string, Date>): Promise<string> {
  const root = await scratchDir('argus-dist-fresh-');
  for (const [rel, mtime] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), '');
    await utimes(path.join(root, rel), mtime, mtime);
  }
  return root;
}

describe('staleDistReason', () => {
  it('accepts a build newer than every source, and ignores tests and declaration files', async () => {
    const root = await fakeRepo({
      'index.ts': OLD,
      'dist/index.js': NEW,
      'services/x.ts': OLD,
      'dist/services/x.js': NEW,
      'services/types.d.ts': NEW,
      'test/services/x.test.ts': NEW,
    });
    try {
      expect(await staleDistReason(root, SOURCES)).toBeNull();
    } finally {
      await removeScratch(root);
    }
  });

  it('names the first source that is newer than its output', async () => {
    const root = await fakeRepo({ 'services/x.ts': NEW, 'dist/services/x.js': OLD, 'bin/a.ts': OLD, 'dist/bin/a.js': NEW });
    try {
      expect(await staleDistReason(root, SOURCES)).toBe('dist is stale: run npm run build (services/x.ts is newer than dist/services/x.js)');
    } finally {
      await removeScratch(root);
    }
  });

  it('names a source whose output is missing, and a missing dist', async () => {
    const root = await fakeRepo({ 'bench/chaos.ts': OLD });
    try {
      expect(await staleDistReason(root, SOURCES)).toBe('dist is stale: run npm run build (dist/bench/chaos.js is missing)');
    } finally {
      await removeScratch(root);
    }
  });
});
