/**
 * A save refused as `fence_stale` (another process took the state root over) is not a storage
 * failure to recover from: the campaign's actor stops where it is — no rewind to the last
 * durable snapshot, no restart — the waiting operator event gets the failure, later events and
 * ticks are answered at once, nothing more is written, and the system reports the loss once.
 * Real owner lock, real store; no remote (none is needed for a pause).
 */
import * as fsp from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_ENVIRONMENT } from '../../machines/campaign.types.js';
import { newCampaignDocument } from '../../persistence/campaign-document.js';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { stateRootOwnership, WHOLE_STATE_ROOT, type HostingRight } from '../../persistence/owner-lock.js';
import { initialMachine } from '../../services/api/campaigns-route.js';
import { createCampaignSystem, type CampaignSystem } from '../../services/campaign/campaign-system.js';
import { removeScratch } from '../fixtures/scratch.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

async function hostedCampaign() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'argus-fence-stale-'));
  cleanup.push(() => removeScratch(root));
  const right = (await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT)) as HostingRight;
  expect(right.ok).toBe(true);
  cleanup.push(() => right.release());
  const store = await openCampaignStore({ root, fence: right });
  const lost: string[] = [];
  const now = () => new Date();
  const system: CampaignSystem = createCampaignSystem({
    store,
    now,
    // No remote at all: nothing discovered, and no Argus runtime.
    environment: () => NO_ENVIRONMENT,
    effects: { controllerId: 'argus-test', remote: null, now },
    onFenceStale: (id, failure) => lost.push(`${id}:${failure.code}`),
  });
  cleanup.push(() => system.stop());
  const createdAt = now();
  const doc = newCampaignDocument({
    campaignId: 'c1',
    objective: 'o',
    createdAt,
    machine: initialMachine({ campaignId: 'c1', controllerId: 'argus-test', maxAttempts: 3, createdAt: createdAt.toISOString() }),
  });
  expect((await system.create(doc)).ok).toBe(true);
  return { root, store, system, host: system.host('c1')!, lost };
}

describe('a fence_stale save', () => {
  it('stops the actor for good: no rewind, no restart, nothing more written', async () => {
    const { root, store, host, lost } = await hostedCampaign();
    expect(host.running).toBe(true);
    const ownerFile = path.join(root, 'owner.json');
    const record = JSON.parse(await fsp.readFile(ownerFile, 'utf8')) as { fencing: number };
    await fsp.writeFile(ownerFile, JSON.stringify({ ...record, claimId: 'the-new-owner', fencing: record.fencing + 1 }));
    const onDisk = await fsp.readFile(path.join(root, 'campaigns', 'c1.json'));
    const writes = store.writes();

    const paused = await host.send({ type: 'PAUSE' });
    expect(paused.save).toMatchObject({ ok: false, code: 'fence_stale' });
    // A rewind would have started a fresh actor from the durable (unpaused) snapshot.
    expect(host.getSnapshot().status).toBe('stopped');
    expect(host.running).toBe(false);
    expect(lost).toEqual(['c1:fence_stale']);

    // Later events are answered at once with the same failure; a tick does nothing.
    const resumed = await host.send({ type: 'RESUME', now: new Date().toISOString() });
    expect(resumed).toMatchObject({ emitted: [], save: { ok: false, code: 'fence_stale' } });
    const started = host.tick({ type: 'TICK', now: new Date().toISOString(), cadenceMs: 60_000, binding: { taskId: null, contextId: null } } as never, () => undefined);
    expect(started).toBe(false);
    await host.whenWritten();
    expect(host.getSnapshot().status).toBe('stopped');
    expect(store.writes()).toBe(writes);
    expect(await fsp.readFile(path.join(root, 'campaigns', 'c1.json'))).toEqual(onDisk);
    expect(lost).toEqual(['c1:fence_stale']);
  });
});
