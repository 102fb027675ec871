import { describe, expect, it } from 'vitest';
import { controlLostDraft, intentAmbiguousDraft, reduceReadFailure } from '../../services/reducer/reducer.js';

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

  it('names the outage, so a replay of its third failure alerts once and the next outage alerts again', () => {
    const a = reduceReadFailure(3, ctx).publicEvents[0]!.dedupeKey;
    // A restart re-reduces the third failure of the same outage, which may have failed
    // differently this time or run at another cadence: the key is the outage's, nothing else.
    const replay = reduceReadFailure(3, { ...ctx, errorCode: 'remote_unreachable', cadenceMs: 60_000 });
    expect(replay.publicEvents[0]!.dedupeKey).toBe(a);
    expect(replay.events[0]!.dedupeKey).toBe(a);
    expect(reduceReadFailure(3, { ...ctx, outageStartedAt: '2030-01-02T00:00:00.000Z' }).publicEvents[0]!.dedupeKey).not.toBe(a);
    expect(reduceReadFailure(3, { ...ctx, campaignId: 'camp-2' }).publicEvents[0]!.dedupeKey).not.toBe(a);
  });

  it('says what failed and since when in the CRITICAL, with no error code when none was given', () => {
    expect(reduceReadFailure(3, ctx).publicEvents[0]!.data).toEqual({
      reason: 'remote_unavailable',
      consecutiveFailures: 3,
      errorCode: 'remote_timeout',
      since: ctx.outageStartedAt,
    });
    const { errorCode: _omitted, ...withoutCode } = ctx;
    expect(reduceReadFailure(3, withoutCode).publicEvents[0]!.data.errorCode).toBeNull();
  });

  it('publishes nothing after the third failure, however long the outage lasts (the reducer, not the outbox)', () => {
    const publics = Array.from({ length: 50 }, (_, i) => reduceReadFailure(i + 1, ctx)).map((r) => r.publicEvents.length);
    expect(publics.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(publics.indexOf(1)).toBe(2);
  });
});

describe('critical drafts for the machine emissions', () => {
  it('one CRITICAL per lost hold: same epoch re-claimed and lost again is a new loss', () => {
    const first = controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch: 7, heldSince: '2030-01-01T00:00:00.000Z' });
    expect(first).toMatchObject({ kind: 'CRITICAL', data: { reason: 'lease_lost_readback', epoch: 7 } });
    // The same hold reported lost again for another reason (renewal failed after a readback) is the same loss.
    const sameHold = controlLostDraft({ campaignId: 'camp-1', reason: 'renewal_failed', epoch: 7, heldSince: '2030-01-01T00:00:00.000Z' });
    expect(sameHold.dedupeKey).toBe(first.dedupeKey);
    const nextHold = controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch: 7, heldSince: '2030-01-01T01:00:00.000Z' });
    expect(nextHold.dedupeKey).not.toBe(first.dedupeKey);
  });

  it('a loss at another epoch, or with no epoch known, is another loss', () => {
    const at = (epoch: number | null) => controlLostDraft({ campaignId: 'camp-1', reason: 'lease_lost_readback', epoch, heldSince: '2030-01-01T00:00:00.000Z' }).dedupeKey;
    expect(new Set([at(7), at(8), at(null)]).size).toBe(3);
  });

  it('one CRITICAL per ambiguous request id, naming the action to resolve', () => {
    expect(intentAmbiguousDraft({ campaignId: 'camp-1', requestId: 'req-1', kind: 'submit' })).toMatchObject({
      kind: 'CRITICAL',
      dedupeKey: 'intent-ambiguous:camp-1:req-1',
      data: { reason: 'intent_ambiguous', requestId: 'req-1', action: 'submit' },
    });
  });
});
