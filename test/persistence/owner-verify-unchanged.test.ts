/**
 * `verify` skips reading owner.json while its stat (inode, size, mtime, ctime) is what it was
 * just before the read that proved it ours: the supervisor asks it before every remote call.
 * The shortcut must never hide a takeover: an in-place rewrite of the same size, same inode,
 * right after a confirmed check, is still found at the next check.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateRootOwnership, WHOLE_STATE_ROOT, type HostingRight } from '../../persistence/owner-lock.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs('argus-owner-verify-');

describe('verify on an unchanged owner record', () => {
  it('still finds a same-size in-place takeover right after a confirmed check', async () => {
    const root = await tempDir();
    const right = (await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT)) as HostingRight;
    expect(right.ok).toBe(true);
    const file = path.join(root, 'owner.json');
    expect(await right.verify('c1', right.fence)).toEqual({ ok: true });
    expect(await right.verify('c1', right.fence)).toEqual({ ok: true });
    const before = await stat(file);
    const record = JSON.parse(await readFile(file, 'utf8')) as { claimId: string };
    // Another claim id of the same length: same size, written in place (same inode).
    const foreign = (await readFile(file, 'utf8')).replace(record.claimId, 'f'.repeat(record.claimId.length));
    await writeFile(file, foreign);
    const after = await stat(file);
    expect([after.ino, after.size]).toEqual([before.ino, before.size]);
    expect(await right.verify('c1', right.fence)).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(right.lost).toBe(true);
    await right.release();
  });
});
