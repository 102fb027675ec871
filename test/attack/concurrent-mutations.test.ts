/**
 * Attack on one campaign's mutation door from several callers at once: concurrent intervenes
 * with the same Idempotency-Key, with different keys, and without one, interleaved with a
 * heartbeat sweep. Exactly one reaches the remote; every other caller gets a refusal or the
 * first one's answer, never a second relay. Real loopback simulator, real store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attached, authorityWorld, type AuthorityWorld } from '../authority/authority-fixture.js';

let world: AuthorityWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe('concurrent mutations on one campaign', () => {
  it('relay exactly once whatever keys the callers send', { timeout: 20_000 }, async () => {
    world = await authorityWorld();
    const w = world;
    const taskId = await attached(w, 'c1', 'training');
    const claimed = await w.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok, JSON.stringify(claimed.error)).toBe(true);
    const epoch = claimed.value.lease.epoch as number;
    w.sim.advance(taskId);
    const body = { campaign_id: 'c1', action: 'intervene', epoch, instruction: 'lower lr' };
    const s = w.supervisor;
    const answers = await Promise.all([
      s.campaignAction(body, { idempotencyKey: 'key-aaaaaaaa-1' }),
      s.campaignAction(body, { idempotencyKey: 'key-aaaaaaaa-1' }),
      s.sweep().then(() => ({ ok: true, value: 'sweep' })),
      s.campaignAction(body, { idempotencyKey: 'key-bbbbbbbb-2' }),
      s.campaignAction(body),
      s.campaignAction({ ...body, epoch: epoch + 1 }),
    ]);
    await s.system!.host('c1')!.whenWritten();
    expect(w.sim.stats().mutationsApplied.intervene).toBe(1);
    const applied = answers.filter((a) => a.ok && (a.value as { outcome?: string }).outcome === 'applied');
    expect(applied).toHaveLength(1);
    const refused = answers.filter((a) => !a.ok).map((a) => (a as { error: { code: string } }).error.code);
    expect(refused).toHaveLength(4);
    for (const code of refused) expect(['mutation_in_progress', 'effect_in_flight', 'lease_stale_epoch']).toContain(code);
    // A key whose request was refused (nothing changed) may be retried: it runs once, and
    // its answer is kept, so asking again replays it without a second relay.
    const retried = await s.campaignAction(body, { idempotencyKey: 'key-bbbbbbbb-2' });
    expect(retried, JSON.stringify(retried)).toMatchObject({ ok: true, value: { outcome: 'applied' } });
    expect(await s.campaignAction(body, { idempotencyKey: 'key-bbbbbbbb-2' })).toEqual({ ...retried, replayed: true });
    expect(w.sim.stats().mutationsApplied.intervene).toBe(2);
    const doc = await s.store!.load('c1');
    if (!doc.ok) throw new Error(doc.reason);
    expect(doc.doc.intents.filter((i) => i.action === 'intervene')).toHaveLength(2);
  });
});
