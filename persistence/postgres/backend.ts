/**
 * Which store a process uses: `ARGUS_SUPERVISOR_DATABASE_URL` absent (or empty) → the embedded
 * file store under the state root, exactly as before; present → PostgreSQL: the database opened
 * and migrated, this process registered as a replica with per-campaign ownership, and the
 * campaign documents fenced by it. `ARGUS_SUPERVISOR_DATABASE_SCHEMA` names the schema
 * (default `argus_supervisor`), so several installations or test runs share one database.
 *
 * `serve` passes the backend to the supervisor, which then hosts its share of the campaigns as
 * one replica (services/runtime/replica-hosting.ts). `ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS`
 * sets the rights' TTL (default 30; renewals every fifth of it).
 * @module
 */
import type { CampaignDocuments, StoreLogger, StoreWrite } from '../campaign-store.js';
import type { MachineVersionCheck } from '../document-db.js';
import { openCampaignOwnership, type CampaignOwnership, type CampaignOwnershipOptions } from './campaign-ownership.js';
import { postgresCampaignDocuments } from './campaign-documents.js';
import { openDatabase, type Database, type DatabaseFailure } from './database.js';

export const DATABASE_URL_ENV = 'ARGUS_SUPERVISOR_DATABASE_URL';
export const DATABASE_SCHEMA_ENV = 'ARGUS_SUPERVISOR_DATABASE_SCHEMA';
/** How long a campaign's right outlives its last renewal (seconds, decimals allowed; default 30). */
export const OWNERSHIP_TTL_ENV = 'ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS';

export interface PostgresBackend {
  readonly kind: 'postgres';
  readonly db: Database;
  readonly ownership: CampaignOwnership;
  readonly documents: CampaignDocuments;
  /** Releases every right, removes the replica row, closes the pool. */
  close(): Promise<void>;
}

export type StoreBackend = { readonly kind: 'file' } | PostgresBackend;

export interface BackendOptions {
  logger?: StoreLogger;
  onWrite?: (write: StoreWrite) => void;
  machineVersionKnown?: MachineVersionCheck;
  ownership?: Omit<CampaignOwnershipOptions, 'db'>;
}

/**
 * @example
 *   const backend = await selectStoreBackend(process.env);
 *   if (!backend.ok) { console.error(`${backend.code}: ${backend.message}`); process.exit(2); }
 */
export async function selectStoreBackend(env: NodeJS.ProcessEnv, options: BackendOptions = {}): Promise<({ ok: true } & StoreBackend) | DatabaseFailure> {
  const url = env[DATABASE_URL_ENV];
  if (url === undefined || url.trim() === '') return { ok: true, kind: 'file' };
  const schema = env[DATABASE_SCHEMA_ENV]?.trim() || undefined;
  const ttlText = env[OWNERSHIP_TTL_ENV]?.trim();
  const ttlSeconds = ttlText ? Number(ttlText) : undefined;
  if (ttlSeconds !== undefined && !(Number.isFinite(ttlSeconds) && ttlSeconds >= 0.5 && ttlSeconds <= 3600)) {
    return { ok: false, code: 'database_ttl_invalid', message: `${OWNERSHIP_TTL_ENV} must be a number of seconds from 0.5 to 3600` };
  }
  const { logger } = options;
  const opened = await openDatabase({ url, ...(schema ? { schema } : {}), onPoolError: (message) => logger?.warn({ code: 'database_connection_lost', reason: message }, 'database connection dropped') });
  if (!opened.ok) return opened;
  const { db } = opened;
  let ownership: CampaignOwnership;
  try {
    ownership = await openCampaignOwnership({ ...(ttlSeconds !== undefined ? { ttlMs: Math.round(ttlSeconds * 1000) } : {}), ...options.ownership, db, onError: (message) => logger?.error({ code: 'ownership_renew_failed', reason: message }, 'ownership renewal failed') });
  } catch (error) {
    await db.close().catch(() => undefined);
    return { ok: false, code: 'database_unusable', message: `PostgreSQL at ${db.target}: this replica could not register (${error instanceof Error ? error.message : String(error)})` };
  }
  const documents = postgresCampaignDocuments({
    db,
    fence: ownership,
    ...(logger ? { logger } : {}),
    ...(options.onWrite ? { onWrite: options.onWrite } : {}),
    ...(options.machineVersionKnown ? { machineVersionKnown: options.machineVersionKnown } : {}),
  });
  return {
    ok: true,
    kind: 'postgres',
    db,
    ownership,
    documents,
    close: async () => {
      await ownership.close();
      await db.close();
    },
  };
}
