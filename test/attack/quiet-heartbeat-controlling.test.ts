/**
 * Attack on the quiet heartbeat beyond the observer case: a campaign that holds the lease (each
 * unchanged read still judges the lease through LEASE_READBACK) and a campaign in read backoff
 * must cost nothing on an unchanged tick: no store write, no document change, no public event.
 * Real loopback simulator, real store.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attached, authorityWorld, type AuthorityWorld } from '../authority/authority-fixture.js';
import { storeWrites, ticks } from '../fixtures/supervisor-harness.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const docPath = (w: AuthorityWorld, id: string) => join(w.root, 'campaigns', `${id}.json`);

describe('an unchanged heartbeat on a controlling campaign', () => {
  it('reads once per tick, keeps the lease, and writes and publishes nothing', async () => {
    world = await authorityWorld();
    const w = world;
    await attached(w, 'held', 'steady');
    await w.supervisor.sweep();
    const claimed = await w.act({ campaign_id: 'held', action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed.error)).toBe(true);
    // One sweep after the claim may record what the claim changed remotely (the lease metadata).
    await w.supervisor.sweep();

    const writes = await storeWrites(w.supervisor);
    const mtime = (await stat(docPath(w, 'held'))).mtimeMs;
    const events = w.publicKinds('held');
    const reads = w.sim.stats().requests['GetTask'] ?? 0;
    const unchanged = await ticks(w.supervisor, 'unchanged');
    for (let i = 0; i < 5; i++) expect(await w.supervisor.sweep()).toMatchObject({ ticked: 1, errors: 0 });

    expect(await ticks(w.supervisor, 'unchanged')).toBe(unchanged + 5);
    expect(w.sim.stats().requests['GetTask']).toBe(reads + 5);
    expect(await storeWrites(w.supervisor)).toBe(writes);
    expect((await stat(docPath(w, 'held'))).mtimeMs).toBe(mtime);
    expect(w.publicKinds('held')).toEqual(events);
    expect((await w.campaign('held')).state).toBe('controlling');
  });
});

describe('a heartbeat on a campaign in read backoff', () => {
  it('neither reads nor writes until the backoff has elapsed', async () => {
    world = await authorityWorld();
    const w = world;
    await attached(w, 'down', 'steady');
    await w.supervisor.sweep();
    w.sim.injectFaults({ kind: 'http-5xx', count: 1, methods: ['GetTask'] });
    const failed = await ticks(w.supervisor, 'failed');
    await w.supervisor.sweep();
    expect(await ticks(w.supervisor, 'failed')).toBe(failed + 1);

    const writes = await storeWrites(w.supervisor);
    const mtime = (await stat(docPath(w, 'down'))).mtimeMs;
    const reads = w.sim.stats().requests['GetTask'] ?? 0;
    const events = w.publicKinds('down');
    for (let i = 0; i < 3; i++) await w.supervisor.sweep();
    // The TICK a sweep would send is refused by the chart's readDue guard too.
    const host = w.supervisor.system!.host('down')!;
    const started = host.tick({ type: 'TICK', now: new Date().toISOString() }, () => undefined);
    expect(started).toBe(false); // nothing started: no read, no renewal, no write to wait for

    expect(w.sim.stats().requests['GetTask']).toBe(reads);
    expect(await storeWrites(w.supervisor)).toBe(writes);
    expect((await stat(docPath(w, 'down'))).mtimeMs).toBe(mtime);
    expect(w.publicKinds('down')).toEqual(events);
  });
});
