import { describe, expect, it } from 'vitest';
import { controlLostDraft, intentAmbiguousDraft, reduceReadFailure } from '../../services/reducer.js';

const ctx = { campaignId: 'camp-1', cadenceMs: 120_000, outageStartedAt: '2030-01-01T00:00:00.000Z', errorCode: 'remote_timeout' };

describe('reduceReadFailure', () => {
  it.each([
    [1, false, 120_000],
    [2, false, 240_000],
    [3, true, 480_000],
    [4, false, 960_000],
    [5, false, 1_800_000], // 1,920,000 capped at 30 minutes
    [9, false, 1_800_000],
  ])('failure #%i: critical=%s, next read in %i ms', (n, critical, backoffMs) => {
    const r = reduceReadFailure(n, ctx);
    expect(r.critical).toBe(critical);
    expect(r.backoffMs).toBe(backoffMs);
    expect(r.publicEvents.length).toBe(critical ? 1 : 0);
  });

  it('raises REMOTE_UNAVAILABLE and one CRITICAL, and never invents a failed attempt', () => {
    const all = [1, 2, 3, 4, 5, 6].map((n) => reduceReadFailure(n, ctx));
    expect(all.flatMap((r) => r.events.map((e) => `${e.class}:${e.reason}`))).toEqual(['REMOTE_UNAVAILABLE:remote_unavailable']);
    expect(all.flatMap((r) => r.publicEvents.map((p) => p.kind))).toEqual(['CRITICAL']);
  });

  it('names the outage, so the same outage alerts once and the next one alerts again', () => {
    const a = reduceReadFailure(3, ctx).publicEvents[0]!.dedupeKey;
    expect(reduceReadFailure(3, ctx).publicEvents[0]!.dedupeKey).toBe(a);
    expect(reduceReadFailure(3, { ...ctx, outageStartedAt: '2030-01-02T00:00:00.000Z' }).publicEvents[0]!.dedupeKey).not.toBe(a);
  });
});

describe('critical drafts for the machine emissions', () => {
  it('one CRITICAL per lost hold: same epoch re-claimed and lost again is a new loss', () => {
    const first = controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch: 7, heldSince: '2030-01-01T00:00:00.000Z' });
    expect(first).toMatchObject({ kind: 'CRITICAL', data: { reason: 'lease_lost_readback', epoch: 7 } });
    const again = controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch: 7, heldSince: '2030-01-01T00:00:00.000Z' });
    expect(again.dedupeKey).toBe(first.dedupeKey);
    const nextHold = controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch: 7, heldSince: '2030-01-01T01:00:00.000Z' });
    expect(nextHold.dedupeKey).not.toBe(first.dedupeKey);
  });

  it('one CRITICAL per ambiguous request id', () => {
    expect(intentAmbiguousDraft({ campaignId: 'camp-1', requestId: 'req-1', kind: 'submit' }).dedupeKey).toBe('intent-ambiguous:camp-1:req-1');
  });
});
