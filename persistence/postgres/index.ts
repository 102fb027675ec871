/**
 * The PostgreSQL backend (issue 22, parts 1 and 2): database + migrations, per-campaign fenced
 * ownership, fenced campaign documents, and the factory choosing it by environment. Kept out of
 * `persistence/index.ts` so a process on the file store never loads `pg`.
 * @module
 */
export { DATABASE_SCHEMA_ENV, DATABASE_URL_ENV, selectStoreBackend, type BackendOptions, type PostgresBackend, type StoreBackend } from './backend.js';
export { openCampaignOwnership, type BeatReport, type CampaignOwnership, type CampaignOwnershipOptions } from './campaign-ownership.js';
export { postgresCampaignDocuments, type PostgresDocumentsOptions, type PostgresWriteFence } from './campaign-documents.js';
export { DEFAULT_DATABASE_SCHEMA, openDatabase, type Database, type DatabaseErrorCode, type DatabaseFailure, type DatabaseOptions } from './database.js';
export { applyMigrations, loadMigrations, migrationsDir, type Migration, type MigrationReport } from './migrate.js';
export { DEFAULT_MAX_REQUEST_BYTES, openCommandRelay, type CommandRelay, type CommandRelayOptions, type EventsNotice, type RelayRefusalCode, type RelayResult } from './command-relay.js';
export { readReplicaReport, type ReplicaLine, type ReplicaReport } from './replica-report.js';
export { importStateRoot, type ImportedCampaign, type ImportOptions, type ImportRefusal, type ImportReport, type SkippedCampaign } from './import-state-root.js';
