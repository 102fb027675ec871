/**
 * The local key file's mode, as a table (issue 19, planted bug 14): any group or other bit,
 * read or write, refuses the file; owner-only modes are accepted. The serve test tries 0644
 * alone, which a check masking only the "other" bits (0o007) still refuses.
 */
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalKey } from '../../services/runtime/local-key.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

let dir = '';
beforeAll(async () => {
  dir = await scratchDir('local-key-modes-');
});
afterAll(() => removeScratch(dir));

const MODES: [mode: string, verdict: 'refused' | 'accepted'][] = [
  ['0640', 'refused'],
  ['0660', 'refused'],
  ['0604', 'refused'],
  ['0620', 'refused'],
  ['0644', 'refused'],
  ['0600', 'accepted'],
  ['0400', 'accepted'],
];

describe('readLocalKey by file mode', () => {
  it.each(MODES)('mode %s is %s', async (octal, verdict) => {
    const mode = Number.parseInt(octal, 8);
    const file = path.join(dir, `key-${octal}`);
    const key = randomBytes(32).toString('base64url');
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    await chmod(file, mode);
    const read = readLocalKey(file);
    if (verdict === 'accepted') await expect(read).resolves.toBe(key);
    else await expect(read).rejects.toMatchObject({ code: 'local_key_unsafe', message: expect.stringContaining(`has mode ${mode.toString(8)}, not 600`) });
  });
});
