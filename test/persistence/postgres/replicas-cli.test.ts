/**
 * `argus-supervisor replicas` on the real PostgreSQL, run as a child process: replicas made by
 * the real ownership (openCampaignOwnership), one kept live, one left to expire (no beat, short
 * TTL, never closed: a SIGKILLed replica's rows), a released right, a re-claim that raised a
 * fence, a document nobody claimed. The report comes from the tables alone; no serve runs.
 * Without the URL, or with nothing listening: one line, a stable code, exit 2.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from './support/test-server.js';
import { databaseEnv, runCli } from './support/run-cli.js';
import { usePostgres } from './support/use-postgres.js';

const pgf = usePostgres();

const claim = async (o: { claim: (s: { kind: 'campaign'; campaignId: string }) => Promise<{ ok: boolean }> }, id: string) => {
  const right = await o.claim({ kind: 'campaign', campaignId: id });
  if (!right.ok) throw new Error(`claim of ${id} refused: ${JSON.stringify(right)}`);
  return right as unknown as { ok: true; fence: number; release(): Promise<void> };
};

describe('argus-supervisor replicas', () => {
  it('lists each replica (live and expired) with its campaigns and greatest fence, and counts the unowned campaigns', async () => {
    const live = await pgf.replica({ replicaId: 'replica-live', ttlMs: 30_000 });
    // Never beats again and is never closed before the report: its rows expire as a killed replica's do.
    const gone = await pgf.replica({ replicaId: 'replica-gone', ttlMs: 900, renewEveryMs: 100, renewDeadlineMs: 600, autoBeat: false });
    await claim(gone, 'g1');
    await claim(gone, 'g2');
    await claim(live, 'a1');
    const first = await claim(live, 'a2');
    await first.release();
    // Claimed again: fence 2, the greatest of replica-live.
    expect((await claim(live, 'a2')).fence).toBe(2);
    const released = await claim(live, 'r1');
    await released.release();
    const client = await pgf.client();
    // A document no replica ever claimed (written before ownership rows existed, or by hand).
    await client.query(`INSERT INTO campaign_documents (campaign_id, document, fence) VALUES ('orphan', '{}', 1)`);
    // Past replica-gone's TTL on the database clock.
    await new Promise((r) => setTimeout(r, 1_200));

    const json = await runCli(['replicas', '--json'], databaseEnv(pgf.url(), pgf.schema), 'replicas-json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.schema).toBe(pgf.schema);
    expect(report.database).toMatch(/^127\.0\.0\.1:\d+\/test$/);
    expect(report.replicas).toEqual([
      { replica_id: 'replica-gone', started_at: expect.any(String), heartbeat_at: expect.any(String), expires_at: expect.any(String), live: false, campaigns: 0, expired_campaigns: 2, max_fence: 1 },
      { replica_id: 'replica-live', started_at: expect.any(String), heartbeat_at: expect.any(String), expires_at: expect.any(String), live: true, campaigns: 2, expired_campaigns: 0, max_fence: 2 },
    ]);
    const [gone_, live_] = report.replicas;
    expect(Date.parse(gone_.expires_at)).toBeLessThan(Date.parse(report.at));
    expect(Date.parse(live_.expires_at)).toBeGreaterThan(Date.parse(report.at));
    expect(report.campaigns).toEqual({ documents: 1, owned: 2, released: 1, expired: 2, unclaimed: 1 });

    const text = await runCli(['replicas'], databaseEnv(pgf.url(), pgf.schema), 'replicas-text');
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^schema ${pgf.schema} on 127\\.0\\.0\\.1:\\d+/test, database time \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`));
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['REPLICA', 'STARTED', 'HEARTBEAT', 'EXPIRES', 'LIVE', 'CAMPAIGNS', 'EXPIRED', 'MAX FENCE']);
    const cells = (id: string) => lines.find((l) => l.startsWith(id))!.split(/\s{2,}/);
    expect(cells('replica-gone').slice(4)).toEqual(['no', '0', '2', '1']);
    // Times against the database time: the dead one expired in the past, the live one expires ahead.
    expect(cells('replica-gone')[3]).toMatch(/^\d+s ago$/);
    expect(cells('replica-live')[2]).toMatch(/^\d+s ago$/);
    expect(cells('replica-live')[3]).toMatch(/^in \d+s$/);
    expect(cells('replica-live').slice(4)).toEqual(['yes', '2', '0', '2']);
    expect(lines.at(-1)).toBe('campaigns: 1 documents; 2 owned by a live right, 1 released, 2 expired (free to take), 1 never claimed');
  });

  it('without ARGUS_SUPERVISOR_DATABASE_URL: database_url_required, one line, exit 2', async () => {
    for (const env of [{}, { ARGUS_SUPERVISOR_DATABASE_URL: ' ' }] as Record<string, string>[]) {
      const run = await runCli(['replicas', '--json'], env, 'replicas-no-url');
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^database_url_required: replicas works on the shared PostgreSQL database: set ARGUS_SUPERVISOR_DATABASE_URL [^\n]*\n$/);
    }
  });

  it('nothing listening at the URL: database_unreachable, one line, exit 2', async () => {
    const port = await freePort();
    const run = await runCli(['replicas'], databaseEnv(`postgresql://postgres@127.0.0.1:${port}/test`, pgf.schema), 'replicas-unreachable');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`database_unreachable: PostgreSQL at 127.0.0.1:${port}/test did not answer (ECONNREFUSED)\n`);
  });
});
