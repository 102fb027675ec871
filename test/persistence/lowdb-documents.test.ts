/**
 * lowdb for real: every campaign document the store reads or writes goes through lowdb's `Low`
 * (the boot's bulk load through `LowSync`), over the durable adapter. Counted with spies on
 * lowdb's own classes, so a store that reads or writes its files around lowdb fails here. A
 * corrupt document still fails closed through `Low.read()` (it never passes for a missing one).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Low, LowSync } from 'lowdb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { makeDoc } from './support/documents.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs();

function spies() {
  return {
    read: vi.spyOn(Low.prototype, 'read'),
    write: vi.spyOn(Low.prototype, 'write'),
    syncRead: vi.spyOn(LowSync.prototype, 'read'),
    syncWrite: vi.spyOn(LowSync.prototype, 'write'),
  };
}
const counts = (s: ReturnType<typeof spies>) => ({ read: s.read.mock.calls.length, write: s.write.mock.calls.length, syncRead: s.syncRead.mock.calls.length, syncWrite: s.syncWrite.mock.calls.length });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('campaign documents through lowdb', () => {
  it('create, transact, load and the boot load each go through Low / LowSync', async () => {
    const root = await tempDir();
    const store = await openCampaignStore({ root });
    const s = spies();

    expect((await store.create(makeDoc('c1'))).ok).toBe(true);
    expect(counts(s)).toEqual({ read: 0, write: 1, syncRead: 0, syncWrite: 0 });

    const changed = await store.transact('c1', (d) => ({ ...d, objective: 'fine-tune, resumed' }));
    expect(changed).toMatchObject({ ok: true, written: true });
    expect(counts(s)).toEqual({ read: 1, write: 2, syncRead: 0, syncWrite: 0 });

    // No change: read through Low under the lock, nothing written.
    expect(await store.transact('c1', () => null)).toMatchObject({ ok: true, written: false });
    expect(counts(s)).toEqual({ read: 2, write: 2, syncRead: 0, syncWrite: 0 });

    const loaded = await store.load('c1');
    expect(loaded.ok && loaded.doc.objective).toBe('fine-tune, resumed');
    expect(counts(s)).toEqual({ read: 3, write: 2, syncRead: 0, syncWrite: 0 });

    // The restart's bulk load reads synchronously, through LowSync, and writes nothing.
    const all = await (await openCampaignStore({ root })).loadAll();
    expect(all.map((r) => r.ok && r.doc.objective)).toEqual(['fine-tune, resumed']);
    expect(counts(s)).toEqual({ read: 3, write: 2, syncRead: 1, syncWrite: 0 });
  });

  it('a corrupt document fails closed through Low.read, in both reads, and is never rewritten', async () => {
    const root = await tempDir();
    const store = await openCampaignStore({ root });
    expect((await store.create(makeDoc('c1'))).ok).toBe(true);
    const file = path.join(store.layout.campaignsDir, 'c1.json');
    await writeFile(file, '{"documentVersion": 2, "campaignId": "c1"');
    const s = spies();
    expect(await store.load('c1')).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(await store.transact('c1', (d) => d)).toMatchObject({ ok: false, code: 'document_corrupt' });
    expect(await (await openCampaignStore({ root })).loadAll()).toMatchObject([{ id: 'c1', ok: false, code: 'document_corrupt' }]);
    expect(counts(s)).toEqual({ read: 2, write: 0, syncRead: 1, syncWrite: 0 });
  });
});
