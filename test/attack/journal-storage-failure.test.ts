/**
 * Attack on the journal write alone: the state root refuses exactly the write that journals an
 * intervene (EIO), then works again. Nothing may be sent, and the operator must hear what it
 * was: a storage failure (503 storage_unavailable, as every other write answers since issue 7),
 * not a 409 that says the campaign "cannot do that now". Real loopback simulator, real store.
 */
import * as fsp from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { loadConfig } from '../../services/runtime/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';
import { createScope, envFor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('a journal write that fails for an I/O reason', () => {
  it('answers storage_unavailable, sends nothing, and the next intervene goes through', async () => {
    let failNext = false;
    const fs: DurableFs = {
      open: (file, flags, mode) => {
        if (failNext && flags === 'wx') {
          failNext = false;
          return Promise.reject(Object.assign(new Error(`EIO: simulated, open '${file}'`), { code: 'EIO', syscall: 'open', path: file }));
        }
        return fsp.open(file, flags, mode);
      },
      rename: (from, to) => fsp.rename(from, to),
      unlink: (file) => fsp.unlink(file),
      readFile: (file, encoding) => fsp.readFile(file, encoding),
    };
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: sim.url })), storeFs: fs });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    scope.defer(supervisor, (s) => s.stop());
    const [taskId] = sim.createTasks(1, 'training');
    expect((await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId })).ok).toBe(true);
    expect((await supervisor.observe('c1')).ok).toBe(true);
    const claimed = (await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })) as { ok: boolean; value: { lease: { epoch: number } } };
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    const body = { campaign_id: 'c1', action: 'intervene', epoch: claimed.value.lease.epoch, instruction: 'lower lr' };

    failNext = true;
    const refused = await supervisor.campaignAction(body);
    expect(failNext).toBe(false);
    expect(refused.ok ? 'ok' : refused.error.code).toBe('storage_unavailable');
    expect(sim.stats().mutationsApplied.intervene).toBe(0);

    const applied = await supervisor.campaignAction(body);
    expect(applied, JSON.stringify(applied)).toMatchObject({ ok: true, value: { outcome: 'applied' } });
    expect(sim.stats().mutationsApplied.intervene).toBe(1);
  });
});
