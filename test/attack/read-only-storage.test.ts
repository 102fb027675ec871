/**
 * Attack on the state root's permissions (issue 19, defect 12): the file system refuses the
 * campaign lock's directory with EROFS (a read-only remount), EPERM or EACCES. Each refusal is
 * the same on every attempt, so the lock must not retry it: observe and pause answer 503
 * `storage_unavailable` after exactly one lock attempt each (the old lock retried 60 times,
 * ~27.5 s a request), and work again once the storage does. Counting attempts, not timing.
 */
import * as fsp from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { storeFaultWorld } from '../fixtures/store-fault-world.js';
import { createScope } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

/** The store's calls, with the lock's mkdir counted and failing with `failing` when set. */
function lockRefusingFs() {
  const state = { failing: null as string | null, lockAttempts: 0 };
  const fs: DurableFs = {
    open: (file, flags, mode) => fsp.open(file, flags, mode),
    rename: (from, to) => fsp.rename(from, to),
    unlink: (file) => fsp.unlink(file),
    readFile: (file, encoding) => fsp.readFile(file, encoding),
    mkdir: async (dir) => {
      state.lockAttempts++;
      if (state.failing) throw Object.assign(new Error(`${state.failing}: simulated, mkdir '${dir}'`), { code: state.failing, syscall: 'mkdir', path: dir });
      await fsp.mkdir(dir);
    },
  };
  return { fs, state };
}

describe('a state root that refuses the lock for good', () => {
  it.each(['EROFS', 'EPERM', 'EACCES'])('%s: observe and pause answer storage_unavailable after one lock attempt, and work once the storage does', async (errno) => {
    const { fs, state } = lockRefusingFs();
    const { supervisor } = await storeFaultWorld(scope, fs);
    expect(state.lockAttempts).toBeGreaterThan(0); // the lock does go through the injected fs

    state.failing = errno;
    state.lockAttempts = 0;
    const observed = await supervisor.observe('c1');
    expect(observed.ok ? 'ok' : observed.error.code).toBe('storage_unavailable');
    expect(state.lockAttempts).toBe(1);

    state.lockAttempts = 0;
    const paused = await supervisor.campaignAction({ campaign_id: 'c1', action: 'pause' });
    expect(paused.ok ? 'ok' : paused.error.code).toBe('storage_unavailable');
    expect(state.lockAttempts).toBe(1);

    state.failing = null;
    const again = await supervisor.campaignAction({ campaign_id: 'c1', action: 'pause' });
    expect(again, JSON.stringify(again)).toMatchObject({ ok: true });
  });
});
