/**
 * Token authority with real `serve` children (dist/: run `npm run build` first): with no
 * ARGUS_SUPERVISOR_API_KEY on loopback (or a Unix socket) serve creates `<state root>/local-api-key`
 * (0600), uses it, reuses it after a restart, and reports only its path and the source
 * `generated_local`: the value (or its hash) is in no output, log, health answer or state file.
 * A key file with a loose mode, a weak content or a symlink is refused with one line; a
 * non-loopback HOST without a key still refuses to start, and creates nothing.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordChildOutput } from '../fixtures/child-output.js';
import { canary } from '../fixtures/canary.js';
import { CLI_ENTRY, REPO_ROOT, createScope, httpCall, spawnServe, tempStateRoot, type ServeChild } from '../fixtures/supervisor-harness.js';
import { openSse } from '../cli/sse.js';
import { filesUnder } from '../fixtures/scratch.js';

const scope = createScope();
afterEach(() => scope.dispose());

const API = '/api/plugins/argus_supervisor';
const keyFile = (root: string) => path.join(root, 'local-api-key');

/** Every form of the key a leak could take: raw, its sha256 (hex, base64), base64 of it. */
const forms = (key: string) => [key, createHash('sha256').update(key).digest('hex'), createHash('sha256').update(key).digest('base64'), Buffer.from(key).toString('base64')];

async function stopped(child: ServeChild): Promise<void> {
  child.child.kill('SIGTERM');
  expect((await child.exited).code).toBe(0);
}

/** Runs serve to its end (bounded). */
async function refused(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = recordChildOutput(
    spawn(process.execPath, [CLI_ENTRY, 'serve'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    'local-key-refused',
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, stderr };
}

describe('serve on loopback without ARGUS_SUPERVISOR_API_KEY', () => {
  it('creates a 0600 local key, uses it, reuses it after a restart, and never shows it', async () => {
    const root = await tempStateRoot(scope);
    // The placeholder apiKey of the harness is never the real one: api() is not used here.
    const first = await spawnServe(scope, { ARGUS_SUPERVISOR_STATE_ROOT: root }, canary('unused-placeholder'));
    const st = await lstat(keyFile(root));
    expect(st.isFile()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    const key = (await readFile(keyFile(root), 'utf8')).trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url

    const call = (base: string, headers: Record<string, string>) => httpCall(`${base}${API}/health`, { body: {}, headers });
    expect((await call(first.address, {})).status).toBe(401);
    const health = await call(first.address, { 'x-api-key': key });
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ api_key_source: 'generated_local', configured: { api_key: true } });
    const listening = first.stderr.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'argus-supervisor listening');
    expect(listening).toMatchObject({ apiKeySource: 'generated_local', apiKeyFile: keyFile(root) });
    const events = await openSse(`${first.address}${API}/events`, { authorization: `Bearer ${key}` });
    expect(events.status).toBe(200);
    events.close();
    await stopped(first);

    const second = await spawnServe(scope, { ARGUS_SUPERVISOR_STATE_ROOT: root }, canary('unused-placeholder'));
    expect((await readFile(keyFile(root), 'utf8')).trim()).toBe(key);
    expect((await stat(keyFile(root))).mode & 0o777).toBe(0o600);
    const again = await call(second.address, { 'x-api-key': key });
    expect(again.status).toBe(200);
    await stopped(second);

    // Nowhere but in its own file: outputs, logs, answers, every other file of the state root.
    const texts = [first.stdout, first.stderr, second.stdout, second.stderr].map((lines) => lines.join('\n'));
    texts.push(health.text, again.text, await events.body);
    for (const file of await filesUnder(root)) if (file !== keyFile(root)) texts.push(await readFile(file, 'latin1'));
    expect(texts.length).toBeGreaterThan(7);
    for (const form of forms(key)) expect(texts.filter((t) => t.includes(form)).length, 'a form of the key leaked').toBe(0);
    expect(texts.join('\n')).toContain(keyFile(root));
  });

  it('on a Unix socket too; with a deployment secret, no file is made', async () => {
    const root = await tempStateRoot(scope);
    const socket = path.join(root, 'sup.sock');
    const child = await spawnServe(scope, { ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_SOCKET: socket }, canary('unused-placeholder'));
    expect((await stat(keyFile(root))).mode & 0o777).toBe(0o600);
    await stopped(child);

    const other = await tempStateRoot(scope);
    const secret = canary('deployment-key');
    const withSecret = await spawnServe(scope, { ARGUS_SUPERVISOR_STATE_ROOT: other, ARGUS_SUPERVISOR_API_KEY: secret }, secret);
    expect((await withSecret.api('health')).json).toMatchObject({ api_key_source: 'deployment_secret' });
    await expect(stat(keyFile(other))).rejects.toMatchObject({ code: 'ENOENT' });
    await stopped(withSecret);
  });

  it('refuses a key file with a loose mode, a weak content or a symlink: one line, exit 2, no value', async () => {
    const root = await tempStateRoot(scope);
    // Not a canary: the end-of-run scan would find it in the very file it is written to.
    const good = randomBytes(32).toString('base64url');
    await writeFile(keyFile(root), `${good}\n`, { mode: 0o600 });
    await chmod(keyFile(root), 0o644);
    const loose = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: root });
    expect(loose.code).toBe(2);
    expect(loose.stderr.trim().split('\n')).toEqual([`local_key_unsafe: ${keyFile(root)} has mode 644, not 600; remove it or set ARGUS_SUPERVISOR_API_KEY`]);

    const weakRoot = await tempStateRoot(scope);
    const weakContent = 'abc';
    await writeFile(keyFile(weakRoot), weakContent, { mode: 0o600 });
    const weak = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: weakRoot });
    expect(weak.code).toBe(2);
    expect(weak.stderr.trim().split('\n')).toEqual([`local_key_unsafe: ${keyFile(weakRoot)} does not hold a strong key; remove it or set ARGUS_SUPERVISOR_API_KEY`]);

    const linkRoot = await tempStateRoot(scope);
    await symlink(keyFile(root), keyFile(linkRoot));
    const linked = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: linkRoot });
    expect(linked.code).toBe(2);
    expect(linked.stderr.trim()).toMatch(/^local_key_unsafe: .* is a symbolic link; /);
    for (const r of [loose, weak, linked]) expect(r.stderr).not.toContain(good);
  });

  it('a non-loopback HOST without a key still refuses to start, and creates no key file', async () => {
    const root = await tempStateRoot(scope);
    const r = await refused({ ARGUS_SUPERVISOR_STATE_ROOT: root, HOST: '0.0.0.0' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('api_key_required: ARGUS_SUPERVISOR_API_KEY is required when HOST is not a loopback address');
    await expect(stat(keyFile(root))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
