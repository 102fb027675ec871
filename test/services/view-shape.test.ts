/**
 * Per-campaign memory of the views: 10,000 live summaries share one hidden class only if their
 * lazy `allowed_actions` is one getter function (a getter closure per view gave every view a
 * class of its own, ~1 KB each). What the view shows is unchanged: an own, enumerable property,
 * computed when read, serialized by JSON.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { projectCampaign, type CampaignFacts, type CampaignSnapshot } from '../../services/api/campaign-projection.js';

const facts = (campaignId: string): CampaignFacts => ({
  campaignId,
  objective: 'view shape',
  binding: { taskId: null, contextId: null, attached: false },
  openIntent: null,
  consumedDecisions: [],
});

describe('campaign views', () => {
  it('share one allowed_actions getter, computed per view when read', () => {
    const snapshot = createActor(campaignMachine, { input: { campaignId: 'v1' } as never }).getSnapshot() as CampaignSnapshot;
    let asked = 0;
    const a = projectCampaign(facts('v1'), snapshot, { lastReadAt: null, allowedActions: () => (asked++, ['pause']) });
    const b = projectCampaign(facts('v2'), snapshot, { lastReadAt: null, allowedActions: () => ['close'] });
    const getterOf = (view: object) => Object.getOwnPropertyDescriptor(view, 'allowed_actions')?.get;
    expect(getterOf(a)).toBeTypeOf('function');
    expect(getterOf(a)).toBe(getterOf(b));
    expect(asked).toBe(0);
    expect(a.allowed_actions).toEqual(['pause']);
    expect(b.allowed_actions).toEqual(['close']);
    expect(asked).toBe(1);
    expect(Object.keys(a).at(-1)).toBe('allowed_actions');
    expect(JSON.parse(JSON.stringify(a)).allowed_actions).toEqual(['pause']);
    expect({ ...b }.allowed_actions).toEqual(['close']);
  });
});
