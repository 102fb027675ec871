/**
 * A SIGKILL inside a document write leaves that campaign's lock folder behind. Under the state
 * root's owner lock no other live process can hold it, so the next owner clears it at open
 * rather than waiting out its stale time (10 s per campaign, which every restart paid before).
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { makeDoc } from './support/documents.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs('argus-dead-locks-');

async function rootWithLeftoverLock(): Promise<string> {
  const root = await tempDir();
  const first = await openCampaignStore({ root });
  const created = await first.create(makeDoc('c1'));
  expect(created.ok).toBe(true);
  // What proper-lockfile leaves when its holder dies mid-write: a fresh lock folder.
  await mkdir(first.layout.lockPath('c1'));
  return root;
}

describe('locks left by a dead owner', () => {
  it('the sole owner clears them at open, and its first write does not wait', async () => {
    const root = await rootWithLeftoverLock();
    const store = await openCampaignStore({ root, soleOwner: true, lock: { retries: { retries: 0, factor: 1, minTimeout: 1, maxTimeout: 1, randomize: false } } });
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
    const written = await store.transact('c1', (d) => ({ ...d, sourceSha: 'abc123' }));
    expect(written).toMatchObject({ ok: true, written: true });
  });

  it('a store that does not own the whole root leaves them alone (another process may hold one)', async () => {
    const root = await rootWithLeftoverLock();
    const store = await openCampaignStore({ root, lock: { retries: { retries: 0, factor: 1, minTimeout: 1, maxTimeout: 1, randomize: false } } });
    expect(await readdir(path.join(root, 'locks'))).toEqual(['c1.lock']);
    expect(await store.transact('c1', (d) => ({ ...d, sourceSha: 'abc123' }))).toMatchObject({ ok: false, code: 'lock_timeout' });
  });
});
