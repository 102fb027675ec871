/**
 * OPENTRAINING_A2A_TOKEN_FILE and ARGUS_SUPERVISOR_API_KEY_FILE (services/runtime/credential-files.ts):
 * a parent hands `serve` the token or the key as a 0600 file, read once at start, so neither is in
 * any argument or environment of the child. A file anyone else could read is refused with a
 * stable code, one line, exit 2, no value; the value is in no output, log, health answer, state
 * file, /proc/<pid>/cmdline or /proc/<pid>/environ.
 *
 * A file holding a canary would be reported by the end-of-run scan (it scans the run directory),
 * so the secret files live in a 0700 folder under /tmp, outside it; state roots stay inside.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/config/config.js';
import { readSecretFile } from '../../services/runtime/credential-files.js';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { filesUnder, removeScratch } from '../fixtures/scratch.js';
import { CLI_ENTRY, REPO_ROOT, createScope, httpCall, spawnServe, tempStateRoot } from '../fixtures/supervisor-harness.js';

const secretHome = mkdtempSync(path.join('/tmp', 'argus-credential-files-'));
chmodSync(secretHome, 0o700);
afterAll(() => removeScratch(secretHome));
const scope = createScope();
afterEach(() => scope.dispose());

let counter = 0;
function secretFile(value: string, mode = 0o600): string {
  const file = path.join(secretHome, `secret-${++counter}`);
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, mode);
  return file;
}

/** Runs serve to its end (bounded), for the refusals. */
async function refused(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = recordChildOutput(
    spawn(process.execPath, [CLI_ENTRY, 'serve'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    'credential-file-refused',
  );
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stderr, stdout };
}

describe('readSecretFile', () => {
  it.each([
    ['0640', 'refused'],
    ['0604', 'refused'],
    ['0644', 'refused'],
    ['0620', 'refused'],
    ['0600', 'accepted'],
    ['0400', 'accepted'],
  ] as const)('a token file of mode %s is %s', async (octal, verdict) => {
    const token = canary('token-file-mode');
    const file = secretFile(token, Number.parseInt(octal, 8));
    const read = readSecretFile(file, 'a2a_token_file');
    if (verdict === 'accepted') await expect(read).resolves.toBe(token);
    else await expect(read).rejects.toMatchObject({ code: 'a2a_token_file_unsafe', message: `OPENTRAINING_A2A_TOKEN_FILE ${file} has mode ${Number.parseInt(octal, 8).toString(8)}, not 600` });
  });

  it('refuses a symlink, a missing file, a folder, an empty or multi-line file, without the value', async () => {
    const token = canary('token-file-shape');
    const link = path.join(secretHome, `link-${++counter}`);
    symlinkSync(secretFile(token), link);
    const twoLines = path.join(secretHome, `two-${++counter}`);
    writeFileSync(twoLines, `${token}\n${token}\n`, { mode: 0o600 });
    const empty = path.join(secretHome, `empty-${++counter}`);
    writeFileSync(empty, '\n', { mode: 0o600 });
    const cases: [string, string][] = [
      [link, 'a2a_token_file_unsafe'],
      [path.join(secretHome, 'absent'), 'a2a_token_file_missing'],
      [secretHome, 'a2a_token_file_unsafe'],
      [twoLines, 'a2a_token_file_invalid'],
      [empty, 'a2a_token_file_invalid'],
    ];
    for (const [file, code] of cases) {
      const error = await readSecretFile(file, 'a2a_token_file').then(
        () => null,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(error, file).toMatchObject({ code });
      expect(error!.message).not.toContain(token);
    }
  });

  it('a value and a file for the same secret are refused together (secret_source_conflict)', () => {
    const token = canary('token-conflict');
    const env = { ARGUS_SUPERVISOR_STATE_ROOT: '/tmp/argus-never-created', OPENTRAINING_A2A_TOKEN: token, OPENTRAINING_A2A_TOKEN_FILE: '/nowhere' };
    expect(() => loadConfig(env)).toThrow(expect.objectContaining({ issues: [{ code: 'secret_source_conflict', message: 'OPENTRAINING_A2A_TOKEN and OPENTRAINING_A2A_TOKEN_FILE are both set; set one' }] }));
    // A key file stands in for the key on a non-loopback listener.
    expect(loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: '/tmp/argus-never-created', HOST: '0.0.0.0', ARGUS_SUPERVISOR_API_KEY_FILE: '/nowhere' }).apiKeyFile).toBe('/nowhere');
  });
});

describe('serve with secret files', () => {
  it('reads the token and the key from files; neither is in argv, environ, output, health or state', async () => {
    const root = await tempStateRoot(scope);
    const token = canary('a2a-token-file');
    const key = canary('api-key-file');
    const env = {
      ARGUS_SUPERVISOR_STATE_ROOT: root,
      ARGUS_SUPERVISOR_ENABLED: '1',
      OPENTRAINING_A2A_URL: 'http://127.0.0.1:1/a2a', // nothing listens: discovery keeps retrying
      OPENTRAINING_A2A_TOKEN_FILE: secretFile(token),
      ARGUS_SUPERVISOR_API_KEY_FILE: secretFile(key),
    };
    const serve = await spawnServe(scope, env, key);
    const health = await serve.api('health');
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ api_key_source: 'deployment_secret', configured: { remote: true, remote_token: true, api_key: true } });
    expect((await httpCall(`${serve.address}/api/plugins/argus_supervisor/health`, { body: {}, headers: { 'x-api-key': canary('wrong-key') } })).status).toBe(401);
    const cmdline = await readFile(`/proc/${serve.pid}/cmdline`, 'latin1');
    const environ = await readFile(`/proc/${serve.pid}/environ`, 'latin1');
    expect(environ).toContain(env.OPENTRAINING_A2A_TOKEN_FILE); // the path, and only the path
    const listening = serve.stderr.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'argus-supervisor listening');
    expect(listening).toMatchObject({ apiKeySource: 'deployment_secret', apiKeyFile: env.ARGUS_SUPERVISOR_API_KEY_FILE, a2aTokenFile: env.OPENTRAINING_A2A_TOKEN_FILE });
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    // No local key was made: the key came from its file.
    const stateFiles = await filesUnder(root);
    expect(stateFiles.map((f) => path.basename(f))).not.toContain('local-api-key');
    const texts = [cmdline, environ, health.text, serve.stdout.join('\n'), serve.stderr.join('\n'), ...(await Promise.all(stateFiles.map((f) => readFile(f, 'latin1'))))];
    for (const secret of [token, key]) expect(texts.filter((t) => t.includes(secret)).length).toBe(0);
  });

  it('refuses a group-readable token file or key file: one line, exit 2, no value, nothing started', async () => {
    const root = await tempStateRoot(scope);
    const token = canary('loose-token-file');
    const looseToken = secretFile(token, 0o640);
    const tokenRun = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: root, OPENTRAINING_A2A_TOKEN_FILE: looseToken });
    expect(tokenRun.code).toBe(2);
    expect(tokenRun.stderr.trim().split('\n')).toEqual([`a2a_token_file_unsafe: OPENTRAINING_A2A_TOKEN_FILE ${looseToken} has mode 640, not 600`]);

    const key = canary('loose-key-file');
    const looseKey = secretFile(key, 0o604);
    const keyRun = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_API_KEY_FILE: looseKey });
    expect(keyRun.code).toBe(2);
    expect(keyRun.stderr.trim().split('\n')).toEqual([`api_key_file_unsafe: ARGUS_SUPERVISOR_API_KEY_FILE ${looseKey} has mode 604, not 600`]);

    const weak = secretFile('short', 0o600);
    const weakRun = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_API_KEY_FILE: weak });
    expect(weakRun.stderr.trim().split('\n')).toEqual([`api_key_weak: ARGUS_SUPERVISOR_API_KEY_FILE ${weak} must hold at least 16 printable ASCII characters with no whitespace`]);

    const output = [tokenRun, keyRun].map((r) => r.stdout + r.stderr).join('\n');
    expect(output).not.toContain(token);
    expect(output).not.toContain(key);
    expect(await filesUnder(root)).toEqual([]); // refused before the local key or any state
  });
});
