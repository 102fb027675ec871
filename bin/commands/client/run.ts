/**
 * The client commands' shared edge: usage errors exit 2, every other failure is one line
 * `<code>: <message>` on stderr and exit 1, success prints to stdout (a table, or one JSON
 * document with `--json`). Nothing here ever prints the key (connection.ts never puts it in a
 * message); a stack trace is never printed.
 * @module
 */
import type { Command } from 'commander';
import { ClientError, connect, type Connection } from './connection.js';
import { jsonText, terminalSafe } from './format.js';

export interface OutputOptions {
  json?: boolean;
}

/** Usage errors (a missing argument, an unknown option) exit 2, help and version 0. */
export function clientCommand(cmd: Command): Command {
  return cmd.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
}

export function usage(message: string): never {
  throw new ClientError('usage', message, 2);
}

/**
 * Runs one client action and maps every failure to its line and exit code. The action checks
 * its arguments first and calls `open` after, so a usage error never needs a server or a key.
 */
export async function runClient(work: (open: () => Promise<Connection>) => Promise<string | undefined>): Promise<void> {
  try {
    const out = await work(() => connect(process.env));
    if (out !== undefined) process.stdout.write(terminalSafe(out.endsWith('\n') ? out : `${out}\n`));
  } catch (error) {
    if (error instanceof ClientError) {
      // The code and message may come from whatever answered at the URL: never raw to a terminal.
      const line = error.exitCode === 2 ? `usage: ${error.message}` : `${error.code}: ${firstLine(error.message)}`;
      process.stderr.write(`${terminalSafe(line)}\n`);
      process.exit(error.exitCode);
    }
    process.stderr.write(`internal_error: ${terminalSafe(firstLine(error instanceof Error ? error.message : String(error)))}\n`);
    process.exit(1);
  }
}

const firstLine = (s: string) => s.split('\n')[0]!.slice(0, 500);

export const printJson = (value: unknown): string => jsonText(value, 2);

/** The supervisor's controller id (the lease holder shown in tables); null if health cannot say. */
export async function controllerId(conn: Connection): Promise<string | null> {
  try {
    const health = await conn.post('health', {});
    return typeof health.controller_id === 'string' ? health.controller_id : null;
  } catch {
    return null;
  }
}

export function positiveInt(name: string, raw: string | undefined, min = 0): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) usage(`${name} must be a whole number${min ? ` of at least ${min}` : ''}`);
  return Number(raw);
}
