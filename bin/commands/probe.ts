/**
 * `argus-supervisor probe --url URL [--json]`: discover a remote and print what it can do.
 * stdout carries exactly one JSON object on success and nothing on failure, so scripts can
 * pipe it; the one failure line goes to stderr.
 * @module
 */
import type { Command } from 'commander';
import { createA2AClient, type A2AClientOptions } from '../../adapters/a2a/index.js';

export interface ProbeInput {
  url: string;
  /** From OPENTRAINING_A2A_TOKEN; never printed. */
  token?: string;
  /** Compact single-line JSON instead of indented JSON. */
  compact?: boolean;
  timeouts?: A2AClientOptions['timeouts'];
}

export interface ProbeOutput {
  exitCode: 0 | 1;
  stdout: string;
  stderr: string;
}

/** Runs one probe in-process; the CLI action only prints what this returns. */
export async function runProbe(input: ProbeInput): Promise<ProbeOutput> {
  const options: A2AClientOptions = { baseUrl: input.url, connections: 1 };
  if (input.token) options.token = input.token;
  if (input.timeouts) options.timeouts = input.timeouts;
  const client = createA2AClient(options);
  try {
    const found = await client.discover();
    if (!found.ok) {
      return { exitCode: 1, stdout: '', stderr: `probe failed: ${found.error.code}: ${found.error.message}\n` };
    }
    const d = found.value;
    const report = {
      protocolVersion: d.protocolVersion,
      rpcUrl: d.rpcUrl,
      capabilities: d.capabilities,
      controlExtension: d.controlExtension,
      mutationsEnabled: d.mutationsEnabled,
      unsupported: d.unsupported,
    };
    return { exitCode: 0, stdout: `${JSON.stringify(report, null, input.compact ? undefined : 2)}\n`, stderr: '' };
  } finally {
    await client.close();
  }
}

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('Discover an A2A remote: protocol version, endpoint and the nine logical capabilities (token from OPENTRAINING_A2A_TOKEN).')
    .requiredOption('--url <url>', 'A2A base URL, e.g. http://127.0.0.1:8080/a2a (no credentials in it)')
    .option('--json', 'print the report as one compact JSON line')
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
