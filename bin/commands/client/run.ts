/**
 * The client commands' shared edge: usage errors exit 2, every other failure is one line
 * `<code>: <message>` on stderr and exit 1, success prints to stdout (a table, or one JSON
 * document with `--json`). Nothing here ever prints the key (connection.ts never puts it in a
 * message); a stack trace is never printed. A usage error is `usage: <sentence>`, the same
 * `<code>: <sentence>` shape as every other failure (commander's own are rewritten to it).
 * @module
 */
import type { Command } from 'commander';
import { ClientError, connect, type Connection, type ConnectOptions } from './connection.js';
import { jsonText, terminalSafe } from './format.js';

export interface OutputOptions {
  json?: boolean;
  wide?: boolean;
  url?: string;
  timeout?: string;
}

/** Usage errors (a missing argument, an unknown option) exit 2, help and version 0. */
export function clientCommand(cmd: Command): Command {
  return cmd.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
}

/** The options every command that talks to a serve takes (on the leaf command, not its parent). */
export function connectionOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'the serve to talk to (default: ARGUS_SUPERVISOR_URL, else http://127.0.0.1:7860)')
    .option('--timeout <seconds>', 'give up when the server has not answered within this many seconds (default 60)');
}

export function usage(message: string): never {
  throw new ClientError('usage', message, 2);
}

/** `--url` and `--timeout` as connection options; a bad timeout is a usage error. */
export function connectOptions(opts: OutputOptions): ConnectOptions {
  const seconds = opts.timeout === undefined ? undefined : Number(opts.timeout);
  if (seconds !== undefined && (!/^\d+(\.\d+)?$/.test(opts.timeout!) || seconds <= 0 || seconds > 3600)) usage('--timeout must be a number of seconds above 0 and at most 3600');
  return { url: opts.url, timeoutMs: seconds === undefined ? undefined : Math.round(seconds * 1000) };
}

/**
 * Output already made of cleaned cells (format.ts `cell`) plus our own colour codes: printed
 * as is, since the last-defence filter would strip the colour's ESC too.
 */
export class Painted {
  constructor(readonly text: string) {}
}

/**
 * Runs one client action and maps every failure to its line and exit code. The action checks
 * its arguments first and calls `open` after, so a usage error never needs a server or a key.
 */
export async function runClient(work: (open: () => Promise<Connection>) => Promise<string | Painted | undefined>, opts: OutputOptions = {}): Promise<void> {
  try {
    const how = connectOptions(opts);
    const out = await work(() => connect(process.env, how));
    if (out instanceof Painted) process.stdout.write(out.text.endsWith('\n') ? out.text : `${out.text}\n`);
    else if (out !== undefined) process.stdout.write(terminalSafe(out.endsWith('\n') ? out : `${out}\n`));
  } catch (error) {
    if (error instanceof ClientError) {
      // The code and message may come from whatever answered at the URL: never raw to a terminal.
      process.stderr.write(`${terminalSafe(`${error.code}: ${firstLine(error.message)}`)}\n`);
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

/** Whether to colour: a terminal, and no NO_COLOR (https://no-color.org: any non-empty value). */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}
