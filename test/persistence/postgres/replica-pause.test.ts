/**
 * A replica paused (SIGSTOP) for 2× the ownership TTL, on two real `serve` processes sharing one
 * PostgreSQL schema (run `npm run build` first), while it controls a campaign. The other replica
 * takes the campaign over and rotates the remote lease's epoch before anything else, so a
 * mutation carrying the paused replica's epoch is refused as stale and never applied. SIGCONT:
 * the paused replica finds its right gone, stops the campaign's actor and writes nothing.
 *
 * A mutation already journaled and on the wire when the replica lost the campaign (restored in
 * doubt, rotated there too) is covered in process by replica-epoch.test.ts.
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../../adapters/a2a/index.js';
import { startSimulator } from '../../../simulator/index.js';
import { canary } from '../../fixtures/canary.js';
import { CLI_ENTRY, createScope, envFor, spawnServe, tempStateRoot, until, type ServeChild } from '../../fixtures/supervisor-harness.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());
beforeAll(() => {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` first`);
});

const KEY = canary('pause-api-key');
const TTL_SECONDS = 4;
/** The controller id every replica shares (the config's default). */
const CONTROLLER = 'argus-openoperator';

const listed = async (child: ServeChild): Promise<string[]> =>
  ((await child.api('campaigns', { action: 'list' })).json as { campaigns: { campaign_id: string }[] }).campaigns.map((c) => c.campaign_id);

async function documentRow(campaignId: string): Promise<{ fence: number; text: string }> {
  const client = await pgf.client();
  const { rows } = await client.query<{ fence: string; text: string }>('SELECT fence::text AS fence, document::text AS text FROM campaign_documents WHERE campaign_id = $1', [campaignId]);
  return { fence: Number(rows[0]!.fence), text: rows[0]!.text };
}

describe('a paused replica', () => {
  it('SIGSTOP for 2× TTL: the other takes over with a new remote epoch, a mutation at the old epoch is refused as stale; SIGCONT: its actor stops, nothing written', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1000 }), (x) => x.close());
    const env = async () => envFor({ stateRoot: await tempStateRoot(scope), url: sim.url, apiKey: KEY, extra: { ARGUS_SUPERVISOR_DATABASE_URL: pgf.url(), ARGUS_SUPERVISOR_DATABASE_SCHEMA: pgf.schema, ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS: String(TTL_SECONDS) } });
    const a = await spawnServe(scope, await env(), KEY);
    const [taskId] = sim.createTasks(1, 'training');
    expect((await a.api('campaigns', { action: 'create', campaign_id: 'z0', objective: 'train', remote_task_id: taskId })).status).toBe(200);
    const claimed = await a.api('campaign_action', { campaign_id: 'z0', action: 'claim' });
    expect(claimed.status).toBe(200);
    const contextId = sim.task(taskId!)!.contextId;
    expect(sim.lease(contextId)).toMatchObject({ epoch: 1 });
    // B joins; one campaign, share one: A keeps it.
    const b = await spawnServe(scope, await env(), KEY);

    process.kill(a.pid, 'SIGSTOP');
    scope.defer(a.pid, (pid) => { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } });

    // B takes the campaign over after A's right expires, and rotates the epoch first.
    await until(async () => (await listed(b)).includes('z0'), 'B to take z0 over', 2 * TTL_SECONDS * 10, 100);
    await until(() => sim.lease(contextId)?.epoch === 2, 'the remote epoch to rotate', 100, 50);
    expect(sim.lease(contextId)).toMatchObject({ epoch: 2 });
    // B saved the rotation under its own fence (2); A's was 1.
    await until(async () => (await documentRow('z0')).fence === 2, 'B to save the rotated lease', 100, 50);

    // A mutation with A's epoch 1 (what A would send, had it passed its checks before the pause): refused, never applied.
    const raw = createA2AClient({ baseUrl: sim.url, connections: 1 });
    try {
      const stale = await raw.control.intervene({ taskId: taskId!, instruction: 'halve the learning rate', authority: { controllerId: CONTROLLER, epoch: 1, requestId: 'stale-from-a' } });
      expect(stale.ok).toBe(false);
      if (!stale.ok) expect(stale.error.code).toBe('lease_stale_epoch');
    } finally {
      await raw.close();
    }
    expect(sim.stats().staleMutationsRejected).toBe(1);
    expect(sim.stats().mutationsApplied.intervene).toBe(0);
    expect(sim.stats().staleMutationsApplied).toBe(0);

    // A resumes: its right is gone (its deadline passed while paused); its actor stops, it writes nothing.
    process.kill(a.pid, 'SIGCONT');
    const hostedOnA = async () => ((await a.api('health')).json as { hosting?: { hosted?: number } }).hosting?.hosted;
    await until(async () => (await hostedOnA()) === 0, 'A to drop z0', 100, 50);
    // Nothing of A's landed after the takeover: every write since carries B's fence.
    expect((await documentRow('z0')).fence).toBe(2);
    expect(a.stderr.some((line) => line.includes('"campaignId":"z0"') && line.includes('hosting_lost'))).toBe(true);
    // A command sent to A now is answered by B (relayed), with B's lease.
    const viaA = await a.api('campaigns', { action: 'get', campaign_id: 'z0' });
    expect(viaA.status).toBe(200);
  }, 90_000);
});
