/**
 * `argus-supervisor import --state-root DIR [--json]`: loads every campaign document of an
 * embedded state root into the PostgreSQL database of `ARGUS_SUPERVISOR_DATABASE_URL`
 * (persistence/postgres/import-state-root.ts says how: the root claimed as serve claims it,
 * each campaign claimed, created fenced and released by a short-lived replica, never
 * overwritten).
 *
 * Output: one `skipped <id>: <code>: <sentence>` line per campaign not imported, then one
 * summary line (or, with `--json`, one JSON document). Exit 0 when every campaign of the root is
 * in the database afterwards (imported now or already there), 1 when some could not be
 * imported (failed closed, unreadable, hosted elsewhere, a failed write), 2 on a refusal: no
 * URL (`database_url_required`), the database's start-up codes, `state_root_locked` (a live
 * process owns the root: stop it first), `state_root_unusable` (no state root at DIR).
 * @module
 */
import type { Command } from 'commander';
import { isKnownMachineVersion } from '../../machines/campaign.restore.js';
import { importStateRoot, type ImportReport } from '../../persistence/postgres/index.js';
import { jsonText, terminalSafe } from './client/format.js';
import { failOnDatabase, openDatabaseFromEnv } from './database-env.js';
import { exitWith } from './startup.js';

/** How many campaigns were skipped with each code, in the order first met. */
function byCode(report: ImportReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of report.skipped) counts[s.code] = (counts[s.code] ?? 0) + 1;
  return counts;
}

export function importSummary(report: ImportReport, target: string): string {
  const codes = Object.entries(byCode(report))
    .map(([code, n]) => `${n} ${code}`)
    .join(', ');
  const skipped = report.skipped.length === 0 ? '0 skipped' : `${report.skipped.length} skipped (${codes})`;
  return `import: ${report.imported.length} imported, ${skipped} from ${report.stateRoot} into schema ${report.schema} on ${target}`;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('Load every campaign of an embedded state root into the PostgreSQL database (ARGUS_SUPERVISOR_DATABASE_URL); never overwrites a campaign already there. Stop the serve of that root first.')
    .requiredOption('--state-root <dir>', 'the state root to read (the ARGUS_SUPERVISOR_STATE_ROOT of the serve it belonged to)')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { stateRoot: string; json?: boolean }) => {
      const db = await openDatabaseFromEnv(process.env, 'import');
      let outcome: Awaited<ReturnType<typeof importStateRoot>>;
      try {
        outcome = await importStateRoot({ stateRoot: opts.stateRoot, db, machineVersionKnown: isKnownMachineVersion });
      } catch (error) {
        return failOnDatabase(db, `importing ${opts.stateRoot}`, error);
      }
      await db.close();
      if (!outcome.ok) exitWith([{ code: outcome.code, message: terminalSafe(outcome.message) }]);
      const report = outcome;
      if (opts.json) {
        const { ok: _ok, ...rest } = report;
        process.stdout.write(`${jsonText({ database: db.target, ...rest, counts: { imported: report.imported.length, skipped: report.skipped.length, skipped_by_code: byCode(report) } }, 2)}\n`);
      } else {
        const lines = report.skipped.map((s) => `skipped ${s.id}: ${s.code}: ${s.reason.split('\n')[0]}`);
        process.stdout.write(terminalSafe(`${[...lines, importSummary(report, db.target)].join('\n')}\n`));
      }
      process.exitCode = report.skipped.every((s) => s.code === 'campaign_exists') ? 0 : 1;
    });
}
