/**
 * Schema migrations: numbered plain SQL files (`migrations/NNN_name.sql`, graphile-worker's
 * shape), applied in order at start inside ONE transaction that first takes a transaction-scoped
 * advisory lock for the schema (pg-boss's `locked()`), so replicas starting together apply each
 * file exactly once and the losers wait and then find nothing to do. Each applied file is
 * recorded in `schema_migrations`. A database that records a version this build does not have
 * was migrated by a newer build: refused, never "downgraded".
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** First key of the two-int advisory lock ('ARGU'); the second is hashtext(schema). */
const MIGRATION_LOCK_KEY = 0x41524755;
const FILE_NAME = /^(\d{3})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The migration files. Sources run from `persistence/postgres/`; the built copy in
 * `dist/persistence/postgres/` has no .sql files beside it (tsc copies none), so it reads the
 * package's `persistence/postgres/migrations/` (listed in package.json `files`).
 */
export function migrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.join(here, 'migrations');
  if (existsSync(beside)) return beside;
  return path.resolve(here, '..', '..', '..', 'persistence', 'postgres', 'migrations');
}

export function loadMigrations(dir = migrationsDir()): Migration[] {
  const migrations = readdirSync(dir)
    .filter((name) => FILE_NAME.test(name))
    .sort()
    .map((name) => ({ version: Number(FILE_NAME.exec(name)![1]), name, sql: readFileSync(path.join(dir, name), 'utf8') }));
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} is out of sequence (expected version ${i + 1})`);
  });
  return migrations;
}

export interface MigrationReport {
  /** Versions this call applied (empty when the schema was current). */
  applied: number[];
  current: number;
}

/** `schema` must already be validated as a plain identifier (database.ts does). */
export async function applyMigrations(pool: pg.Pool, schema: string, migrations = loadMigrations()): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Held until COMMIT/ROLLBACK: every other starter of this schema waits here.
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_KEY, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const known = new Set(migrations.map((m) => m.version));
    const unknown = [...done].filter((v) => !known.has(v)).sort((a, b) => a - b);
    if (unknown.length > 0) throw new Error(`schema ${schema} has migration ${unknown.at(-1)} applied, which this build does not know (a newer build migrated it)`);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      // No parameters: the simple protocol runs the file's several statements in order.
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return { applied, current: Math.max(0, ...done, ...applied) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
