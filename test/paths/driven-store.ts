/**
 * The store a driven world's supervisor persists to (issue 22: "the driven paths of step 10 pass
 * on the PostgreSQL store too"), behind one shape so the drivers and checks do not care which:
 *
 * - `file`: the embedded store under the world's state root, its file calls wrapped so a write
 *   can be made to fail the way a full disk does (ENOSPC on the temp file's open).
 * - `postgres`: the supervisor runs as the one replica (services/runtime/hosting-mode.ts
 *   `replicaMode`) on the shard's schema (`usePathsSchema`: created and migrated once per test
 *   file, dropped after it; the worlds of one file run one after another), emptied again when
 *   the world closes, so every path starts from no campaign, no owner row, fence 0. Each
 *   (re)start registers a new replica, as a restarted `serve` process does. A write fails the
 *   way a full disk fails PostgreSQL: the next `UPDATE campaign_documents` answers SQLSTATE
 *   53100 (disk_full), the transaction rolls back.
 *
 * `read` is what the checks compare with the model: the file store's own load, or the committed
 * row read back through a pool of its own (not the supervisor's), so a check never sees a
 * document the database did not commit.
 */
import * as fsp from 'node:fs/promises';
import type pg from 'pg';
import type { LoadOneResult, CampaignDocuments } from '../../persistence/campaign-store.js';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { selectStoreBackend, type PostgresBackend } from '../../persistence/postgres/backend.js';
import { postgresCampaignDocuments } from '../../persistence/postgres/campaign-documents.js';
import { openCampaignOwnership } from '../../persistence/postgres/campaign-ownership.js';
import { openDatabase, type Database } from '../../persistence/postgres/database.js';
import type { Supervisor } from '../../services/runtime/supervisor.js';
import { acquireTestServer, dropSchema, releaseTestServer, testSchemaName } from '../persistence/postgres/support/test-server.js';

/** Which store a world runs on (`db`: the test file's schema on the test server, `usePathsSchema`). */
export type StoreChoice = { kind: 'file' } | { kind: 'postgres'; url: string; db: Database };

export interface WorldStore {
  readonly kind: StoreChoice['kind'];
  /** What `createSupervisor` takes for this store, for one (re)start. */
  forSupervisor(): Promise<{ storeFs: DurableFs } | { database: PostgresBackend }>;
  /** The store's next document write fails the way a full disk does, once. */
  failNextWrite(): void;
  /** The campaign's stored document, as the checks read it. */
  read(supervisor: Supervisor, campaignId: string): Promise<LoadOneResult>;
  /**
   * The store as something other than the stopped supervisor writes it (what a crash left
   * behind): the file store opened on the state root, or a replica that claims the campaign,
   * writes through its fence and releases it again.
   */
  offline<T>(campaignId: string, write: (store: CampaignDocuments) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function worldStore(choice: StoreChoice, root: string): WorldStore {
  return choice.kind === 'postgres' ? postgresStore(choice.url, choice.db) : fileStore(root);
}

/** A test file's schema for its PostgreSQL worlds: `open` in beforeAll, `close` in afterAll. */
export function pathsSchema(): { open(): Promise<StoreChoice>; close(): Promise<void> } {
  const schema = testSchemaName();
  let opened: { url: string; db: Database } | null = null;
  return {
    async open() {
      const url = await acquireTestServer();
      const db = await openDatabase({ url, schema, statementTimeoutMs: 15_000, maxConnections: 2 });
      if (!db.ok) throw new Error(`${db.code}: ${db.message}`);
      opened = { url, db: db.db };
      return { kind: 'postgres', ...opened };
    },
    async close() {
      if (opened) {
        await opened.db.close();
        await dropSchema(opened.url, schema);
      }
      await releaseTestServer();
    },
  };
}

function fileStore(root: string): WorldStore {
  let failWrite = false;
  // The store's own file calls, but for a write armed to fail (a temp file is opened 'wx').
  const storeFs: DurableFs = {
    open: (file, flags, mode) => {
      if (failWrite && flags === 'wx') {
        failWrite = false;
        return Promise.reject(Object.assign(new Error(`ENOSPC: simulated, open '${file}'`), { code: 'ENOSPC', syscall: 'open', path: file }));
      }
      return fsp.open(file, flags, mode);
    },
    rename: (from, to) => fsp.rename(from, to),
    unlink: (file) => fsp.unlink(file),
    readFile: (file, encoding) => fsp.readFile(file, encoding),
  };
  return {
    kind: 'file',
    forSupervisor: () => Promise.resolve({ storeFs }),
    failNextWrite: () => void (failWrite = true),
    read: (supervisor, id) => supervisor.store!.load(id),
    offline: async (_id, write) => write(await openCampaignStore({ root })),
    close: () => Promise.resolve(),
  };
}

/** The statement every document write of the PostgreSQL store makes (campaign-documents.ts `transact`). */
const DOCUMENT_WRITE = /^\s*UPDATE campaign_documents\b/;

function postgresStore(url: string, own: Database): WorldStore {
  // Reads only: a fence that holds nothing refuses any write through it (fence_stale).
  const reader = postgresCampaignDocuments({ db: own, fence: { fenceFor: () => null, holder: 'driven-path-reader' } });
  let failWrite = false;
  const env = { ARGUS_SUPERVISOR_DATABASE_URL: url, ARGUS_SUPERVISOR_DATABASE_SCHEMA: own.schema };
  return {
    kind: 'postgres',
    async forSupervisor() {
      const backend = await selectStoreBackend(env);
      if (!backend.ok || backend.kind !== 'postgres') throw new Error(`backend: ${JSON.stringify(backend)}`);
      armWriteFailure(backend.db.pool, () => (failWrite ? ((failWrite = false), true) : false));
      return { database: backend };
    },
    failNextWrite: () => void (failWrite = true),
    read: (_supervisor, id) => reader.load(id),
    async offline(id, write) {
      const ownership = await openCampaignOwnership({ db: own });
      try {
        const right = await ownership.claim({ kind: 'campaign', campaignId: id });
        if (!right.ok) throw new Error(`the campaign could not be claimed offline: ${right.code}`);
        return await write(postgresCampaignDocuments({ db: own, fence: ownership }));
      } finally {
        await ownership.close();
      }
    },
    // After the supervisor stopped (its rights released, its replica row gone): the next path's world finds nothing.
    async close() {
      await own.pool.query('DELETE FROM campaign_commands; DELETE FROM context_controllers; DELETE FROM campaign_documents; DELETE FROM campaign_owner; DELETE FROM replicas');
    },
  };
}

/**
 * Every client the pool hands out fails the next document write once `armed()` says so (both of
 * pg's forms: a promise, and the callback `pool.query` itself uses).
 */
function armWriteFailure(pool: pg.Pool, armed: () => boolean): void {
  type Callback = (error: Error | undefined, client: pg.PoolClient | undefined, done: unknown) => void;
  const connect = pool.connect.bind(pool) as (callback?: Callback) => Promise<pg.PoolClient> | undefined;
  const wrapped = new WeakSet<pg.PoolClient>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    Object.assign(client, {
      query: (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
        if (text === undefined || !DOCUMENT_WRITE.test(text) || !armed()) return query(...args);
        const full = Object.assign(new Error('could not extend file: No space left on device (simulated)'), { code: '53100', severity: 'ERROR' });
        const callback = args[args.length - 1];
        if (typeof callback === 'function') return void (callback as (e: Error) => void)(full);
        return Promise.reject(full);
      },
    });
    return client;
  };
  Object.assign(pool, {
    connect: (callback?: Callback) =>
      callback ? connect((error, client, done) => callback(error, client && wrap(client), done)) : connect()!.then(wrap),
  });
}
