import { readFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { lstat, mkdir, readFile, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTBOX_EVENT_RETENTION, type CampaignDocument } from '../../persistence/campaign-document.js';
import { openCampaignStore, type StoreWrite } from '../../persistence/campaign-store.js';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { recordIntent } from '../../persistence/intent-journal.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { contextOf, intentDraft, makeDoc, T0, withContext } from './support/documents.js';
import { v1Fixture } from './support/v1-fixtures.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs();

async function freshStore(extra: { onWrite?: (w: StoreWrite) => void } = {}) {
  const root = await tempDir();
  const store = await openCampaignStore({ root, ...extra });
  return { root, store };
}

const unwrap = <T extends { ok: boolean }>(result: T): Extract<T, { ok: true }> => {
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result as Extract<T, { ok: true }>;
};

describe('campaign store: round trip and API', () => {
  it('creates, loads, lists and transacts', async () => {
    const writes: StoreWrite[] = [];
    const { store, root } = await freshStore({ onWrite: (w) => writes.push(w) });
    const doc = makeDoc('c1');
    expect(unwrap(await store.create(doc)).doc).toEqual(doc);
    expect(await store.load('c1')).toEqual({ id: 'c1', ok: true, doc });
    expect(await store.listIds()).toEqual(['c1']);
    const next = unwrap(await store.transact('c1', (d) => ({ ...d, objective: 'fine-tune, resumed', sourceSha: 'abc123' })));
    expect(next).toMatchObject({ written: true, doc: { objective: 'fine-tune, resumed', sourceSha: 'abc123' } });
    const reopened = await openCampaignStore({ root });
    expect(unwrap(await reopened.load('c1')).doc).toEqual(next.doc);
    expect(store.writes()).toBe(2);
    expect(writes.map((w) => w.kind)).toEqual(['create', 'transact']);
    expect(await readdir(path.join(root, 'campaigns'))).toEqual(['c1.json']);
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
  });

  it('refuses an existing id with campaign_exists and leaves it as it was', async () => {
    const { store } = await freshStore();
    await store.create(makeDoc('c1'));
    expect(await store.create({ ...makeDoc('c1'), objective: 'other' })).toMatchObject({ ok: false, code: 'campaign_exists' });
    expect(unwrap(await store.load('c1')).doc.objective).toBe('fine-tune the model');
  });

  it.each(['', '.hidden', '../escape', 'a/b', 'x'.repeat(129), 'spaces here', 'c1\u0000'])('refuses the campaign id %j', async (id) => {
    const { store } = await freshStore();
    expect(await store.load(id)).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    expect(await store.transact(id, (d) => d)).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
    expect(await store.create(makeDoc(id))).toMatchObject({ ok: false, code: 'invalid_campaign_id' });
  });

  it('returns campaign_not_found for a missing campaign', async () => {
    const { store } = await freshStore();
    expect(await store.load('nope')).toMatchObject({ ok: false, code: 'campaign_not_found' });
    expect(await store.transact('nope', (d) => d)).toMatchObject({ ok: false, code: 'campaign_not_found' });
  });

  it('writes nothing when the transaction returns null', async () => {
    const { store, root } = await freshStore();
    await store.create(makeDoc('c1'));
    const file = path.join(root, 'campaigns', 'c1.json');
    const before = (await lstat(file)).ino;
    expect(await store.transact('c1', () => null)).toMatchObject({ ok: true, written: false });
    expect(store.writes()).toBe(1);
    expect((await lstat(file)).ino).toBe(before);
  });

  it.each<[string, (d: CampaignDocument) => CampaignDocument, string]>([
    ['a throwing transaction', () => { throw new Error('boom'); }, 'transaction_failed'],
    ['an invalid result (v2 requires a snapshot)', (d) => ({ ...d, machine: null as never }), 'document_invalid'],
    ['an invalid result (an unknown field)', (d) => ({ ...d, maxAttempts: 99 }), 'document_invalid'],
    ['a regression', (d) => ({ ...d, outbox: { ...d.outbox, events: [], nextSeq: 1 } }), 'document_regression'],
    ['an in-place regression', (d) => { d.consumedDecisions.length = 0; return d; }, 'document_regression'],
  ])('refuses %s and keeps the document', async (_label, fn, code) => {
    const { store } = await freshStore();
    const doc = appendPublicEvents({ ...makeDoc('c1'), consumedDecisions: ['d1'] }, [{ kind: 'NEEDS_YOU', dedupeKey: 'k', summary: 's' }], T0).doc;
    await store.create(doc);
    expect(await store.transact('c1', fn)).toMatchObject({ ok: false, code });
    expect(unwrap(await store.load('c1')).doc).toEqual(doc);
  });

  it('refuses to drop a journaled intent', async () => {
    const { store } = await freshStore();
    await store.create(unwrap(recordIntent(makeDoc('c1'), intentDraft('r1'))).doc);
    expect(await store.transact('c1', (d) => ({ ...d, intents: [] }))).toMatchObject({ ok: false, code: 'document_regression' });
    expect(unwrap(await store.load('c1')).doc.intents).toHaveLength(1);
  });

  it('serializes concurrent transactions in one process without losing any', async () => {
    const { store } = await freshStore();
    await store.create(makeDoc('c1'));
    await Promise.all(
      Array.from({ length: 40 }, () => store.transact('c1', (d) => withContext(d, { attemptsSubmitted: contextOf(d).attemptsSubmitted + 1 }))),
    );
    expect(contextOf(unwrap(await store.load('c1')).doc).attemptsSubmitted).toBe(40);
  });

  it('resolves the root through its realpath', async () => {
    const real = await tempDir();
    const link = path.join(await tempDir(), 'link');
    await symlink(real, link, 'dir');
    const store = await openCampaignStore({ root: link });
    expect(store.layout.root).toBe(await import('node:fs/promises').then((f) => f.realpath(real)));
    expect(store.layout.lockPath('c1')).toBe(path.join(store.layout.root, 'locks', 'c1.lock'));
  });

  it('ignores temp files in listings and sweeps old ones at open', async () => {
    const { store, root } = await freshStore();
    await store.create(makeDoc('c1'));
    const stale = path.join(root, 'campaigns', '.c1.json.123.abc.tmp');
    const fresh = path.join(root, 'campaigns', '.c1.json.456.def.tmp');
    await writeFile(stale, '{"torn');
    await writeFile(fresh, '{"torn');
    const old = new Date(Date.now() - 60 * 60 * 1000);
    await utimes(stale, old, old);
    expect(await store.listIds()).toEqual(['c1']);
    await openCampaignStore({ root });
    expect((await readdir(path.join(root, 'campaigns'))).sort()).toEqual(['.c1.json.456.def.tmp', 'c1.json']);
  });
});

describe('campaign store: outbox across reloads', () => {
  it('keeps ids monotonic across reopen and never reuses one after trimming', async () => {
    const { store, root } = await freshStore();
    const projected: string[] = [];
    await store.create(makeDoc('c1'));
    const seen = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const reopened = await openCampaignStore({ root, onWrite: (w) => projected.push(...w.appendedEvents.map((e) => e.id)) });
      for (let i = 0; i < 100; i++) {
        const r = unwrap(await reopened.transact('c1', (d) => appendPublicEvents(d, [{ kind: 'STAGE_TRANSITION', dedupeKey: `r${round}:${i}`, summary: '' }], T0).doc));
        const last = r.doc.outbox.events.at(-1)!;
        expect(seen.has(last.id)).toBe(false);
        seen.add(last.id);
      }
    }
    const doc = unwrap(await store.load('c1')).doc;
    expect(doc.outbox.nextSeq).toBe(301);
    expect(doc.outbox.events).toHaveLength(OUTBOX_EVENT_RETENTION);
    expect(doc.outbox.events[0]!.id).toBe('c1:101');
    expect(projected).toHaveLength(300);
    // A dedupe key already published is skipped even through a fresh store.
    const again = unwrap(await store.transact('c1', (d) => {
      const r = appendPublicEvents(d, [{ kind: 'STAGE_TRANSITION', dedupeKey: 'r2:99', summary: '' }], T0);
      return r.appended.length === 0 ? null : r.doc;
    }));
    expect(again.written).toBe(false);
    const lines = (await readFile(path.join(root, 'events', 'c1.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });
});

/** A v1 document (filed as c1) whose snapshot is in an effect state: campaign@2 never saved one. */
function v1WithClaiming() {
  const doc = v1Fixture('controlling');
  const machine = doc.machine as { version: string; snapshot: { value: unknown } };
  return { ...doc, campaignId: 'c1', machine: { ...machine, snapshot: { ...machine.snapshot, value: { active: { authority: 'claiming', attention: 'idle' } } } } };
}

describe('campaign store: fail closed', () => {
  const cases = [
    { label: 'unparseable bytes', bytes: '{"documentVersion":1,"campaignId":"c1", TRUNC', code: 'document_corrupt' },
    { label: 'a schema violation', bytes: JSON.stringify({ ...makeDoc('c1'), machine: null }), code: 'document_corrupt' },
    { label: 'a v1 document failing the v1 schema', bytes: JSON.stringify({ ...v1Fixture('controlling'), campaignId: 'c1', maxAttempts: 0 }), code: 'document_corrupt' },
    { label: 'a v1 document whose snapshot campaign@2 never wrote', bytes: JSON.stringify(v1WithClaiming()), code: 'document_corrupt' },
    { label: 'another campaign filed here', bytes: JSON.stringify(makeDoc('other')), code: 'document_corrupt' },
    { label: 'an unknown version', bytes: JSON.stringify({ ...makeDoc('c1'), documentVersion: 3, newThing: {} }), code: 'document_version_unknown' },
  ];
  it.each(cases)('$label: load, transact and create refuse, the bytes stay, one report is written', async ({ bytes, code }) => {
    const errors: object[] = [];
    const root = await tempDir();
    const store = await openCampaignStore({ root, logger: { warn: () => {}, error: (o) => errors.push(o) } });
    const file = path.join(root, 'campaigns', 'c1.json');
    await writeFile(file, bytes);
    expect(await store.load('c1')).toMatchObject({ id: 'c1', ok: false, code });
    expect(await store.transact('c1', (d) => ({ ...d, sourceSha: 'abc123' }))).toMatchObject({ ok: false, code });
    expect(await store.create(makeDoc('c1'))).toMatchObject({ ok: false, code: 'campaign_exists' });
    expect(await store.loadAll()).toEqual([{ id: 'c1', ok: false, code, reason: expect.any(String) }]);
    expect(await readFile(file, 'utf8')).toBe(bytes);
    const report = JSON.parse(await readFile(path.join(root, 'corrupt', 'c1.json'), 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({ campaignId: 'c1', code, sizeBytes: Buffer.byteLength(bytes) });
    expect(errors).toHaveLength(1); // reported once, not on every read
    expect(store.writes()).toBe(0);
    expect(await store.listIds()).toEqual(['c1']);
  });

  it('reports again when the bad bytes change', async () => {
    const root = await tempDir();
    const store = await openCampaignStore({ root });
    const file = path.join(root, 'campaigns', 'c1.json');
    await writeFile(file, 'bad one');
    await store.load('c1');
    const first = JSON.parse(await readFile(path.join(root, 'corrupt', 'c1.json'), 'utf8')) as { sha256: string };
    await writeFile(file, 'bad two');
    await store.load('c1');
    const second = JSON.parse(await readFile(path.join(root, 'corrupt', 'c1.json'), 'utf8')) as { sha256: string };
    expect(second.sha256).not.toBe(first.sha256);
  });
});

describe('campaign store: loadAll', () => {
  it('loads 2,000 documents, reporting the corrupt ones beside the good ones', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'campaigns');
    await mkdir(dir, { recursive: true });
    const ids = Array.from({ length: 2000 }, (_, i) => `campaign-${String(i).padStart(5, '0')}`);
    for (let i = 0; i < ids.length; i += 200) {
      await Promise.all(
        ids.slice(i, i + 200).map((id, j) =>
          writeFile(path.join(dir, `${id}.json`), (i + j) % 500 === 7 ? '{broken' : JSON.stringify(makeDoc(id))),
        ),
      );
    }
    const store = await openCampaignStore({ root });
    const results = await store.loadAll({ concurrency: 64 });
    expect(results).toHaveLength(2000);
    expect(results.map((r) => r.id)).toEqual(ids);
    const bad = results.filter((r) => !r.ok);
    expect(bad.map((r) => r.id)).toEqual(['campaign-00007', 'campaign-00507', 'campaign-01007', 'campaign-01507']);
    expect(bad.every((r) => !r.ok && r.code === 'document_corrupt')).toBe(true);
  });

  it('reads synchronously in batches when the file system can, and gives exactly what the thread-pool path gives', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'campaigns');
    await mkdir(dir, { recursive: true });
    const ids = Array.from({ length: 150 }, (_, i) => `c-${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map((id, i) => writeFile(path.join(dir, `${id}.json`), i === 70 ? '{broken' : JSON.stringify(makeDoc(id)))));
    const calls = { sync: 0, async: 0 };
    const counted = (withSync: boolean): DurableFs => ({
      open: (file, flags, mode) => fsp.open(file, flags, mode),
      rename: fsp.rename,
      unlink: fsp.unlink,
      readFile: (file, encoding) => (calls.async++, fsp.readFile(file, encoding)),
      ...(withSync ? { readFileSync: (file: string, encoding: 'utf8') => (calls.sync++, readFileSync(file, encoding)) } : {}),
    });
    const seen: string[] = [];
    const syncStore = await openCampaignStore({ root, fs: counted(true) });
    const viaSync = await syncStore.loadAll({ concurrency: 64, onResult: (r) => seen.push(r.id) });
    expect(calls).toEqual({ sync: 150, async: 0 });
    const viaPool = await (await openCampaignStore({ root, fs: counted(false) })).loadAll({ concurrency: 64 });
    expect(calls).toEqual({ sync: 150, async: 150 });
    expect(viaSync).toEqual(viaPool);
    // Streamed as each batch arrives, in the store's (sorted) order; the corrupt one is reported, not skipped.
    expect(seen).toEqual(ids);
    expect(viaSync.filter((r) => !r.ok).map((r) => [r.id, !r.ok && r.code])).toEqual([['c-0070', 'document_corrupt']]);
  });
});
