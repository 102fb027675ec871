/**
 * Reads of the campaigns OTHER replicas host (issue 22, part 5: any replica answers any
 * campaign): their documents as the shared store holds them, each with its owner row, for the
 * `list` and for the public events a replica shows on its own stream. Read-only, never fenced
 * (no right is needed to read), checked exactly as a load is (`classifyDocument`).
 * @module
 */
import type { MachineVersionCheck } from '../document-db.js';
import type { DocumentRead } from '../read-document.js';
import { classifyDocument } from './campaign-documents.js';
import type { Database } from './database.js';

export interface DocumentElsewhere {
  campaignId: string;
  /** The replica whose right is live now; null while it is released, expired or never claimed. */
  owner: string | null;
  read: DocumentRead;
}

/**
 * Documents per statement. Every read pages through ALL the campaigns hosted elsewhere by id
 * (keyset: `campaign_id > last`), so no answer is ever silently short, and no one statement
 * (or the memory it fills) grows with the installation. Pages are separate statements: a
 * campaign created or removed while a read pages through shows as it was when its page was read.
 */
export const ELSEWHERE_PAGE = 5_000;

const OWNER_LIVE = 'CASE WHEN o.holder IS NOT NULL AND o.expires_at > now() THEN o.holder END AS owner';
const PAGE_WHERE = `WHERE NOT (d.campaign_id = ANY($1::text[])) AND d.campaign_id > $3
ORDER BY d.campaign_id
LIMIT $2`;

const ELSEWHERE_SQL = `
SELECT d.campaign_id, d.document, ${OWNER_LIVE}
FROM campaign_documents d LEFT JOIN campaign_owner o USING (campaign_id)
${PAGE_WHERE}`;

/** Runs one page statement after another until a short page; `onPage` sees each page's rows. */
async function pages<R extends { campaign_id: string }>(db: Database, sql: string, hosted: readonly string[], pageSize: number, onPage: (rows: R[]) => void): Promise<void> {
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`page size must be a positive integer, not ${pageSize}`);
  // '' sorts before every valid id (ids are never empty).
  for (let after = ''; ; ) {
    const { rows } = await db.pool.query<R>(sql, [[...hosted], pageSize, after]);
    if (rows.length > 0) onPage(rows);
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.campaign_id;
  }
}

/**
 * Every campaign document except `hosted` (this replica's own), in id order, a page at a time:
 * `onPage` gets each page (the caller keeps what it needs, so memory stays one page).
 */
export async function eachDocumentElsewhere(db: Database, hosted: readonly string[], onPage: (docs: DocumentElsewhere[]) => void, machineVersionKnown?: MachineVersionCheck, pageSize = ELSEWHERE_PAGE): Promise<void> {
  await pages<{ campaign_id: string; document: unknown; owner: string | null }>(db, ELSEWHERE_SQL, hosted, pageSize, (rows) =>
    onPage(rows.map((row) => ({ campaignId: row.campaign_id, owner: row.owner, read: classifyDocument(row.document, row.campaign_id, machineVersionKnown) }))),
  );
}

/** A row's version: its `xmin` changes with every write of the document (and only then). */
export interface DocumentVersion {
  campaignId: string;
  owner: string | null;
  version: string;
}

const VERSIONS_SQL = `
SELECT d.campaign_id, d.xmin::text AS version, ${OWNER_LIVE}
FROM campaign_documents d LEFT JOIN campaign_owner o USING (campaign_id)
${PAGE_WHERE}`;

/** Which documents exist besides `hosted`, and their versions, without reading them: all of them, paged. */
export async function versionsElsewhere(db: Database, hosted: readonly string[], pageSize = ELSEWHERE_PAGE): Promise<DocumentVersion[]> {
  const out: DocumentVersion[] = [];
  await pages<{ campaign_id: string; version: string; owner: string | null }>(db, VERSIONS_SQL, hosted, pageSize, (rows) => {
    for (const row of rows) out.push({ campaignId: row.campaign_id, owner: row.owner, version: row.version });
  });
  return out;
}

/** These documents, each with the version read (`pageSize` ids per statement). */
export async function documentsById(db: Database, ids: readonly string[], machineVersionKnown?: MachineVersionCheck, pageSize = ELSEWHERE_PAGE): Promise<{ campaignId: string; version: string; read: DocumentRead }[]> {
  const out: { campaignId: string; version: string; read: DocumentRead }[] = [];
  for (let at = 0; at < ids.length; at += pageSize) {
    const { rows } = await db.pool.query<{ campaign_id: string; version: string; document: unknown }>('SELECT campaign_id, xmin::text AS version, document FROM campaign_documents WHERE campaign_id = ANY($1::text[])', [ids.slice(at, at + pageSize)]);
    for (const row of rows) out.push({ campaignId: row.campaign_id, version: row.version, read: classifyDocument(row.document, row.campaign_id, machineVersionKnown) });
  }
  return out;
}

/** One campaign's document (null: no such campaign), for the events a notice names. */
export async function documentOf(db: Database, campaignId: string, machineVersionKnown?: MachineVersionCheck): Promise<DocumentRead | null> {
  const { rows } = await db.pool.query<{ document: unknown }>('SELECT document FROM campaign_documents WHERE campaign_id = $1', [campaignId]);
  return rows[0] ? classifyDocument(rows[0].document, campaignId, machineVersionKnown) : null;
}
