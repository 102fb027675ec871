/**
 * Seeding the replicas benchmark's C campaigns, quickly and through the real write path.
 *
 * Creating all of them through a supervisor's API costs about 30 ms each on a loaded 2-core
 * host (actor, chart, fenced write), five minutes for 10,000. So ONE campaign is created through
 * a short-lived replica supervisor's API (`campaigns` `create`), and the other C − 1 documents
 * are that document with its campaign id and remote task id replaced, each written the way
 * `argus-supervisor import` writes (persistence/postgres/import-state-root.ts): claim (fence + 1),
 * `postgresCampaignDocuments.create` (the same validation as every read and write, fenced
 * `FOR SHARE`), release. Every document is therefore one a supervisor made, bound to its own
 * steady task, and free for a replica to claim.
 * @module
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import { createA2AClient } from '../adapters/a2a/index.js';
import { isKnownMachineVersion } from '../machines/campaign.restore.js';
import type { CampaignDocument } from '../persistence/campaign-document.js';
import { selectStoreBackend } from '../persistence/postgres/backend.js';
import { openCampaignOwnership } from '../persistence/postgres/campaign-ownership.js';
import { postgresCampaignDocuments } from '../persistence/postgres/campaign-documents.js';
import { openDatabase } from '../persistence/postgres/database.js';
import { createSupervisor } from '../services/runtime/supervisor.js';
import { benchConfig, createCampaigns, log } from './bench-setup.js';

export interface SeedInput {
  databaseUrl: string;
  schema: string;
  simUrl: string;
  stateRoot: string;
  taskIds: readonly string[];
}

/** Parallel fenced creates (the pool has 10 connections; each create holds one for its transaction). */
const SEED_CONCURRENCY = 16;

export const campaignIdOf = (i: number) => `bench-${String(i).padStart(6, '0')}`;

export async function seedCampaigns(input: SeedInput): Promise<{ via_api: number; cloned: number }> {
  const env = { ARGUS_SUPERVISOR_DATABASE_URL: input.databaseUrl, ARGUS_SUPERVISOR_DATABASE_SCHEMA: input.schema };
  const backend = await selectStoreBackend(env);
  if (!backend.ok) throw new Error(`${backend.code}: ${backend.message}`);
  if (backend.kind !== 'postgres') throw new Error('expected the PostgreSQL backend');
  const remote = createA2AClient({ baseUrl: input.simUrl, connections: 4 });
  const seeder = await createSupervisor({ config: benchConfig(input.simUrl, input.stateRoot), remote, database: backend });
  try {
    await seeder.start({ heartbeat: false, initialSweep: false });
    const described = await remote.discover();
    if (!described.ok) throw new Error(`discovery failed: ${described.error.code}`);
    await createCampaigns(seeder, input.taskIds.slice(0, 1)); // bench-000000, through the API
  } finally {
    await seeder.stop(); // releases its right and removes its replica row
  }
  if (input.taskIds.length === 1) return { via_api: 1, cloned: 0 };

  const opened = await openDatabase({ url: input.databaseUrl, schema: input.schema });
  if (!opened.ok) throw new Error(`${opened.code}: ${opened.message}`);
  const { db } = opened;
  const ownership = await openCampaignOwnership({ db, replicaId: `bench-seed-${process.pid}-${randomBytes(3).toString('hex')}` });
  try {
    const documents = postgresCampaignDocuments({ db, fence: ownership, machineVersionKnown: isKnownMachineVersion });
    const template = await documents.load(campaignIdOf(0));
    if (!template.ok) throw new Error(`the template campaign could not be read back: ${template.code}: ${template.reason}`);
    const text = JSON.stringify(template.doc);
    const templateTask = input.taskIds[0]!;
    if (!text.includes(templateTask)) throw new Error('the template document does not name its remote task');
    const limit = pLimit(SEED_CONCURRENCY);
    let done = 1;
    const step = Math.max(1000, Math.ceil(input.taskIds.length / 10));
    await Promise.all(
      input.taskIds.slice(1).map((taskId, k) =>
        limit(async () => {
          const id = campaignIdOf(k + 1);
          const doc = JSON.parse(text.split(campaignIdOf(0)).join(id).split(templateTask).join(taskId)) as CampaignDocument;
          const right = await ownership.claim({ kind: 'campaign', campaignId: id });
          if (!right.ok) throw new Error(`claiming ${id} failed: ${right.code}: ${right.message}`);
          try {
            const written = await documents.create(doc);
            if (!written.ok) throw new Error(`creating ${id} failed: ${written.code}: ${written.reason}`);
          } finally {
            await right.release();
          }
          if (++done % step === 0) log(`seeded ${done}/${input.taskIds.length} campaigns`);
        }),
      ),
    );
  } finally {
    await ownership.close();
    await db.close();
  }
  return { via_api: 1, cloned: input.taskIds.length - 1 };
}
