/**
 * Moving an embedded state root into PostgreSQL (`argus-supervisor import --state-root DIR`):
 * every campaign document of the file store is created in `campaign_documents` by a short-lived
 * replica, through the same fenced path a serving replica writes with.
 *
 * - The state root is claimed as a whole, exactly as `serve` claims it (persistence/owner-lock.ts):
 *   a live owner refuses the import with `state_root_locked`, and while the import runs no
 *   `serve` can start on the root and change a document under it. The claim is given back at
 *   the end (owner.json keeps its fence, as after any release).
 * - The documents are only read (`openCampaignStore` + `loadAll`, no write right passed, so the
 *   store could not write one). Opening the store does its usual upkeep: a document that fails
 *   closed gets its `corrupt/` report, leftover temp files of a crashed writer are swept.
 * - Each campaign: claimed through a `CampaignOwnership` (fence + 1), created with
 *   `postgresCampaignDocuments` (the write checks that fence under FOR SHARE), released.
 * - Never overwrites: a campaign the database already has is skipped (`campaign_exists`)
 *   without being claimed, so a re-run changes nothing, not even a fence. A campaign written
 *   between the listing and the create is still refused by the create itself.
 * - A document that fails closed (corrupt, unknown version) or cannot be read is skipped with
 *   its code; nothing about it is guessed.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import type { CampaignDocument } from '../campaign-document.js';
import { openCampaignStore, type CampaignDocuments, type LoadResult } from '../campaign-store.js';
import type { MachineVersionCheck } from '../document-db.js';
import { stateRootOwnership, WHOLE_STATE_ROOT } from '../owner-lock.js';
import { storeLayout } from '../store-layout.js';
import { describeError } from '../store-errors.js';
import { openCampaignOwnership, type CampaignOwnership } from './campaign-ownership.js';
import { postgresCampaignDocuments } from './campaign-documents.js';
import type { Database } from './database.js';

export interface ImportOptions {
  stateRoot: string;
  db: Database;
  /** The chart's version check, so a snapshot this build cannot restore is skipped, not copied. */
  machineVersionKnown?: MachineVersionCheck;
  /** Default `import-<host>-<pid>-<random>`. */
  replicaId?: string;
  /** Hears each campaign as it is decided (progress for long imports). */
  onCampaign?: (entry: ImportedCampaign | SkippedCampaign) => void;
}

export interface ImportedCampaign {
  id: string;
  outcome: 'imported';
  fence: number;
}

export interface SkippedCampaign {
  id: string;
  outcome: 'skipped';
  /** `campaign_exists`, a fail-closed code, `io_failed`, `campaign_hosted_elsewhere`, `fence_stale`, … */
  code: string;
  reason: string;
}

export interface ImportReport {
  ok: true;
  stateRoot: string;
  schema: string;
  replicaId: string;
  imported: ImportedCampaign[];
  skipped: SkippedCampaign[];
}

export interface ImportRefusal {
  ok: false;
  code: 'state_root_unusable' | 'state_root_locked' | 'database_unusable';
  message: string;
}

export async function importStateRoot(options: ImportOptions): Promise<ImportReport | ImportRefusal> {
  const { stateRoot, db } = options;
  // Checked before the claim, which would create a missing folder: a typo must not import nothing "successfully".
  const campaignsDir = await stat(stateRoot).then(
    (s) => (s.isDirectory() ? storeLayout(stateRoot).campaignsDir : null),
    () => null,
  );
  if (campaignsDir === null || !(await stat(campaignsDir).then((s) => s.isDirectory(), () => false))) {
    return { ok: false, code: 'state_root_unusable', message: `${stateRoot} is not a state root (no folder with a campaigns/ folder in it)` };
  }
  const root = await stateRootOwnership({ root: stateRoot }).claim(WHOLE_STATE_ROOT);
  if (!root.ok) return { ok: false, code: root.code === 'state_root_locked' ? 'state_root_locked' : 'state_root_unusable', message: root.message };
  let ownership: CampaignOwnership | null = null;
  try {
    let loaded: LoadResult[];
    try {
      const store = await openCampaignStore({ root: stateRoot, ...(options.machineVersionKnown ? { machineVersionKnown: options.machineVersionKnown } : {}) });
      loaded = await store.loadAll();
    } catch (error) {
      return { ok: false, code: 'state_root_unusable', message: `${stateRoot} could not be read as a state root (${describeError(error)})` };
    }
    const replicaId = options.replicaId ?? `import-${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      ownership = await openCampaignOwnership({ db, replicaId });
    } catch (error) {
      return { ok: false, code: 'database_unusable', message: `PostgreSQL at ${db.target}: the import could not register as a replica (${describeError(error)})` };
    }
    const documents = postgresCampaignDocuments({ db, fence: ownership, ...(options.machineVersionKnown ? { machineVersionKnown: options.machineVersionKnown } : {}) });
    const present = new Set(await documents.listIds());
    const report: ImportReport = { ok: true, stateRoot, schema: db.schema, replicaId, imported: [], skipped: [] };
    for (const read of loaded) {
      const entry = read.ok ? await importOne(read.doc, present.has(read.id), ownership, documents) : skipped(read.id, read.code, read.reason);
      if (entry.outcome === 'imported') report.imported.push(entry);
      else report.skipped.push(entry);
      options.onCampaign?.(entry);
    }
    return report;
  } finally {
    await ownership?.close().catch(() => undefined);
    await root.release().catch(() => undefined);
  }
}

async function importOne(
  doc: CampaignDocument,
  present: boolean,
  ownership: CampaignOwnership,
  documents: CampaignDocuments,
): Promise<ImportedCampaign | SkippedCampaign> {
  const id = doc.campaignId;
  // Not claimed: a re-run must not raise the fence of every campaign already moved.
  if (present) return skipped(id, 'campaign_exists', `campaign ${id} is already in the database; it is never overwritten`);
  const right = await ownership.claim({ kind: 'campaign', campaignId: id });
  if (!right.ok) return skipped(id, right.code, right.message);
  try {
    const written = await documents.create(doc);
    if (!written.ok) return skipped(id, written.code, written.reason);
    return { id, outcome: 'imported', fence: right.fence };
  } finally {
    await right.release();
  }
}

const skipped = (id: string, code: string, reason: string): SkippedCampaign => ({ id, outcome: 'skipped', code, reason });
