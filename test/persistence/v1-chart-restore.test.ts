/**
 * The migrated v1 snapshots restore into this build's chart (campaign@3) in the states
 * MANIFEST.md records, start nothing, and react to what comes next as the chart's own rules
 * say: a readback that does not show our lease loses control (one CONTROL_LOST), a journaled
 * intent in doubt blocks, a paused campaign resumes into its attention before the pause. Pure
 * chart, no services: the live supervisor's side is v1-continues.test.ts.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { campaignMachine, initialCampaignContext, isQuiescent } from '../../machines/campaign.machine.js';
import { describeStates } from '../../machines/campaign.projection.js';
import type { CampaignEmitted } from '../../machines/campaign.types.js';
import { checkRestorable } from '../../machines/campaign.restore.js';
import { parseCampaignDocument } from '../../persistence/campaign-document.js';
import { v1Fixture, v1FixtureNames } from './support/v1-fixtures.js';

/**
 * MANIFEST.md's "restores into". closed's attention is read from its history (closed.json's
 * history names the old awaiting-review placeholder), which campaign@5 maps to idle like every
 * other snapshot in that placeholder. The authority states are MANIFEST.md's, unchanged.
 */
const RESTORES_INTO: Record<string, { authority: string; attention: string }> = {
  'ambiguous-intent': { authority: 'ambiguous-intent', attention: 'idle' },
  closed: { authority: 'closed', attention: 'idle' },
  controlling: { authority: 'controlling', attention: 'idle' },
  // campaign@4's `awaiting-review` was an inert placeholder (no turn was ever sent): it restores idle.
  'journaled-unsent': { authority: 'controlling', attention: 'idle' },
  'needs-you': { authority: 'observing', attention: 'needs-you' },
  'observing-with-events': { authority: 'observing', attention: 'idle' },
  paused: { authority: 'paused', attention: 'idle' },
  'read-failures': { authority: 'observing', attention: 'idle' },
};

function restore(name: string) {
  const parsed = parseCampaignDocument(v1Fixture(name), name);
  if (!parsed.ok) throw new Error(`${name}: ${parsed.code} ${parsed.reason}`);
  const check = checkRestorable(parsed.doc.machine, parsed.doc.remote);
  if (!check.ok) throw new Error(`${name}: ${check.code} ${check.version}`);
  const emitted: CampaignEmitted[] = [];
  const actor = createActor(campaignMachine, { snapshot: check.snapshot as never, input: { campaignId: name } });
  actor.on('*', (event) => emitted.push(event as CampaignEmitted));
  actor.start();
  return { actor, emitted, context: (parsed.doc.machine.snapshot as { context: unknown }).context };
}

describe('migrated v1 snapshots in the campaign@3 chart', () => {
  it('carry exactly the context keys the chart starts a campaign with', () => {
    const keys = Object.keys(initialCampaignContext({ campaignId: 'x' })).sort();
    for (const name of v1FixtureNames()) expect([name, Object.keys(restore(name).context as object).sort()]).toEqual([name, keys]);
  });

  it.each(v1FixtureNames())('%s restores in its recorded state, quiescent, with the migrated context', (name) => {
    const { actor, emitted, context } = restore(name);
    const snapshot = actor.getSnapshot();
    const states = describeStates(snapshot);
    expect({ authority: states.authority, attention: states.attention }).toEqual(RESTORES_INTO[name]);
    expect(states.heartbeat).toBe(typeof snapshot.value === 'string' ? null : 'idle');
    expect(isQuiescent(snapshot)).toBe(true);
    expect(snapshot.context).toEqual(context);
    expect(emitted).toEqual([]);
    actor.stop();
  });

  it('controlling: a readback that does not show our lease loses control, with one CONTROL_LOST', () => {
    const { actor, emitted } = restore('controlling');
    const requestedAt = new Date().toISOString();
    actor.send({ type: 'LEASE_READBACK', readback: null, requestedAt });
    actor.send({ type: 'LEASE_READBACK', readback: null, requestedAt });
    expect(describeStates(actor.getSnapshot()).authority).toBe('control-lost');
    expect(emitted.filter((e) => e.type === 'CONTROL_LOST')).toEqual([
      { type: 'CONTROL_LOST', campaignId: 'controlling', reason: expect.any(String), epoch: 1, heldSince: '2026-12-01T10:52:39.776Z' },
    ]);
    actor.stop();
  });

  it('journaled-unsent: the intent in doubt moves it to ambiguous-intent, naming that intent', () => {
    const { actor } = restore('journaled-unsent');
    actor.send({ type: 'INTENT_IN_DOUBT', requestId: 'e4ff14f6-b8a8-4a59-a195-5fa88c9a18e5', kind: 'submit' });
    const snapshot = actor.getSnapshot();
    expect(describeStates(snapshot)).toMatchObject({ authority: 'ambiguous-intent', attention: 'idle' });
    expect(snapshot.context.pendingIntent).toMatchObject({ requestId: 'e4ff14f6-b8a8-4a59-a195-5fa88c9a18e5', kind: 'submit' });
    actor.stop();
  });

  it('paused: resumes into observing, its attention before the pause, the heartbeat idle', () => {
    const { actor } = restore('paused');
    actor.send({ type: 'RESUME', now: new Date().toISOString() });
    expect(describeStates(actor.getSnapshot())).toMatchObject({ authority: 'observing', attention: 'idle', heartbeat: 'idle' });
    actor.stop();
  });
});
