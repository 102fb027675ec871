/**
 * One in-process replica on a test file's schema: its own state root, backend (pool + ownership)
 * and supervisor, started without a heartbeat or a first sweep, stopped with the scope.
 */
import { selectStoreBackend, type PostgresBackend } from '../../../../persistence/postgres/backend.js';
import { loadConfig } from '../../../../services/config/config.js';
import { createSupervisor, type Supervisor } from '../../../../services/runtime/supervisor.js';
import type { RunningSimulator } from '../../../../simulator/index.js';
import { captureLogs } from '../../../fixtures/log-capture.js';
import { envFor, tempStateRoot, type Scope } from '../../../fixtures/supervisor-harness.js';
import type { PostgresFixture } from './use-postgres.js';

export interface Replica {
  supervisor: Supervisor;
  backend: PostgresBackend;
  hosted(): string[];
}

export async function startReplica(s: Scope, pgf: PostgresFixture, sim: RunningSimulator, ownership: { ttlMs: number; autoBeat?: boolean }): Promise<Replica> {
  const env = { ARGUS_SUPERVISOR_DATABASE_URL: pgf.url(), ARGUS_SUPERVISOR_DATABASE_SCHEMA: pgf.schema };
  const backend = await selectStoreBackend(env, { ownership });
  if (!backend.ok || backend.kind !== 'postgres') throw new Error(`backend: ${JSON.stringify(backend)}`);
  const config = loadConfig(envFor({ stateRoot: await tempStateRoot(s), url: sim.url }));
  const supervisor = await createSupervisor({ config, logger: captureLogs().logger, database: backend });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  s.defer(supervisor, (x) => x.stop());
  return { supervisor, backend, hosted: () => supervisor.system?.list().sort() ?? [] };
}

/** A partition between a replica and the database: every statement of its pool fails from now on. */
export function cutFromDatabase(r: Replica): void {
  const cut = () => Promise.reject(new Error('connection to the database lost (partition)'));
  Object.assign(r.backend.db.pool, { query: cut, connect: cut });
}
