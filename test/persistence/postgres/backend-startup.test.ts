/**
 * Choosing and opening the store (persistence/postgres/backend.ts): no database URL → the file
 * store, unchanged; a URL → PostgreSQL with a replica registered. A start that cannot use the
 * database answers one stable code and one sentence that names host, port and database and
 * never the password: unreachable (nothing listens), wrong password (a throwaway cluster with
 * scram-sha-256 on TCP, started here from the installed binaries, as the fresh-machine path
 * of support/test-server.ts does), a malformed URL, a bad schema name.
 */
import { describe, expect, it } from 'vitest';
import { selectStoreBackend } from '../../../persistence/postgres/backend.js';
import { canary } from '../../fixtures/canary.js';
import { makeDoc } from '../support/documents.js';
import { freePort, startThrowawayServer, testSchemaName, dropSchema } from './support/test-server.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const URL_ENV = 'ARGUS_SUPERVISOR_DATABASE_URL';
const SCHEMA_ENV = 'ARGUS_SUPERVISOR_DATABASE_SCHEMA';

const oneSentence = (message: string) => expect(message).toMatch(/^[^\n]{10,300}$/);

describe('selecting the store', () => {
  it('no URL (absent or blank) selects the file store', async () => {
    expect(await selectStoreBackend({})).toEqual({ ok: true, kind: 'file' });
    expect(await selectStoreBackend({ [URL_ENV]: '  ' })).toEqual({ ok: true, kind: 'file' });
  });

  it('a URL opens PostgreSQL in the named schema: a replica is registered, claims and writes fenced documents', async () => {
    const schema = testSchemaName();
    const backend = await selectStoreBackend({ [URL_ENV]: pgf.url(), [SCHEMA_ENV]: schema }, { ownership: { ttlMs: 6_000 } });
    if (!backend.ok || backend.kind !== 'postgres') throw new Error(`expected postgres, got ${JSON.stringify(backend)}`);
    try {
      expect(backend.db.schema).toBe(schema);
      const right = await backend.ownership.claim({ kind: 'campaign', campaignId: 'via-factory' });
      expect(right).toMatchObject({ ok: true, fence: 1 });
      expect(await backend.documents.create(makeDoc('via-factory'))).toMatchObject({ ok: true, written: true });
      const replicas = await backend.db.pool.query<{ replica_id: string }>('SELECT replica_id FROM replicas');
      expect(replicas.rows.map((r) => r.replica_id)).toEqual([backend.ownership.replicaId]);
    } finally {
      await backend.close();
      await dropSchema(pgf.url(), schema);
    }
  });
});

describe('start-up failures: a stable code and one sentence, no password', () => {
  it('nothing listening → database_unreachable', async () => {
    const password = canary('pg-unreachable');
    const port = await freePort();
    const result = await selectStoreBackend({ [URL_ENV]: `postgresql://postgres:${password}@127.0.0.1:${port}/test` });
    expect(result).toMatchObject({ ok: false, code: 'database_unreachable' });
    if (result.ok) return;
    oneSentence(result.message);
    expect(result.message).toContain(`127.0.0.1:${port}/test`);
    expect(result.message).not.toContain(password);
  });

  it('malformed URL, other scheme, bad schema name', async () => {
    expect(await selectStoreBackend({ [URL_ENV]: 'not a url' })).toMatchObject({ ok: false, code: 'database_url_invalid' });
    expect(await selectStoreBackend({ [URL_ENV]: 'mysql://127.0.0.1/x' })).toMatchObject({ ok: false, code: 'database_url_invalid' });
    const bad = await selectStoreBackend({ [URL_ENV]: pgf.url(), [SCHEMA_ENV]: 'Robert"; DROP' });
    expect(bad).toMatchObject({ ok: false, code: 'database_schema_invalid' });
  });

  it('a wrong password → database_auth_failed; the right one opens (throwaway scram cluster)', async () => {
    const password = canary('pg-password');
    const wrong = canary('pg-wrong-password');
    const server = await startThrowawayServer({ password });
    try {
      const refused = await selectStoreBackend({ [URL_ENV]: `postgresql://postgres:${wrong}@127.0.0.1:${server.port}/test` });
      expect(refused).toMatchObject({ ok: false, code: 'database_auth_failed' });
      if (!refused.ok) {
        oneSentence(refused.message);
        expect(refused.message).not.toContain(wrong);
        expect(refused.message).not.toContain(password);
      }
      const noPassword = await selectStoreBackend({ [URL_ENV]: `postgresql://postgres@127.0.0.1:${server.port}/test` });
      expect(noPassword).toMatchObject({ ok: false, code: 'database_auth_failed' });
      const opened = await selectStoreBackend({ [URL_ENV]: server.url });
      expect(opened).toMatchObject({ ok: true, kind: 'postgres' });
      if (opened.ok && opened.kind === 'postgres') await opened.close();
    } finally {
      await server.stop();
    }
  });
});
