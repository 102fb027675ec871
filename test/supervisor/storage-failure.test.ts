/**
 * Storage errors are server errors (issue 7, defect 6): when the state root cannot be written
 * or read for an I/O reason, the API answers 503 `storage_unavailable` with one sentence, logs
 * it at error with the errno, and the data on disk stays exactly as it was. The file-system
 * calls of the store are wrapped to fail with the errors the OS gives; one test fills a real,
 * tiny tmpfs where the machine allows mounting one.
 */
import { execFileSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, documentPath, envFor, httpCall, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { recordSyncOutput } from '../fixtures/child-output.js';

const scope = createScope();
afterEach(() => scope.dispose());

const apiKey = canary('api-key');
const token = canary('remote-token');

/** The store's file-system calls, failing on demand the way the OS does. */
function faultyFs() {
  const failing: { write: string | null; read: string | null } = { write: null, read: null };
  const osError = (code: string, syscall: string, file: string) =>
    Object.assign(new Error(`${code}: simulated, ${syscall} '${file}'`), { code, syscall, path: file });
  const fs: DurableFs = {
    open: (file, flags, mode) => (failing.write && flags === 'wx' ? Promise.reject(osError(failing.write, 'open', file)) : fsp.open(file, flags, mode)),
    rename: (from, to) => fsp.rename(from, to),
    unlink: (file) => fsp.unlink(file),
    readFile: (file, encoding) => (failing.read ? Promise.reject(osError(failing.read, 'open', file)) : fsp.readFile(file, encoding)),
  };
  return { fs, failing };
}

async function world(stateRoot: string, storeFs?: DurableFs) {
  const sim = scope.defer(await startSimulator({ port: 0, token }), (s) => s.close());
  const { logger, lines } = captureLogs('info');
  const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: sim.url, token, apiKey })), logger, ...(storeFs ? { storeFs } : {}) });
  await supervisor.start({ heartbeat: false, initialSweep: false });
  scope.defer(supervisor, (s) => s.stop());
  const app = scope.defer(createHttpServer({ supervisor, apiKey, logger }), (a) => a.close());
  const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
  const post = (route: string, body: unknown) => httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': apiKey } });
  return { sim, supervisor, lines, post };
}

const storageErrors = (lines: string[]) =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 50 && l.code === 'storage_unavailable');

function expect503(a: { status: number; json: Record<string, any> }) {
  expect([a.status, a.json.error?.code]).toEqual([503, 'storage_unavailable']);
  // One sentence, naming no path and no errno (those are in the log).
  expect(a.json.error.message).toMatch(/^[^.]+\.$/);
}

describe('a store that cannot write or read', () => {
  it('create answers 503 with the errno logged, stores nothing, and works once space is back', async () => {
    const stateRoot = await tempStateRoot(scope);
    const { fs, failing } = faultyFs();
    const w = await world(stateRoot, fs);
    failing.write = 'ENOSPC';
    expect503(await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o' }));
    const logged = storageErrors(w.lines);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ campaignId: 'c1', errno: 'ENOSPC' });
    await expect(fsp.stat(documentPath(stateRoot, 'c1'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await w.post('campaigns', { action: 'list' })).json.campaigns).toEqual([]);
    for (const line of w.lines) expect(line).not.toContain(token);

    failing.write = null;
    expect((await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o' })).status).toBe(200);
  });

  it('pause and observe answer 503 on a failed write or read, leave the document as it was, and recover', async () => {
    const stateRoot = await tempStateRoot(scope);
    const { fs, failing } = faultyFs();
    const w = await world(stateRoot, fs);
    const [taskId] = w.sim.createTasks(1, 'training');
    expect((await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId })).status).toBe(200);
    const bytes = await fsp.readFile(documentPath(stateRoot, 'c1'));

    failing.write = 'EROFS';
    expect503(await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' }));
    expect503(await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' }));
    failing.write = null;
    failing.read = 'EIO';
    expect503(await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' }));
    expect503(await w.post('campaign_action', { campaign_id: 'c1', action: 'observe' }));
    expect(storageErrors(w.lines).map((l) => l.errno)).toEqual(['EROFS', 'EROFS', 'EIO', 'EIO']);
    expect(await fsp.readFile(documentPath(stateRoot, 'c1'))).toEqual(bytes);

    // Not corrupt, not lost: once storage is back the campaign works as before.
    failing.read = null;
    const get = await w.post('campaigns', { action: 'get', campaign_id: 'c1' });
    expect(get.json.campaign).toMatchObject({ corrupt: false, paused: false });
    expect((await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' })).status).toBe(200);
  });
});

/** A 256 KiB tmpfs, where the machine lets this process mount one (root on Linux). */
function mountTinyTmpfs(): string | null {
  if (process.platform !== 'linux') return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'argus-tmpfs-'));
  try {
    recordSyncOutput('mount-tmpfs', { stdout: execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }), stderr: '' });
    return dir;
  } catch {
    // The empty mount point stays for the end-of-run scan, which removes the run folder.
    return null;
  }
}

const probe = mountTinyTmpfs();
if (probe) execFileSync('umount', [probe]);

describe.skipIf(probe === null)('a really full disk (tmpfs)', () => {
  it('pause answers 503 with ENOSPC from the kernel and the document is intact', async () => {
    const mount = mountTinyTmpfs()!;
    // Files on the tmpfs go with the unmount, so the end-of-run canary scan does not see them;
    // the log this test captures is still scanned.
    scope.defer(mount, (dir) => execFileSync('umount', [dir]));
    const stateRoot = path.join(mount, 'state');
    const w = await world(stateRoot);
    const [taskId] = w.sim.createTasks(1, 'training');
    expect((await w.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId })).status).toBe(200);
    const bytes = await fsp.readFile(documentPath(stateRoot, 'c1'));

    // Fill the disk to the last byte (bounded: the mount is 256 KiB).
    const filler = await fsp.open(path.join(mount, 'filler'), 'w');
    let full = false;
    for (let i = 0; i < 1024 && !full; i++) {
      await filler.write(Buffer.alloc(4096, 1)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOSPC') throw error;
        full = true;
      });
    }
    await filler.close();
    expect(full).toBe(true);

    expect503(await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' }));
    expect(storageErrors(w.lines).map((l) => l.errno)).toEqual(['ENOSPC']);
    expect(await fsp.readFile(documentPath(stateRoot, 'c1'))).toEqual(bytes);

    await fsp.unlink(path.join(mount, 'filler'));
    expect((await w.post('campaign_action', { campaign_id: 'c1', action: 'pause' })).status).toBe(200);
  });
});
