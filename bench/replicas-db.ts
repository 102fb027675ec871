/**
 * The database side of `npm run bench -- --replicas N`, read by the parent on its own
 * connection (never through a replica): what was written, measured by the server, and who
 * holds which campaign.
 *
 * - Rows changed: every INSERT or UPDATE gives a row a new `xmin`, so comparing
 *   (campaign_id → xmin) of `campaign_documents` before and after a window counts exactly the
 *   documents written in it; `campaign_commands` likewise by (id → xmin).
 * - `pg_stat_user_tables` (n_tup_ins / n_tup_upd / n_tup_del) of the schema's tables, as a
 *   second, independent count. PostgreSQL 15 flushes a backend's table counters when it goes
 *   idle, but no more than once a second, otherwise after up to 10 s of idleness: the caller
 *   waits `STATS_FLUSH_MS` before each snapshot so no write is missed or misplaced.
 * @module
 */
import pg from 'pg';

/** Longer than PostgreSQL 15's idle stats flush interval (PGSTAT_IDLE_INTERVAL, 10 s). */
export const STATS_FLUSH_MS = 11_000;

export const BENCH_TABLES = ['campaign_documents', 'campaign_commands', 'campaign_owner', 'replicas'] as const;
type Table = (typeof BENCH_TABLES)[number];

export interface TableStats {
  ins: number;
  upd: number;
  del: number;
}

export interface DbSnapshot {
  stats: Record<Table, TableStats>;
  documents: Map<string, string>;
  commands: Map<string, string>;
}

export interface DbWrites {
  /** Documents inserted or updated in the window (xmin changed or new row). */
  documents_changed: number;
  commands_changed: number;
  /** pg_stat_user_tables deltas per table. */
  table_stats: Record<Table, TableStats>;
}

export async function openBenchClient(url: string, schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}`, application_name: 'argus-bench-replicas' });
  await client.connect();
  return client;
}

export async function snapshot(client: pg.Client, schema: string): Promise<DbSnapshot> {
  const stats = Object.fromEntries(BENCH_TABLES.map((t) => [t, { ins: 0, upd: 0, del: 0 }])) as Record<Table, TableStats>;
  const s = await client.query<{ relname: Table; ins: string; upd: string; del: string }>(
    'SELECT relname, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_del::text AS del FROM pg_stat_user_tables WHERE schemaname = $1',
    [schema],
  );
  for (const row of s.rows) if (row.relname in stats) stats[row.relname] = { ins: Number(row.ins), upd: Number(row.upd), del: Number(row.del) };
  const docs = await client.query<{ id: string; x: string }>('SELECT campaign_id AS id, xmin::text AS x FROM campaign_documents');
  const cmds = await client.query<{ id: string; x: string }>('SELECT id::text AS id, xmin::text AS x FROM campaign_commands');
  return { stats, documents: new Map(docs.rows.map((r) => [r.id, r.x])), commands: new Map(cmds.rows.map((r) => [r.id, r.x])) };
}

const changed = (before: Map<string, string>, after: Map<string, string>) => [...after].filter(([id, x]) => before.get(id) !== x).length + [...before.keys()].filter((id) => !after.has(id)).length;

export function writesBetween(before: DbSnapshot, after: DbSnapshot): DbWrites {
  const table_stats = Object.fromEntries(
    BENCH_TABLES.map((t) => [t, { ins: after.stats[t].ins - before.stats[t].ins, upd: after.stats[t].upd - before.stats[t].upd, del: after.stats[t].del - before.stats[t].del }]),
  ) as Record<Table, TableStats>;
  return { documents_changed: changed(before.documents, after.documents), commands_changed: changed(before.commands, after.commands), table_stats };
}

/** Campaign → (holder, fence, live) as the database sees it now. */
export async function owners(client: pg.Client): Promise<Map<string, { holder: string | null; fence: number; live: boolean }>> {
  const { rows } = await client.query<{ id: string; holder: string | null; fence: string; live: boolean }>(
    'SELECT campaign_id AS id, holder, fence::text AS fence, holder IS NOT NULL AND expires_at > now() AS live FROM campaign_owner',
  );
  return new Map(rows.map((r) => [r.id, { holder: r.holder, fence: Number(r.fence), live: r.live }]));
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
