/**
 * `probe` checks the credentials, not just the public card: one authenticated read (GetTask of
 * a task that cannot exist) tells `ok`, `rejected` and `not_required` apart, and with `--json`
 * a failure is one JSON line on stdout too. Against the bundled simulator, with and without a
 * token, in process and through the real CLI (dist/: run `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProbe } from '../../bin/commands/probe.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { closedPort } from '../fixtures/fault-server.js';
import { CLI_ENTRY, REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const TOKEN = canary('probe-token');
const WRONG = canary('probe-wrong-token');
let locked: RunningSimulator;
let open: RunningSimulator;

beforeAll(async () => {
  locked = await startSimulator({ port: 0, token: TOKEN });
  open = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await locked?.close();
  await open?.close();
});

const reportOf = (stdout: string) => JSON.parse(stdout) as { auth: string; protocolVersion: string };

describe('probe: the credentials', () => {
  it('ok: the remote needs them and accepts them', async () => {
    const out = await runProbe({ url: locked.url, token: TOKEN, compact: true });
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(reportOf(out.stdout)).toMatchObject({ auth: 'ok', protocolVersion: '1.0' });
  });

  it.each([
    ['a wrong token', WRONG],
    ['no token', undefined],
  ])('rejected with %s: exit 1, one stderr line, the report says so, nothing secret', async (_name, token) => {
    const out = await runProbe({ url: locked.url, ...(token ? { token } : {}) });
    expect(out.exitCode).toBe(1);
    expect(reportOf(out.stdout).auth).toBe('rejected');
    expect(out.stderr).toMatch(/^probe failed: remote_auth_failed: [^\n]+\n$/);
    expect(out.stdout + out.stderr).not.toContain(WRONG);
    expect(out.stdout + out.stderr).not.toContain(TOKEN);
  });

  it.each([
    ['with a token', TOKEN],
    ['without one', undefined],
  ])('not_required: the remote answers anyone (%s)', async (_name, token) => {
    const out = await runProbe({ url: open.url, ...(token ? { token } : {}), compact: true });
    expect(out.exitCode).toBe(0);
    expect(reportOf(out.stdout).auth).toBe('not_required');
  });
});

describe('probe --json: errors are JSON too', () => {
  it('an unreachable remote is one JSON line on stdout, nothing on stderr', async () => {
    const out = await runProbe({ url: `http://127.0.0.1:${await closedPort()}/a2a`, token: TOKEN, compact: true });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe('');
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'remote_unreachable' } });
  });

  it('through the real CLI: a URL with a credential and a rejected token, as JSON', async () => {
    const run = (url: string, token: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI_ENTRY, 'probe', '--url', url, '--json'], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', OPENTRAINING_A2A_TOKEN: token },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        recordChildOutput(child, 'probe-cli');
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
    const [refused, rejected] = await Promise.all([run(`${locked.url}#${TOKEN}`, TOKEN), run(locked.url, WRONG)]);
    expect(refused).toMatchObject({ code: 1, stderr: '' });
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'remote_url_rejected' } });
    expect(rejected).toMatchObject({ code: 1, stderr: '' });
    expect(JSON.parse(rejected.stdout)).toMatchObject({ auth: 'rejected' });
    for (const r of [refused, rejected]) {
      expect(r.stdout).not.toContain(TOKEN);
      expect(r.stdout).not.toContain(WRONG);
    }
  });
});
