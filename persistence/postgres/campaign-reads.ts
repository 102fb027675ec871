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

/** At most this many documents per read: a bounded answer, whatever the installation's size. */
export const ELSEWHERE_LIMIT = 10_000;

const ELSEWHERE_SQL = `
SELECT d.campaign_id, d.document,
       CASE WHEN o.holder IS NOT NULL AND o.expires_at > now() THEN o.holder END AS owner
FROM campaign_documents d LEFT JOIN campaign_owner o USING (campaign_id)
WHERE NOT (d.campaign_id = ANY($1::text[]))
ORDER BY d.campaign_id
LIMIT $2`;

/** Every campaign document except `hosted` (this replica's own), in id order, bounded. */
export async function documentsElsewhere(db: Database, hosted: readonly string[], machineVersionKnown?: MachineVersionCheck, limit = ELSEWHERE_LIMIT): Promise<DocumentElsewhere[]> {
  const { rows } = await db.pool.query<{ campaign_id: string; document: unknown; owner: string | null }>(ELSEWHERE_SQL, [[...hosted], limit]);
  return rows.map((row) => ({ campaignId: row.campaign_id, owner: row.owner, read: classifyDocument(row.document, row.campaign_id, machineVersionKnown) }));
}

/** A row's version: its `xmin` changes with every write of the document (and only then). */
export interface DocumentVersion {
  campaignId: string;
  owner: string | null;
  version: string;
}

const VERSIONS_SQL = `
SELECT d.campaign_id, d.xmin::text AS version,
       CASE WHEN o.holder IS NOT NULL AND o.expires_at > now() THEN o.holder END AS owner
FROM campaign_documents d LEFT JOIN campaign_owner o USING (campaign_id)
WHERE NOT (d.campaign_id = ANY($1::text[]))
ORDER BY d.campaign_id
LIMIT $2`;

/** Which documents exist besides `hosted`, and their versions, without reading them (bounded). */
export async function versionsElsewhere(db: Database, hosted: readonly string[], limit = ELSEWHERE_LIMIT): Promise<DocumentVersion[]> {
  const { rows } = await db.pool.query<{ campaign_id: string; version: string; owner: string | null }>(VERSIONS_SQL, [[...hosted], limit]);
  return rows.map((row) => ({ campaignId: row.campaign_id, owner: row.owner, version: row.version }));
}

/** These documents, each with the version read. */
export async function documentsById(db: Database, ids: readonly string[], machineVersionKnown?: MachineVersionCheck): Promise<{ campaignId: string; version: string; read: DocumentRead }[]> {
  const { rows } = await db.pool.query<{ campaign_id: string; version: string; document: unknown }>('SELECT campaign_id, xmin::text AS version, document FROM campaign_documents WHERE campaign_id = ANY($1::text[])', [[...ids]]);
  return rows.map((row) => ({ campaignId: row.campaign_id, version: row.version, read: classifyDocument(row.document, row.campaign_id, machineVersionKnown) }));
}

/** One campaign's document (null: no such campaign), for the events a notice names. */
export async function documentOf(db: Database, campaignId: string, machineVersionKnown?: MachineVersionCheck): Promise<DocumentRead | null> {
  const { rows } = await db.pool.query<{ document: unknown }>('SELECT document FROM campaign_documents WHERE campaign_id = $1', [campaignId]);
  return rows[0] ? classifyDocument(rows[0].document, campaignId, machineVersionKnown) : null;
}
