/**
 * The live feed's costs, on a real read model: a burst of updates to one campaign becomes one
 * message with its latest view, within 250 ms; two campaigns stay two messages; nothing of the
 * feed runs while no one listens (activeStates is never asked, no timer is armed).
 */
import { describe, expect, it } from 'vitest';
import { LiveFeed, type LiveMessage } from '../../services/api/live-feed.js';
import { createReadModel, type CampaignSummary } from '../../services/api/read-model.js';

const summary = (id: string, stage: string): CampaignSummary =>
  ({ campaign_id: id, objective: 'o', state: 'observing', attention: 'idle', remote: { stage } }) as unknown as CampaignSummary;

function world() {
  const readModel = createReadModel();
  const asked: string[] = [];
  const feed = new LiveFeed({ readModel, activeStates: (id) => (asked.push(id), [`campaign.${id}`]) });
  return { readModel, asked, feed };
}

describe('LiveFeed', () => {
  it('coalesces a burst per campaign into one message with the latest view, within 250 ms', async () => {
    const { readModel, asked, feed } = world();
    const got: { m: LiveMessage; at: number }[] = [];
    const unsubscribe = feed.subscribe((m) => got.push({ m, at: Date.now() }));
    const start = Date.now();
    for (let i = 0; i < 100; i++) readModel.trigger.campaignUpdated({ summary: summary('a', `s${i}`) });
    readModel.trigger.campaignUpdated({ summary: summary('b', 'only') });
    await new Promise((r) => setTimeout(r, 300));
    expect(got.map(({ m }) => [m.kind, m.campaignId])).toEqual([['campaign', 'a'], ['campaign', 'b']]);
    expect(JSON.parse(got[0]!.m.json)).toEqual({ campaign: summary('a', 's99'), active: ['campaign.a'] });
    expect(got[0]!.at - start).toBeLessThanOrEqual(250);
    expect(asked).toEqual(['a', 'b']);
    readModel.trigger.publicEventsAppended({ events: [{ id: 'a:1', seq: 1, kind: 'CRITICAL', campaign_id: 'a', at: 'now', summary: 's', data: {} }] });
    expect(got.at(-1)!.m).toMatchObject({ kind: 'public', campaignId: 'a', data: { id: 'a:1' } });
    unsubscribe();
    expect(feed.attached).toBe(false);
  });

  it('does nothing per change while no one listens, and drops what was pending when the last one leaves', async () => {
    const { readModel, asked, feed } = world();
    for (let i = 0; i < 1000; i++) readModel.trigger.campaignUpdated({ summary: summary(`c${i % 10}`, `s${i}`) });
    const got: LiveMessage[] = [];
    const unsubscribe = feed.subscribe((m) => got.push(m));
    readModel.trigger.campaignUpdated({ summary: summary('c1', 'late') });
    unsubscribe();
    await new Promise((r) => setTimeout(r, 200));
    expect(asked).toEqual([]);
    expect(got).toEqual([]);
    expect([feed.attached, feed.listenerCount]).toEqual([false, 0]);
  });

  it('a listener that throws is dropped, never reaching back into the read model update', () => {
    const { readModel, feed } = world();
    feed.subscribe(() => {
      throw new Error('broken client');
    });
    expect(() => readModel.trigger.publicEventsAppended({ events: [{ id: 'a:1', seq: 1, kind: 'CRITICAL', campaign_id: 'a', at: 'now', summary: 's', data: {} }] })).not.toThrow();
    expect([feed.attached, feed.listenerCount]).toEqual([false, 0]);
  });
});
