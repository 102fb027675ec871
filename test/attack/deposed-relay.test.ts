/**
 * Attack on the ownership seam from the relay's side: a supervisor that holds a campaign's lease
 * is deposed (owner.json names another owner with a greater fence). Its journal write is fenced,
 * so an intervene must send nothing and answer 503 not_owner; its heartbeat then reads and
 * writes nothing (its actors are stopped). Real loopback simulator, real store.
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attached, authorityWorld, type AuthorityWorld } from '../authority/authority-fixture.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('a deposed supervisor holding a lease', () => {
  it('relays nothing and answers not_owner', async () => {
    world = await authorityWorld();
    const w = world;
    const taskId = await attached(w, 'c1', 'training');
    const claimed = await w.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed.error)).toBe(true);
    const doc = path.join(w.root, 'campaigns', 'c1.json');
    const ownerFile = path.join(w.root, 'owner.json');
    const record = JSON.parse(await fsp.readFile(ownerFile, 'utf8')) as { pid: number; fencing: number };
    await fsp.writeFile(ownerFile, JSON.stringify({ ...record, pid: record.pid + 1, claimId: 'the-new-owner', fencing: record.fencing + 1 }));
    const bytes = await fsp.readFile(doc);

    const answer = await w.act({ campaign_id: 'c1', action: 'intervene', epoch: claimed.value.lease.epoch, instruction: 'lower lr' });
    expect(answer.ok ? 'ok' : answer.error!.code).toBe('not_owner');
    expect(w.sim.stats().requests['opentraining.control/intervene'] ?? 0).toBe(0);
    w.sim.advance(taskId);
    const reads = w.sim.stats().requests;
    await w.supervisor.sweep();
    expect(w.sim.stats().requests).toEqual(reads);
    expect(await fsp.readFile(doc)).toEqual(bytes);
    const again = await w.act({ campaign_id: 'c1', action: 'intervene', epoch: claimed.value.lease.epoch, instruction: 'lower lr' });
    expect(again.ok).toBe(false);
    expect(w.sim.stats().requests['opentraining.control/intervene'] ?? 0).toBe(0);
  });
});
