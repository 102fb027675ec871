/**
 * `argus-supervisor probe --url URL [--json]`: discover a remote, check the credentials with one
 * authenticated read, and print what it can do.
 *
 * The card is public on most remotes, so it proves nothing about the token. The probe reads a
 * task that cannot exist (`GetTask` of a random id): HTTP 401/403 means the credentials were
 * `rejected`; any JSON-RPC answer (task not found included) means they were accepted. When
 * accepted, one more read without credentials tells `ok` (the remote needs them) from
 * `not_required` (it answers anyone).
 *
 * Output: without `--json`, the report as indented JSON on stdout and any failure as one line
 * `probe failed: <code>: <sentence>` on stderr. With `--json`, stdout carries exactly one JSON
 * line either way — the report, or `{"error":{"code","message"}}` — and stderr stays empty.
 * Exit code 0 only when the remote was described and the credentials are not rejected.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { createA2AClient, type A2AClient, type A2AClientOptions } from '../../adapters/a2a/index.js';

export interface ProbeInput {
  url: string;
  /** From OPENTRAINING_A2A_TOKEN; never printed. */
  token?: string;
  /** Compact single-line JSON, errors as JSON too. */
  compact?: boolean;
  timeouts?: A2AClientOptions['timeouts'];
}

export interface ProbeOutput {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
}

export type ProbeAuth = 'ok' | 'rejected' | 'not_required';

type ReadOutcome = { passed: true } | { passed: false; rejected: true } | { passed: false; rejected: false; code: string; message: string };

/** One read of a task id that cannot exist: did the remote's authentication let it through? */
async function authenticatedRead(client: A2AClient): Promise<ReadOutcome> {
  const read = await client.getTask(`argus-probe-${randomBytes(8).toString('hex')}`);
  if (read.ok) return { passed: true };
  const { code, message } = read.error;
  if (code === 'remote_auth_failed') return { passed: false, rejected: true };
  // The remote answered at the JSON-RPC level (not found, invalid params): it was let through.
  if (code === 'task_not_found' || code === 'remote_rpc_error') return { passed: true };
  return { passed: false, rejected: false, code, message };
}

/** Runs one probe in-process; the CLI action only prints what this returns. */
export async function runProbe(input: ProbeInput): Promise<ProbeOutput> {
  const options = (token: string | undefined): A2AClientOptions => ({
    baseUrl: input.url,
    connections: 1,
    ...(token ? { token } : {}),
    ...(input.timeouts ? { timeouts: input.timeouts } : {}),
  });
  const failed = (code: string, message: string): ProbeOutput =>
    input.compact
      ? { exitCode: 1, stdout: `${JSON.stringify({ error: { code, message } })}\n`, stderr: '' }
      : { exitCode: 1, stdout: '', stderr: `probe failed: ${code}: ${message}\n` };
  const client = createA2AClient(options(input.token));
  let auth: ProbeAuth;
  let report: Record<string, unknown>;
  try {
    const found = await client.discover();
    if (!found.ok) return failed(found.error.code, found.error.message);
    const d = found.value;
    report = {
      protocolVersion: d.protocolVersion,
      rpcUrl: d.rpcUrl,
      capabilities: d.capabilities,
      controlExtension: d.controlExtension,
      mutationsEnabled: d.mutationsEnabled,
      unsupported: d.unsupported,
    };
    const withCredentials = await authenticatedRead(client);
    if (!withCredentials.passed && !withCredentials.rejected) return failed(withCredentials.code, withCredentials.message);
    if (!withCredentials.passed) auth = 'rejected';
    else if (!input.token) auth = 'not_required';
    else auth = await withoutCredentials();
  } finally {
    await client.close();
  }
  const text = `${JSON.stringify({ ...report, auth }, null, input.compact ? undefined : 2)}\n`;
  if (auth !== 'rejected') return { exitCode: 0, stdout: text, stderr: '' };
  const sentence = input.token ? 'the remote refused the credentials on an authenticated read' : 'the remote requires credentials (set OPENTRAINING_A2A_TOKEN)';
  return { exitCode: 1, stdout: text, stderr: input.compact ? '' : `probe failed: remote_auth_failed: ${sentence}\n` };

  /** Accepted with credentials; would it answer without them? */
  async function withoutCredentials(): Promise<ProbeAuth> {
    const anonymous = createA2AClient(options(undefined));
    try {
      if (!(await anonymous.discover()).ok) return 'ok';
      const read = await authenticatedRead(anonymous);
      return read.passed ? 'not_required' : 'ok';
    } finally {
      await anonymous.close();
    }
  }
}

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('Discover an A2A remote: protocol version, endpoint, the nine logical capabilities, and whether the token is accepted (token from OPENTRAINING_A2A_TOKEN).')
    .requiredOption('--url <url>', 'A2A base URL, e.g. http://127.0.0.1:8080/a2a (no credentials in it)')
    .option('--json', 'print the report, or the error, as one compact JSON line on stdout')
    .action(async (opts: { url: string; json?: boolean }) => {
      const input: ProbeInput = { url: opts.url, compact: opts.json === true };
      const token = process.env.OPENTRAINING_A2A_TOKEN;
      if (token) input.token = token;
      const out = await runProbe(input);
      process.stdout.write(out.stdout);
      process.stderr.write(out.stderr);
      process.exitCode = out.exitCode;
    });
}
