/**
 * Opening the shared PostgreSQL database (`ARGUS_SUPERVISOR_DATABASE_URL`): one `pg` pool with
 * its timeouts set (pg leaves every one of them off, so a checkout or a lock would otherwise wait
 * forever), every connection's `search_path` on the installation's schema
 * (`ARGUS_SUPERVISOR_DATABASE_SCHEMA`), the migrations applied, and start-up failures turned
 * into one stable code and one sentence that never carries the URL's password.
 * @module
 */
import pg from 'pg';
import { describeError } from '../store-errors.js';
import { applyMigrations } from './migrate.js';

export const DEFAULT_DATABASE_SCHEMA = 'argus_supervisor';

export type DatabaseErrorCode =
  /** The URL does not parse or is not postgres:// / postgresql://. */
  | 'database_url_invalid'
  /** The schema name is not a plain lower-case identifier. */
  | 'database_schema_invalid'
  /** Nothing answered at the address (refused, unknown host, timeout). */
  | 'database_unreachable'
  /** The server answered and refused the credentials. */
  | 'database_auth_failed'
  /** Anything else at start: missing database, no permission, a migration that failed. */
  | 'database_unusable'
  /** ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS is not a number of seconds in range. */
  | 'database_ttl_invalid';

export interface DatabaseFailure {
  readonly ok: false;
  readonly code: DatabaseErrorCode;
  /** One sentence naming host, port and database, never the user's password. */
  readonly message: string;
}

export interface DatabaseOptions {
  url: string;
  schema?: string;
  /** Pool size; each fenced write holds one connection for its transaction. */
  maxConnections?: number;
  connectTimeoutMs?: number;
  /** Server-side limit on one statement (a write blocked behind a takeover waits at most this). */
  statementTimeoutMs?: number;
  onPoolError?: (message: string) => void;
}

export interface Database {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** `host:port/database`, for logs and messages. */
  readonly target: string;
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN']);

/** Opens the pool, proves a connection, applies the migrations. Never throws. */
export async function openDatabase(options: DatabaseOptions): Promise<{ ok: true; db: Database } | DatabaseFailure> {
  const schema = options.schema ?? DEFAULT_DATABASE_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) return startupRefusal('database_schema_invalid', `database schema ${JSON.stringify(schema.slice(0, 80))} must match [a-z_][a-z0-9_]{0,62}`);
  const parsed = parseUrl(options.url);
  if (!parsed.ok) return parsed;
  const { target, password } = parsed;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    // Client side too: a connection cut by a partition never answers, and the server's limit cannot fire.
    query_timeout: (options.statementTimeoutMs ?? 30_000) + 5_000,
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'argus-supervisor',
    // Unqualified names in every statement resolve in this installation's schema only.
    options: `-c search_path=${schema}`,
  });
  // An idle client's connection dropping must not crash the process; the next checkout reconnects.
  pool.on('error', (error) => options.onPoolError?.(mask(describeError(error), password)));
  const db: Database = { pool, schema, target, close: () => pool.end() };
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    return classifyConnectError(error, target, password);
  }
  try {
    await applyMigrations(pool, schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    return startupRefusal('database_unusable', `migrations on ${target} schema ${schema} failed (${mask(describeError(error), password)})`);
  }
  return { ok: true, db };
}

function parseUrl(url: string): { ok: true; target: string; password: string } | DatabaseFailure {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return startupRefusal('database_url_invalid', 'ARGUS_SUPERVISOR_DATABASE_URL is not a URL (expected postgresql://user@host:port/database)');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return startupRefusal('database_url_invalid', `ARGUS_SUPERVISOR_DATABASE_URL has scheme ${JSON.stringify(parsed.protocol.slice(0, 20))}; expected postgresql://`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default)';
  const target = `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}/${database}`;
  return { ok: true, target, password: decodeURIComponent(parsed.password) };
}

function classifyConnectError(error: unknown, target: string, password: string): DatabaseFailure {
  const code = (error as { code?: unknown }).code;
  const why = mask(describeError(error), password);
  if (typeof code === 'string' && UNREACHABLE.has(code)) return startupRefusal('database_unreachable', `PostgreSQL at ${target} did not answer (${code})`);
  if (/timeout|terminated unexpectedly/i.test(why)) return startupRefusal('database_unreachable', `PostgreSQL at ${target} did not answer in time`);
  if (code === '28P01' || code === '28000' || /SASL|password/i.test(why)) return startupRefusal('database_auth_failed', `PostgreSQL at ${target} refused the credentials in ARGUS_SUPERVISOR_DATABASE_URL`);
  if (code === '3D000') return startupRefusal('database_unusable', `PostgreSQL at ${target}: the database does not exist`);
  return startupRefusal('database_unusable', `PostgreSQL at ${target} cannot be used (${why})`);
}

/** Removes the password (raw and URL-encoded) from a message, in case a driver quoted it. */
function mask(text: string, password: string): string {
  if (!password) return text;
  return text.split(password).join('***').split(encodeURIComponent(password)).join('***');
}

const startupRefusal = (code: DatabaseErrorCode, message: string): DatabaseFailure => ({ ok: false, code, message });
