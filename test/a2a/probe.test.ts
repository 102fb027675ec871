import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { registerProbe, runProbe } from '../../bin/commands/probe.js';
import { closedPort } from '../fixtures/fault-server.js';
import { useFaultServer } from '../fixtures/fault-world.js';
import { canary } from '../fixtures/canary.js';

const TOKEN = canary('remote-token');
const remote = useFaultServer(TOKEN);


describe('runProbe', () => {
  it('prints one JSON object describing a fully fenced 1.0 remote', async () => {
    const out = await runProbe({ url: remote.fault.base('v1'), token: TOKEN, compact: true });
    expect(out.exitCode).toBe(0);
    expect(out.stderr).toBe('');
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out.stdout)).toEqual({
      protocolVersion: '1.0',
      rpcUrl: `${remote.fault.origin}/v1/a2a/rpc`,
      capabilities: {
        discover: true,
        submit: true,
        status: true,
        evidence: true,
        claim_control: true,
        renew_control: true,
        release_control: true,
        intervene: true,
        cancel: true,
      },
      controlExtension: true,
      mutationsEnabled: true,
      unsupported: [],
      // The fault server answers its RPC endpoint without checking credentials.
      auth: 'not_required',
    });
  });

  it.each([
    ['unreachable', async () => `http://127.0.0.1:${await closedPort()}/a2a`, 'remote_unreachable'],
    ['auth refused', async () => remote.fault.base('locked'), 'remote_auth_failed'],
    ['credential in URL', async () => `${remote.fault.base('v1')}?token=${TOKEN}`, 'remote_url_rejected'],
  ])('%s: exit 1, one stderr line, empty stdout, no token', async (_name, url, code) => {
    const out = await runProbe({ url: await url(), token: TOKEN });
    expect(out.exitCode).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(new RegExp(`^probe failed: ${code}: [^\\n]+\\n$`));
    expect(out.stderr).not.toContain(TOKEN);
  });
});

describe('the probe command', () => {
  it('reads the token from OPENTRAINING_A2A_TOKEN and writes the report to stdout', async () => {
    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const previous = process.env.OPENTRAINING_A2A_TOKEN;
    process.env.OPENTRAINING_A2A_TOKEN = TOKEN;
    const before = remote.fault.requests.length;
    try {
      const program = new Command().exitOverride();
      registerProbe(program);
      await program.parseAsync(['probe', '--url', remote.fault.base('v1-plain'), '--json'], { from: 'user' });
    } finally {
      stdout.mockRestore();
      if (previous === undefined) delete process.env.OPENTRAINING_A2A_TOKEN;
      else process.env.OPENTRAINING_A2A_TOKEN = previous;
    }
    expect(JSON.parse(written.join(''))).toMatchObject({ protocolVersion: '1.0', mutationsEnabled: false });
    const sent = remote.fault.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    // The token goes with the discovery and the authenticated read; the one check of whether
    // the remote needs it at all goes without any credential (never with a different one).
    const withToken = sent.filter((r) => r.headers['x-api-key'] === TOKEN);
    expect(withToken.length).toBeGreaterThan(0);
    for (const r of sent) if (r.headers['x-api-key'] !== TOKEN) expect(r.headers['x-api-key'] ?? r.headers.authorization).toBeUndefined();
    expect(process.exitCode ?? 0).toBe(0);
  });
});
