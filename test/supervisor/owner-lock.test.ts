/**
 * One owner per state root, with real `serve` children (dist/: run `npm run build` first):
 * a second `serve` on a live owner's root exits 2 at once with one line naming the owner's
 * pid; after the owner is SIGKILLed, the next `serve` takes the root over immediately (no
 * stale-time wait). In process, an embedding host's second `start()` on the same root is
 * refused too, and a stopped supervisor gives the root back.
 */
import { spawn } from 'node:child_process';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidAlive, stateRootOwnership, WHOLE_STATE_ROOT } from '../../persistence/owner-lock.js';
import { loadConfig } from '../../services/config/config.js';
import { StartupFailure } from '../../services/runtime/startup-failure.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { canary } from '../fixtures/canary.js';
import { CLI_ENTRY, REPO_ROOT, createScope, spawnServe, startServe, tempStateRoot } from '../fixtures/supervisor-harness.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const KEY = canary('owner-api-key');
const scope = createScope();
afterEach(() => scope.dispose());

const ownerRecord = async (root: string) => JSON.parse(await readFile(path.join(root, 'owner.json'), 'utf8')) as { pid: number; fencing: number; releasedAt: string | null };

/** Wall time of one CLI run that is expected to end on its own (bounded: 20 s). */
async function timedRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  recordChildOutput(child, 'owner-lock-cli');
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr, ms: Date.now() - started };
}

describe('serve: one owner per state root', () => {
  it('a second serve on a live owner\'s root exits 2 at once with one line naming the owner', async () => {
    const stateRoot = await tempStateRoot(scope);
    const env = { ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_API_KEY: KEY, HOST: '127.0.0.1', PORT: '0' };
    const owner = await spawnServe(scope, env, KEY);
    // Node's own start-up time on this machine right now, so the bound tracks the load.
    const baseline = await timedRun(['--version'], {});
    const second = await timedRun(['serve'], env);
    expect(second.code).toBe(2);
    const lines = second.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([`state_root_locked: ${stateRoot} is owned by pid ${owner.pid}`]);
    expect(second.stderr).not.toMatch(/^\s+at /m);
    // It never waits on the owner: the 2 s, or Node's start-up plus a second under load.
    expect(second.ms).toBeLessThan(Math.max(2000, baseline.ms + 1000));
    console.info(`state_root_locked after ${second.ms} ms (node --version took ${baseline.ms} ms)`);
    // The owner was not disturbed.
    expect((await owner.api('status')).status).toBe(200);
    expect((await ownerRecord(stateRoot)).pid).toBe(owner.pid);
  });

  it('after SIGKILL of the owner, the next serve takes the root over at once', async () => {
    const stateRoot = await tempStateRoot(scope);
    const env = { ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ARGUS_SUPERVISOR_API_KEY: KEY };
    const first = await spawnServe(scope, env, KEY);
    const fencing = (await ownerRecord(stateRoot)).fencing;
    first.child.kill('SIGKILL');
    await first.exited;
    // The dead owner's record is still there (SIGKILL runs no clean-up): it is what gets taken over.
    expect((await ownerRecord(stateRoot)).releasedAt).toBeNull();
    const next = startServe(scope, env, KEY);
    const ready = await next.ready;
    expect((await ready.api('status')).status).toBe(200);
    const record = await ownerRecord(stateRoot);
    expect(record.pid).toBe(next.pid);
    expect(record.fencing).toBe(fencing + 1);
    expect(next.stderr.join('\n')).not.toContain('state_root_locked');
  });
});

describe('createSupervisor: an embedding host is protected too', () => {
  it('refuses a second start() on the same root in the same process, and a stopped one gives it back', async () => {
    const stateRoot = await tempStateRoot(scope);
    const config = loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: stateRoot });
    const first = await createSupervisor({ config });
    await first.start({ heartbeat: false, initialSweep: false });
    scope.defer(first, (s) => s.stop());
    const second = await createSupervisor({ config });
    const refused = await second.start({ heartbeat: false, initialSweep: false }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StartupFailure);
    expect(refused).toMatchObject({ code: 'state_root_locked', message: `${stateRoot} is owned by pid ${process.pid}` });
    await first.stop();
    expect((await ownerRecord(stateRoot)).releasedAt).not.toBeNull();
    const third = await createSupervisor({ config });
    await third.start({ heartbeat: false, initialSweep: false });
    scope.defer(third, (s) => s.stop());
    expect((await ownerRecord(stateRoot)).fencing).toBe(2);
  });
});

describe('the owner record', () => {
  it('a record naming a dead pid is taken over; a live pid is not', async () => {
    const stateRoot = await tempStateRoot(scope);
    const gone = spawn(process.execPath, ['-e', '0']);
    const deadPid = gone.pid!;
    await new Promise((resolve) => gone.once('close', resolve));
    expect(pidAlive(deadPid)).toBe(false);
    const record = (pid: number, host = os.hostname()) => JSON.stringify({ pid, host, fencing: 7, acquiredAt: new Date().toISOString(), releasedAt: null });

    await writeFile(path.join(stateRoot, 'owner.json'), record(deadPid));
    const taken = await stateRootOwnership({ root: stateRoot }).claim(WHOLE_STATE_ROOT);
    expect(taken).toMatchObject({ ok: true, fence: 8 });
    if (taken.ok) await taken.release();

    const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    scope.defer(alive, (c) => c.kill('SIGKILL'));
    await writeFile(path.join(stateRoot, 'owner.json'), record(alive.pid!));
    expect(await stateRootOwnership({ root: stateRoot }).claim(WHOLE_STATE_ROOT)).toMatchObject({ ok: false, code: 'state_root_locked', pid: alive.pid });
  });

  it('a record from another host is live while touched and stale after 30 s', async () => {
    const stateRoot = await tempStateRoot(scope);
    const file = path.join(stateRoot, 'owner.json');
    await writeFile(file, JSON.stringify({ pid: 1, host: 'another-host.example', fencing: 3, acquiredAt: '', releasedAt: null }));
    expect(await stateRootOwnership({ root: stateRoot }).claim(WHOLE_STATE_ROOT)).toMatchObject({
      ok: false,
      code: 'state_root_locked',
      message: `${stateRoot} is owned by pid 1 on host another-host.example`,
    });
    const old = new Date(Date.now() - 31_000);
    await utimes(file, old, old);
    const taken = await stateRootOwnership({ root: stateRoot }).claim(WHOLE_STATE_ROOT);
    expect(taken).toMatchObject({ ok: true, fence: 4 });
    if (taken.ok) await taken.release();
  });
});
