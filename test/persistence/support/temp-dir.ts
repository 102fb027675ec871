/** Real temp directories under os.tmpdir(), removed after each test file. */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { removeScratch } from '../../fixtures/scratch.js';

export function useTempDirs(prefix = 'argus-persistence-'): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => removeScratch(dir)));
  });
  return async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
