/**
 * One schema per test file on the real PostgreSQL (test-server.ts): `db()` opens (and
 * migrates) a pool on it, as many as a test needs (each one is a separate set of connections,
 * like separate replicas); afterAll closes them, drops the schema and releases the server.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openCampaignOwnership, type CampaignOwnership, type CampaignOwnershipOptions } from '../../../../persistence/postgres/campaign-ownership.js';
import { openDatabase, type Database } from '../../../../persistence/postgres/database.js';
import { acquireTestServer, dropSchema, releaseTestServer, testSchemaName } from './test-server.js';

export interface PostgresFixture {
  url(): string;
  schema: string;
  /** A new pool on this file's schema, migrated. */
  db(): Promise<Database>;
  /** A replica (per-campaign ownership) on its own pool, or on `db` when given. */
  replica(options?: Omit<CampaignOwnershipOptions, 'db'>, db?: Database): Promise<CampaignOwnership>;
  /** A plain client on the schema, for the test's own statements (closed after the file). */
  client(): Promise<pg.Client>;
}

export function usePostgres(): PostgresFixture {
  let url = '';
  const schema = testSchemaName();
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    url = await acquireTestServer();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    if (url) await dropSchema(url, schema);
    await releaseTestServer();
  });
  const fixture: PostgresFixture = {
    url: () => url,
    schema,
    async db() {
      const opened = await openDatabase({ url, schema, statementTimeoutMs: 15_000 });
      if (!opened.ok) throw new Error(`${opened.code}: ${opened.message}`);
      closers.push(() => opened.db.close());
      return opened.db;
    },
    async replica(options = {}, db) {
      const ownership = await openCampaignOwnership({ db: db ?? (await fixture.db()), ...options });
      closers.push(() => ownership.close());
      return ownership;
    },
    async client() {
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      closers.push(() => client.end());
      return client;
    },
  };
  return fixture;
}
