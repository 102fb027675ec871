/**
 * The real CLI (`node dist/bin/argus-supervisor.js`, so `npm run build` first) run to its end
 * as a child, with only the environment given (and PATH): its exit code, stdout and stderr,
 * teed to the run directory for the canary scan. Bounded: killed after 30 s.
 */
import { spawn } from 'node:child_process';
import { recordChildOutput } from '../../../fixtures/child-output.js';
import { CLI_ENTRY, REPO_ROOT } from '../../../fixtures/supervisor-harness.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: Record<string, string>, name = 'cli'): Promise<CliRun> {
  const child = recordChildOutput(spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: process.env.TMPDIR ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }), name);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The environment that points a CLI at one test schema. */
export const databaseEnv = (url: string, schema: string): Record<string, string> => ({ ARGUS_SUPERVISOR_DATABASE_URL: url, ARGUS_SUPERVISOR_DATABASE_SCHEMA: schema });
