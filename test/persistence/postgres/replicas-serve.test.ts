/**
 * Three real `serve` processes (node dist/bin/argus-supervisor.js serve, so `npm run build`
 * first) on one PostgreSQL schema, 300 campaigns attached to simulator tasks. They split the
 * campaigns; one is SIGKILLed; the two others take every one of its campaigns, each with a
 * greater fence, and no campaign is listed by two live replicas in any sample (every 100 ms)
 * from the kill until the re-homing is done. The re-homing time is printed: it is bounded by the
 * rights' expiry (≤ TTL after the last renewal) plus one rebalance period (TTL / 6).
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selectStoreBackend } from '../../../persistence/postgres/backend.js';
import { loadConfig } from '../../../services/config/config.js';
import { createSupervisor } from '../../../services/runtime/supervisor.js';
import { startSimulator } from '../../../simulator/index.js';
import { canary } from '../../fixtures/canary.js';
import { captureLogs } from '../../fixtures/log-capture.js';
import { attach, CLI_ENTRY, createScope, envFor, spawnServe, tempStateRoot, until, type ServeChild } from '../../fixtures/supervisor-harness.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();
const scope = createScope();
afterEach(() => scope.dispose());
beforeAll(() => {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` first`);
});

const KEY = canary('replicas-api-key');
const CAMPAIGNS = 300;
const TTL_SECONDS = 10;

/** The campaigns a replica lists as its own: every other one it lists carries `hosted_by` (another replica). */
const listed = async (child: ServeChild): Promise<string[]> => {
  const r = await child.api('campaigns', { action: 'list' });
  if (r.status !== 200) throw new Error(`list on ${child.pid}: ${r.status}`);
  const campaigns = (r.json as { campaigns: { campaign_id: string; hosted_by?: string | null }[] }).campaigns;
  return campaigns.filter((c) => c.hosted_by === undefined).map((c) => c.campaign_id);
};


async function owners(): Promise<Map<string, { holder: string | null; fence: number; live: boolean }>> {
  const client = await pgf.client();
  const { rows } = await client.query<{ campaign_id: string; holder: string | null; fence: string; live: boolean }>(
    'SELECT campaign_id, holder, fence::text AS fence, expires_at > now() AS live FROM campaign_owner',
  );
  return new Map(rows.map((r) => [r.campaign_id, { holder: r.holder, fence: Number(r.fence), live: r.live }]));
}

describe('three serve replicas on one database', () => {
  it('SIGKILL one: the others take all its campaigns with greater fences, none hosted twice', async () => {
    const sim = scope.defer(await startSimulator({ port: 0, pollsPerStage: 1000 }), (x) => x.close());
    const dbEnv = { ARGUS_SUPERVISOR_DATABASE_URL: pgf.url(), ARGUS_SUPERVISOR_DATABASE_SCHEMA: pgf.schema, ARGUS_SUPERVISOR_OWNERSHIP_TTL_SECONDS: String(TTL_SECONDS) };

    // The campaigns are created by one in-process replica, which then stops (its rights released).
    const seedBackend = await selectStoreBackend(dbEnv);
    if (!seedBackend.ok || seedBackend.kind !== 'postgres') throw new Error('no database');
    const seeder = await createSupervisor({ config: loadConfig(envFor({ stateRoot: await tempStateRoot(scope), url: sim.url })), logger: captureLogs().logger, database: seedBackend });
    await seeder.start({ heartbeat: false, initialSweep: false });
    const tasks = sim.createTasks(CAMPAIGNS, 'training');
    const ids = tasks.map((_, i) => `s${String(i).padStart(3, '0')}`);
    for (let i = 0; i < ids.length; i += 25) await Promise.all(ids.slice(i, i + 25).map((id, k) => attach(seeder, id, tasks[i + k]!)));
    await seeder.stop();

    const replicas = await Promise.all([0, 1, 2].map(async () => spawnServe(scope, envFor({ stateRoot: await tempStateRoot(scope), url: sim.url, apiKey: KEY, extra: dbEnv }), KEY)));
    // They split the 300 (a share is ⌈300 / 3⌉ = 100; one above it is kept, not handed over).
    let split: string[][] = [];
    await until(async () => {
      split = await Promise.all(replicas.map(listed));
      return split.flat().length === CAMPAIGNS && new Set(split.flat()).size === CAMPAIGNS && split.every((l) => l.length >= 98 && l.length <= 101);
    }, 'the three replicas to split the campaigns', 300, 100);

    // Any replica lists every campaign: its own, and the others' marked with their replica.
    const listStarted = performance.now();
    const full = await replicas[1]!.api('campaigns', { action: 'list' });
    const listMs = performance.now() - listStarted;
    const all = (full.json as { campaigns: { campaign_id: string; hosted_by?: string | null }[] }).campaigns;
    expect(all.map((c) => c.campaign_id).sort()).toEqual(ids);
    expect(all.filter((c) => c.hosted_by !== undefined).length).toBe(CAMPAIGNS - split[1]!.length);
    console.log(`list of ${CAMPAIGNS} campaigns on one replica (${CAMPAIGNS - split[1]!.length} read from the shared store): ${Math.round(listMs)} ms`);

    const [victim, ...survivors] = replicas as [ServeChild, ServeChild, ServeChild];
    const victimIds = split[0]!;
    const before = await owners();
    const victimHolder = before.get(victimIds[0]!)!.holder;
    expect(victimIds.every((id) => before.get(id)?.holder === victimHolder)).toBe(true);

    const killedAt = performance.now();
    process.kill(victim.pid, 'SIGKILL');
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const overlaps: string[] = [];
    let rehomedMs = -1;
    for (let sample = 0; sample < 250 && rehomedMs < 0; sample++) {
      const [x, y] = await Promise.all(survivors.map(listed));
      overlaps.push(...x!.filter((id) => y!.includes(id)));
      if (x!.length + y!.length === CAMPAIGNS && victimIds.every((id) => x!.includes(id) || y!.includes(id))) rehomedMs = performance.now() - killedAt;
      else await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`re-homed ${victimIds.length} campaigns of a SIGKILLed replica in ${Math.round(rehomedMs)} ms (TTL ${TTL_SECONDS} s, rebalance every ${(TTL_SECONDS * 1000) / 6} ms)`);
    expect(rehomedMs).toBeGreaterThan(0);
    expect(overlaps).toEqual([]);
    // Not before the rights could expire (nobody took a live right), and within TTL + a rebalance period + slack.
    expect(rehomedMs).toBeLessThan(TTL_SECONDS * 1000 + (TTL_SECONDS * 1000) / 6 + 3_000);

    const after = await owners();
    for (const id of victimIds) {
      const row = after.get(id)!;
      expect(row.holder).not.toBe(victimHolder);
      expect(row.live).toBe(true);
      expect(row.fence).toBeGreaterThan(before.get(id)!.fence);
    }
    // A re-homed campaign answers on its new replica and, relayed, on the other.
    for (const child of survivors) {
      const r = await child.api('campaign_action', { campaign_id: victimIds[0], action: 'observe' });
      expect([200, 409]).toContain(r.status);
    }
  }, 120_000);
});
