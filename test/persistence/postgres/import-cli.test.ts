/**
 * `argus-supervisor import --state-root DIR` on the real PostgreSQL, run as a child process, on
 * state roots written by the file store itself (openCampaignStore + create): every document
 * arrives as it was, each created under a claimed right (fence 1) that is released after; a
 * second import changes nothing (every campaign `campaign_exists`, no fence raised); documents
 * that fail closed are skipped with their code and the exit is 1; the state root's documents
 * are never written; a root owned by a live process, a missing root and a missing URL are
 * refused with one line and exit 2.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../../persistence/campaign-store.js';
import { stateRootOwnership, WHOLE_STATE_ROOT } from '../../../persistence/owner-lock.js';
import { removeScratch, scratchDir } from '../../fixtures/scratch.js';
import { makeDoc } from '../support/documents.js';
import { databaseEnv, runCli } from './support/run-cli.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await removeScratch(root);
});

/** A state root written by the file store, with these campaigns. */
async function stateRoot(ids: string[]): Promise<string> {
  const root = await scratchDir('argus-import-');
  roots.push(root);
  const store = await openCampaignStore({ root });
  for (const id of ids) {
    const made = await store.create(makeDoc(id, { objective: `objective of ${id}` }));
    if (!made.ok) throw new Error(`${made.code}: ${made.reason}`);
  }
  return root;
}

/** Every campaign document file's bytes, by name. */
async function documentBytes(root: string): Promise<Record<string, string>> {
  const dir = path.join(root, 'campaigns');
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(path.join(dir, name), 'utf8');
  return out;
}

const env = () => databaseEnv(pgf.url(), pgf.schema);

async function rows(ids: string[]) {
  const client = await pgf.client();
  const docs = await client.query<{ campaign_id: string; document: Record<string, unknown>; fence: string }>('SELECT campaign_id, document, fence::text AS fence FROM campaign_documents WHERE campaign_id = ANY($1) ORDER BY campaign_id', [ids]);
  const owners = await client.query<{ campaign_id: string; holder: string | null; fence: string }>('SELECT campaign_id, holder, fence::text AS fence FROM campaign_owner WHERE campaign_id = ANY($1) ORDER BY campaign_id', [ids]);
  const replicas = await client.query<{ replica_id: string }>('SELECT replica_id FROM replicas');
  return { docs: docs.rows, owners: owners.rows, replicas: replicas.rows.map((r) => r.replica_id) };
}

describe('argus-supervisor import', () => {
  it('loads every campaign fenced, leaves the root untouched, and a second run skips them all as present', async () => {
    const ids = ['imp-a', 'imp-b', 'imp-c'];
    const root = await stateRoot(ids);
    const before = await documentBytes(root);

    const first = await runCli(['import', '--state-root', root, '--json'], env(), 'import-first');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ stateRoot: root, schema: pgf.schema, skipped: [], counts: { imported: 3, skipped: 0, skipped_by_code: {} } });
    expect(report.replicaId).toMatch(/^import-/);
    expect(report.imported).toEqual(ids.map((id) => ({ id, outcome: 'imported', fence: 1 })));

    const after = await rows(ids);
    // The documents as the file store holds them, each written at the fence of its claim…
    expect(after.docs.map((d) => [d.campaign_id, d.fence])).toEqual(ids.map((id) => [id, '1']));
    for (const d of after.docs) expect(d.document).toEqual(JSON.parse(before[`${d.campaign_id}.json`]!));
    // …released after (holder NULL, fence kept), and the short-lived replica gone.
    expect(after.owners).toEqual(ids.map((id) => ({ campaign_id: id, holder: null, fence: '1' })));
    expect(after.replicas).not.toContain(report.replicaId);
    // The file store's documents were only read.
    expect(await documentBytes(root)).toEqual(before);
    // The root was claimed as serve claims it, and given back.
    expect(JSON.parse(await readFile(path.join(root, 'owner.json'), 'utf8')).releasedAt).toEqual(expect.any(String));

    const second = await runCli(['import', '--state-root', root], env(), 'import-second');
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const lines = second.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(ids.map((id) => `skipped ${id}: campaign_exists: campaign ${id} is already in the database; it is never overwritten`));
    expect(lines[3]).toMatch(new RegExp(`^import: 0 imported, 3 skipped \\(3 campaign_exists\\) from ${root} into schema ${pgf.schema} on 127\\.0\\.0\\.1:\\d+/test$`));
    expect(lines).toHaveLength(4);
    // Nothing changed: not a document, not a fence (a present campaign is not even claimed).
    const again = await rows(ids);
    expect(again.docs).toEqual(after.docs);
    expect(again.owners).toEqual(after.owners);
  });

  it('skips documents that fail closed and campaigns a live replica holds, with their codes (exit 1), and imports the rest', async () => {
    const root = await stateRoot(['ok-1', 'ok-2', 'held']);
    // A live replica holds 'held' (no document yet): the import does not write under its right.
    const holder = await pgf.replica({ replicaId: 'serving-replica' });
    expect(await holder.claim({ kind: 'campaign', campaignId: 'held' })).toMatchObject({ ok: true, fence: 1 });
    await writeFile(path.join(root, 'campaigns', 'torn.json'), '{"documentVersion": 2, "campaignId": "to');
    await writeFile(path.join(root, 'campaigns', 'future.json'), JSON.stringify({ ...makeDoc('future'), documentVersion: 3 }));
    const run = await runCli(['import', '--state-root', root, '--json'], env(), 'import-fail-closed');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.imported.map((c: { id: string }) => c.id)).toEqual(['ok-1', 'ok-2']);
    expect(report.skipped).toEqual([
      { id: 'future', outcome: 'skipped', code: 'document_version_unknown', reason: expect.any(String) },
      { id: 'held', outcome: 'skipped', code: 'campaign_hosted_elsewhere', reason: 'campaign held is hosted by replica serving-replica (fence 1)' },
      { id: 'torn', outcome: 'skipped', code: 'document_corrupt', reason: expect.any(String) },
    ]);
    expect(report.counts).toEqual({ imported: 2, skipped: 3, skipped_by_code: { document_version_unknown: 1, campaign_hosted_elsewhere: 1, document_corrupt: 1 } });
    expect((await rows(['ok-1', 'ok-2', 'held', 'torn', 'future'])).docs.map((d) => d.campaign_id)).toEqual(['ok-1', 'ok-2']);
  });

  it('refuses a root owned by a live process (state_root_locked), a folder that is no state root, and a missing URL: one line, exit 2', async () => {
    const root = await stateRoot(['locked-1']);
    // This test process owns the root, as a running serve would; the CLI is another process.
    const right = await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT);
    if (!right.ok) throw new Error(right.message);
    try {
      const locked = await runCli(['import', '--state-root', root], env(), 'import-locked');
      expect(locked.code).toBe(2);
      expect(locked.stdout).toBe('');
      expect(locked.stderr).toBe(`state_root_locked: ${root} is owned by pid ${process.pid}\n`);
    } finally {
      await right.release();
    }
    expect((await rows(['locked-1'])).docs).toEqual([]);

    const empty = await scratchDir('argus-import-empty-');
    roots.push(empty);
    const missing = await runCli(['import', '--state-root', path.join(empty, 'nope')], env(), 'import-missing');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`state_root_unusable: ${path.join(empty, 'nope')} is not a state root (no folder with a campaigns/ folder in it)\n`);

    const noUrl = await runCli(['import', '--state-root', root], {}, 'import-no-url');
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/^database_url_required: import works on the shared PostgreSQL database: set ARGUS_SUPERVISOR_DATABASE_URL [^\n]*\n$/);
  });
});
