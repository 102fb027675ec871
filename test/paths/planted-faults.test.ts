/**
 * The driven paths must fail when the running system disagrees with the model (issue 21). Three
 * faults are planted one at a time into the real classes of this process, and the committed
 * plan's paths are driven against each: every fault must make at least one path disagree.
 * Nothing here says where to look: the paths run in plan order until one disagrees, and the
 * check is only that the disagreement is the fault's kind (docs/planted-bugs.md records which
 * path caught each when this was written).
 *
 * - A view that caches `allowed_actions` (the first answer per campaign, forever).
 * - A host that drops an emitted public event (every PUBLIC_DRAFTS the chart emits).
 * - A scheduler that skips a campaign without a task (the heartbeat never ticks it).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CampaignActions } from '../../services/api/campaign-actions.js';
import { CampaignHost } from '../../services/campaign/campaign-host.js';
import { FleetTime } from '../../services/runtime/fleet-time.js';
import type { CampaignEmitted } from '../../machines/campaign.emitted.js';
import { readPlan } from './driven-suite.js';
import { runPath } from './run-path.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Drives the paths from these roots in plan order until one disagrees: that one, and why (printed for docs/planted-bugs.md). */
async function caught(roots: string[]): Promise<{ target: string; problem: string }[]> {
  for (const path of readPlan().paths.filter((p) => roots.includes(p.root))) {
    const result = await runPath(path);
    if (result.status !== 'disagree') continue;
    console.log(`caught by "${result.target}": ${result.problem}`);
    return [{ target: result.target, problem: result.problem }];
  }
  return [];
}

describe('planted faults are caught by the driven paths', { timeout: 120_000 }, () => {
  it('a view that caches allowed_actions', async () => {
    const real = CampaignActions.prototype.allowedActions;
    const cached = new Map<string, string[]>();
    vi.spyOn(CampaignActions.prototype, 'allowedActions').mockImplementation(function (this: CampaignActions, host, snapshot) {
      if (!cached.has(host.id)) cached.set(host.id, real.call(this, host, snapshot));
      return [...cached.get(host.id)!];
    });
    const found = await caught(['start']);
    expect(found.length, 'paths that caught the cached allowed_actions').toBeGreaterThan(0);
    expect(found[0]!.problem).toMatch(/^allowed_actions /);
  });

  it('a host that drops an emitted public event', async () => {
    const proto = CampaignHost.prototype as unknown as { onEmitted(event: CampaignEmitted): void };
    const real = proto.onEmitted;
    vi.spyOn(proto, 'onEmitted').mockImplementation(function (this: CampaignHost, event: CampaignEmitted) {
      if (event.type === 'PUBLIC_DRAFTS') return;
      real.call(this, event);
    });
    const found = await caught(['start']);
    expect(found.length, 'paths that caught the dropped public event').toBeGreaterThan(0);
    expect(found[0]!.problem).toMatch(/^the outbox gained /);
  });

  it('a scheduler that skips a campaign without a task', async () => {
    const real = FleetTime.prototype.dueCampaigns;
    vi.spyOn(FleetTime.prototype, 'dueCampaigns').mockImplementation(function* (this: FleetTime) {
      const self = this as unknown as { deps: { host(id: string): CampaignHost | undefined } };
      for (const id of real.call(this)) if (self.deps.host(id)?.getSnapshot().context.binding.taskId != null) yield id;
    });
    const found = await caught(['unbound']);
    expect(found.length, 'paths that caught the skipped campaign').toBeGreaterThan(0);
    expect(found[0]!.problem).toBe('TICK was performed but the campaign actor never received it');
  });
});
