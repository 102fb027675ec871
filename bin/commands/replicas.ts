/**
 * `argus-supervisor replicas [--json]`: the replicas sharing the PostgreSQL database and the
 * campaigns' ownership, read from the database itself (persistence/postgres/replica-report.ts),
 * so it works with no serve running, or with every serve hung. Liveness is judged on the
 * database clock, the clock that expires the rows.
 *
 * Without `ARGUS_SUPERVISOR_DATABASE_URL`: `database_url_required: …`, exit 2; a database that
 * cannot be used: its start-up code (`database_unreachable`, …), exit 2.
 * @module
 */
import type { Command } from 'commander';
import { readReplicaReport, type ReplicaReport } from '../../persistence/postgres/index.js';
import { cell, jsonText, table, terminalSafe } from './client/format.js';
import { failOnDatabase, openDatabaseFromEnv } from './database-env.js';

const HEADERS = ['REPLICA', 'STARTED', 'HEARTBEAT', 'EXPIRES', 'LIVE', 'CAMPAIGNS', 'EXPIRED', 'MAX FENCE'];

/** `2026-12-02 16:40:05Z`: seconds are enough to read a heartbeat against a 30 s TTL. */
const when = (iso: string | null) => (iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`);

/** A time against the report's database time: `4s ago`, `in 26s`, `3h ago` (--json has the exact times). */
export function relative(iso: string | null, at: string): string {
  if (iso === null) return '-';
  const ms = Date.parse(iso) - Date.parse(at);
  const s = Math.round(Math.abs(ms) / 1000);
  const span = s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : s < 172_800 ? `${Math.round(s / 3600)}h` : `${Math.round(s / 86_400)}d`;
  return ms > 0 ? `in ${span}` : `${span} ago`;
}

export function replicasText(report: ReplicaReport, target: string): string {
  const rows = report.replicas.map((r) => [
    cell(r.replica_id, 64),
    relative(r.started_at, report.at),
    relative(r.heartbeat_at, report.at),
    relative(r.expires_at, report.at),
    r.live ? 'yes' : 'no',
    String(r.campaigns),
    String(r.expired_campaigns),
    r.max_fence === null ? '-' : String(r.max_fence),
  ]);
  const c = report.campaigns;
  return [
    `schema ${report.schema} on ${target}, database time ${when(report.at)}`,
    rows.length > 0 ? table(HEADERS, rows) : 'no replicas',
    `campaigns: ${c.documents} documents; ${c.owned} owned by a live right, ${c.released} released, ${c.expired} expired (free to take), ${c.unclaimed} never claimed`,
  ].join('\n');
}

export function registerReplicas(program: Command): void {
  program
    .command('replicas')
    .description('The replicas sharing the PostgreSQL database (ARGUS_SUPERVISOR_DATABASE_URL): heartbeat, expiry, campaigns held, greatest fence, and the unowned campaigns. Reads the database directly.')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { json?: boolean }) => {
      const db = await openDatabaseFromEnv(process.env, 'replicas');
      let report: ReplicaReport;
      try {
        report = await readReplicaReport(db);
      } catch (error) {
        return failOnDatabase(db, 'reading the replicas', error);
      }
      await db.close();
      process.stdout.write(opts.json ? `${jsonText({ database: db.target, ...report }, 2)}\n` : `${terminalSafe(replicasText(report, db.target))}\n`);
    });
}
