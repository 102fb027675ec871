/**
 * A crash right after the intent was journaled and before its outcome was written leaves an
 * intent with no outcome. The request may or may not have reached the remote, so the restart
 * records it as in doubt (`ambiguous`, `restart_in_doubt`) — never `not_applied`, never resent —
 * and only a readback by its request id settles it. The document is written here as that crash
 * leaves it; the chaos qualification does the same with a real SIGKILL.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { recordIntent } from '../../persistence/intent-journal.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { attachedFinished, authorityWorld, type AuthorityWorld } from './authority-fixture.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('an intent journaled without an outcome, at restart', () => {
  it('restores in doubt, sends nothing, and the readback settles it as not applied', async () => {
    world = await authorityWorld();
    await attachedFinished(world, 'c1');
    const epoch = (await world.act({ campaign_id: 'c1', action: 'claim' })).value.lease.epoch as number;
    await world.supervisor.stop();

    // What a SIGKILL between the journal's fsync and the send leaves on disk.
    const requestId = randomUUID();
    const store = await openCampaignStore({ root: world.root });
    const journaled = await store.transact('c1', (doc) => {
      const next = recordIntent(doc, { requestId, action: 'submit', epoch, payloadDigest: digestPayload({ text: 'attempt 2' }), createdAt: new Date() });
      if (!next.ok) throw new Error(next.reason);
      return next.doc;
    });
    expect(journaled.ok).toBe(true);
    const sendsBefore = world.sim.stats().requests['SendMessage'] ?? 0;

    await world.restart();
    expect((await world.campaign('c1')).state).toBe('ambiguous-intent');
    const restored = await world.supervisor.store!.load('c1');
    if (!restored.ok) throw new Error(restored.reason);
    expect(restored.doc.intents.find((i) => i.requestId === requestId)?.outcome).toMatchObject({ status: 'ambiguous', code: 'restart_in_doubt' });

    const resolved = await world.act({ campaign_id: 'c1', action: 'resolve_intent' });
    expect(resolved.value).toMatchObject({ request_id: requestId, status: 'not_applied' });
    expect(world.sim.stats().requests['SendMessage'] ?? 0).toBe(sendsBefore);
    expect(world.sim.stats().duplicateRequestIdHits).toBe(0);
  });
});
