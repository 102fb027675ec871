/**
 * Attack on the v1 → v2 migration with v1 documents whose contents a campaign@2 build never
 * wrote together: the migration must either place them in a state the chart can act from, or
 * fail closed (`document_corrupt`, with a reason naming what is wrong), never restore a campaign
 * that no operator action can move. Pure: parse + chart, no services.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { checkRestorable } from '../../machines/campaign.restore.js';
import { parseCampaignDocument } from '../../persistence/campaign-document.js';
import { v1Fixture } from '../persistence/support/v1-fixtures.js';

type Json = Record<string, any>;
const clone = (name: string): Json => JSON.parse(JSON.stringify(v1Fixture(name))) as Json;

function parse(doc: Json) {
  return parseCampaignDocument(doc, doc.campaignId as string);
}

describe('odd v1 documents', () => {
  // Restored, it would sit in controlling with nothing to lapse, renew or release (every
  // lease guard reads a null lease as "not due"), its view claiming control it does not have.
  it('a controlling snapshot without its lease fails closed', () => {
    const doc = clone('controlling');
    doc.machine.snapshot.context.lease = null;
    const parsed = parse(doc);
    expect(parsed.ok ? 'migrated' : parsed.code).toBe('document_corrupt');
    if (!parsed.ok) expect(parsed.reason).toMatch(/lease/);
  });

  it('an observing document with no remote view migrates and restores quiescent (the next read fills it)', () => {
    const doc = clone('read-failures');
    doc.remoteView = null;
    const parsed = parse(doc);
    if (!parsed.ok) throw new Error(`${parsed.code} ${parsed.reason}`);
    const check = checkRestorable(parsed.doc.machine, parsed.doc.remote);
    if (!check.ok) throw new Error(check.code);
    const actor = createActor(campaignMachine, { snapshot: check.snapshot as never, input: { campaignId: doc.campaignId } }).start();
    expect(actor.getSnapshot().context.remote).toBeNull();
    expect(actor.getSnapshot().matches({ active: { authority: 'observing' } } as never)).toBe(true);
    actor.stop();
  });

  it('a v1 lease beside an observing snapshot is not adopted as ours', () => {
    const doc = clone('read-failures');
    doc.lease = { contextId: 'ctx-x', holder: 'argus-openoperator', epoch: 4, expiresAt: '2099-01-01T00:00:00.000Z', ttlSeconds: 600 };
    const parsed = parse(doc);
    if (!parsed.ok) throw new Error(`${parsed.code} ${parsed.reason}`);
    expect((parsed.doc.machine.snapshot as Json).context.lease).toBeNull();
  });

  it('an ambiguous-intent snapshot with no intent in its context or journal fails closed', () => {
    const doc = clone('ambiguous-intent');
    doc.machine.snapshot.context.pendingIntent = null;
    doc.intents = doc.intents.map((i: Json) => ({ ...i, outcome: i.outcome ?? { status: 'not_applied', at: i.createdAt, settledBy: 'readback' } }))
      .map((i: Json) => (i.outcome.status === 'ambiguous' ? { ...i, outcome: { status: 'not_applied', at: i.createdAt, settledBy: 'readback' } } : i));
    const parsed = parse(doc);
    expect(parsed.ok ? 'migrated' : parsed.code).toBe('document_corrupt');
    if (!parsed.ok) expect(parsed.reason).toMatch(/intent/);
  });
});
