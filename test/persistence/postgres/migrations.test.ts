/**
 * Migrations (persistence/postgres/migrate.ts) on a real PostgreSQL: applied once, idempotent
 * on every later start, safe when several replicas start at once on a fresh schema (the
 * advisory lock serialises them: one applies, the others find nothing to do), and refused on
 * a schema a newer build migrated.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../persistence/postgres/database.js';
import { applyMigrations, loadMigrations } from '../../../persistence/postgres/migrate.js';
import { dropSchema, testSchemaName } from './support/test-server.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();

async function withPools<T>(count: number, schema: string, fn: (pools: pg.Pool[]) => Promise<T>): Promise<T> {
  const pools = Array.from({ length: count }, () => new pg.Pool({ connectionString: pgf.url(), max: 2, options: `-c search_path=${schema}` }));
  try {
    return await fn(pools);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
    await dropSchema(pgf.url(), schema);
  }
}

const tablesOf = async (pool: pg.Pool, schema: string) =>
  (await pool.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema])).rows.map((r) => r.t);

describe('migrations', () => {
  it('the files are numbered 001… in sequence and the first creates the ownership and document tables', () => {
    const migrations = loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(migrations[0]!.sql).toMatch(/CREATE TABLE campaign_owner/);
  });

  it('apply once, then nothing on every later start (recorded in schema_migrations)', async () => {
    const schema = testSchemaName();
    await withPools(1, schema, async ([pool]) => {
      const all = loadMigrations().map((m) => m.version);
      expect(await applyMigrations(pool!, schema)).toEqual({ applied: all, current: all.at(-1) });
      expect(await applyMigrations(pool!, schema)).toEqual({ applied: [], current: all.at(-1) });
      expect(await tablesOf(pool!, schema)).toEqual(['campaign_commands', 'campaign_documents', 'campaign_owner', 'context_controllers', 'replicas', 'schema_migrations']);
      const recorded = await pool!.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
      expect(recorded.rows.map((r) => r.version)).toEqual(all);
    });
  });

  it('five replicas starting together on a fresh schema: applied exactly once, every start succeeds', async () => {
    const schema = testSchemaName();
    await withPools(5, schema, async (pools) => {
      const reports = await Promise.all(pools.map((pool) => applyMigrations(pool, schema)));
      const all = loadMigrations().map((m) => m.version);
      expect(reports.filter((r) => r.applied.length > 0)).toEqual([{ applied: all, current: all.at(-1) }]);
      expect(reports.filter((r) => r.applied.length === 0)).toHaveLength(4);
      const count = await pools[0]!.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations');
      expect(Number(count.rows[0]!.n)).toBe(all.length);
    });
  });

  it('a schema a newer build migrated is refused at open (database_unusable), and left as it is', async () => {
    const db = await pgf.db();
    await db.pool.query(`INSERT INTO schema_migrations (version, name) VALUES (999, '999_from_the_future.sql')`);
    const opened = await openDatabase({ url: pgf.url(), schema: pgf.schema });
    expect(opened).toMatchObject({ ok: false, code: 'database_unusable' });
    expect(!opened.ok && opened.message).toMatch(/migration 999 applied, which this build does not know/);
    const still = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations WHERE version = 999');
    expect(still.rows[0]!.n).toBe('1');
    await db.pool.query('DELETE FROM schema_migrations WHERE version = 999');
  });
});
