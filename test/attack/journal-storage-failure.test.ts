/**
 * Attack on the journal write alone: the state root refuses exactly the write that journals an
 * intervene (EIO), then works again. Nothing may be sent, and the operator must hear what it
 * was: a storage failure (503 storage_unavailable, as every other write answers since issue 7),
 * not a 409 that says the campaign "cannot do that now". Real loopback simulator, real store.
 */
import * as fsp from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { DurableFs } from '../../persistence/durable-json-adapter.js';
import { storeFaultWorld } from '../fixtures/store-fault-world.js';
import { createScope } from '../fixtures/supervisor-harness.js';

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
    const { sim, supervisor } = await storeFaultWorld(scope, fs);
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
