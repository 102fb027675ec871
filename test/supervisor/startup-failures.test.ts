/**
 * Every start-up failure of the real CLI (dist/: run `npm run build` first) is exactly one
 * stderr line `<code>: <sentence>` and exit code 2 — never a stack trace — for `serve` and
 * `simulate`, including the weak settings refused by configuration.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { CLI_ENTRY, REPO_ROOT, createScope, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { recordChildOutput } from '../fixtures/child-output.js';

/** Twenty spaces: long enough, yet no client could send it. */
const ALL_BLANKS = ' '.repeat(20);

const KEY = canary('startup-api-key');
const scope = createScope();
let busy: Server;
let busyPort: number;
let stateRoot: string;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
  stateRoot = await tempStateRoot(scope);
});
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  await scope.dispose();
});

/** Runs the CLI to its end (bounded: killed after 20 s, which fails the exit-code check). */
async function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  recordChildOutput(child, 'startup-cli');
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function expectOneLine(result: { code: number | null; stdout: string; stderr: string }, code: string): string {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  const lines = result.stderr.split('\n').filter((l) => l.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.startsWith(`${code}: `), lines[0]).toBe(true);
  expect(result.stdout).not.toContain('"ready"');
  return lines[0]!;
}

const serveEnv = (extra: Record<string, string>) => ({ ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_API_KEY: KEY, HOST: '127.0.0.1', PORT: '0', ...extra });

describe('serve start-up failures', () => {
  it('port in use → listen_address_in_use', async () => {
    const line = expectOneLine(await run(['serve'], serveEnv({ PORT: String(busyPort) })), 'listen_address_in_use');
    expect(line).toBe(`listen_address_in_use: 127.0.0.1:${busyPort} is already in use`);
  });

  it('a host that does not resolve → listen_host_invalid', async () => {
    expectOneLine(await run(['serve'], serveEnv({ HOST: 'not-a-host.invalid' })), 'listen_host_invalid');
  });

  it('a socket path that cannot be bound → socket_path_unusable', async () => {
    const line = expectOneLine(await run(['serve'], serveEnv({ ARGUS_SUPERVISOR_SOCKET: '/nonexistent-argus-dir/argus.sock' })), 'socket_path_unusable');
    expect(line).toContain('/nonexistent-argus-dir/argus.sock');
  });

  it('a state root that is a file → state_root_unusable', async () => {
    const file = path.join(stateRoot, 'not-a-folder');
    await writeFile(file, 'x');
    expectOneLine(await run(['serve'], serveEnv({ ARGUS_SUPERVISOR_STATE_ROOT: file })), 'state_root_unusable');
  });

  it.each([
    ['log_level_invalid', 'an unknown LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['api_key_weak', 'a one-character key', { ARGUS_SUPERVISOR_API_KEY: KEY.slice(0, 1) }],
    ['api_key_weak', 'a whitespace key', { ARGUS_SUPERVISOR_API_KEY: ALL_BLANKS }],
    ['api_key_required', 'no key on 0.0.0.0', { ARGUS_SUPERVISOR_API_KEY: '', HOST: '0.0.0.0' }],
    ['a2a_url_required', 'ENABLED=1 without a URL', { ARGUS_SUPERVISOR_ENABLED: '1' }],
    ['a2a_url_credential', 'a /T-…/ path token', { OPENTRAINING_A2A_URL: `http://127.0.0.1:9/T-${canary('url-token')}/a2a` }],
    ['a2a_url_credential', 'a fragment', { OPENTRAINING_A2A_URL: `http://127.0.0.1:9/a2a#${canary('url-fragment')}` }],
  ])('%s, from %s', async (code, _what, extra) => {
    const result = await run(['serve'], serveEnv(extra));
    expectOneLine(result, code);
    for (const value of Object.values(extra)) if (value.trim().length >= 8) expect(result.stderr).not.toContain(value);
  });
});

describe('simulate start-up failures', () => {
  it('port in use → listen_address_in_use', async () => {
    const line = expectOneLine(await run(['simulate', '--port', String(busyPort)], {}), 'listen_address_in_use');
    expect(line).toBe(`listen_address_in_use: 127.0.0.1:${busyPort} is already in use`);
  });
});
