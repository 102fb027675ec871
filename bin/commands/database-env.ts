/**
 * The shared edge of the commands that work on the PostgreSQL database directly (`replicas`,
 * `import`), not through a running serve: the URL and schema from the environment
 * (`ARGUS_SUPERVISOR_DATABASE_URL`, `ARGUS_SUPERVISOR_DATABASE_SCHEMA`, as `serve` reads them),
 * and every refusal as one line `<code>: <sentence>` on stderr with exit 2, the start-up
 * convention (startup.ts). The sentences name host, port and database, never the password.
 * @module
 */
import { DATABASE_SCHEMA_ENV, DATABASE_URL_ENV, openDatabase, type Database } from '../../persistence/postgres/index.js';
import { terminalSafe } from './client/format.js';
import { exitWith } from './startup.js';

/** Opens (and migrates, as a starting replica does) the database the environment names, or exits 2. */
export async function openDatabaseFromEnv(env: NodeJS.ProcessEnv, command: string): Promise<Database> {
  const url = env[DATABASE_URL_ENV]?.trim();
  if (!url) exitWith([{ code: 'database_url_required', message: `${command} works on the shared PostgreSQL database: set ${DATABASE_URL_ENV} (the embedded file store has no replicas)` }]);
  const schema = env[DATABASE_SCHEMA_ENV]?.trim() || undefined;
  const opened = await openDatabase({ url, ...(schema ? { schema } : {}) });
  if (!opened.ok) exitWith([{ code: opened.code, message: opened.message }]);
  return opened.db;
}

/** A database error after opening: closes the pool first, then the one line and exit 2. */
export async function failOnDatabase(db: Database, what: string, error: unknown): Promise<never> {
  await db.close().catch(() => undefined);
  const why = error instanceof Error ? error.message : String(error);
  exitWith([{ code: 'database_unusable', message: terminalSafe(`PostgreSQL at ${db.target}: ${what} failed (${why.split('\n')[0]!.slice(0, 200)})`) }]);
}
