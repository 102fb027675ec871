/**
 * Renewal spread: leases granted in the same beat (a takeover claims a whole share at once; the
 * soak claims 10,000 together) must not renew in the same beat forever after. The first renewal
 * after a grant falls at the lease's own point of the window (`renewalSpreadOf`); every later
 * one at the rule's own point, so the phases stay apart and the rate is what it was. Checked on
 * the rule over many renewals at the configuration's corners, and on the chart.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { leaseDueForRenewal, renewalSpreadOf } from '../../machines/campaign.guards.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { OurLease } from '../../machines/campaign.types.js';
import { CADENCE_MS, CLAIM_OUTPUTS, claimEvent, done, EXPIRES, FACTS, NOW, tick, US } from './graph-events.js';

const iso = (ms: number) => new Date(ms).toISOString();
const ids = Array.from({ length: 200 }, (_, i) => `campaign-${i}`);
type Spread = (id: string, expiresAt: string) => number;

/** Heartbeat and TTL pairs the configuration accepts (60 s ≤ beat, 2 beats ≤ TTL ≤ 3,600 s), defaults first. */
const CORNERS = [
  [600, 120],
  [120, 60],
  [240, 60],
  [600, 60],
  [3600, 60],
  [3600, 600],
  [3600, 1800],
] as const;

/**
 * Each campaign's renewals over `beats` beats: granted within the 5 s before beat 0 (a takeover's
 * burst of claims), renewed at the beats the rule says, each renewal granting TTL from then.
 */
function renewals(ttlSeconds: number, cadenceMs: number, beats: number, spreadOf: Spread) {
  const t0 = Date.parse(NOW);
  return ids.map((id, i) => {
    const grantedAt = t0 - ((i * 7919) % 5_000);
    let lease: OurLease = { epoch: 1, contextId: 'ctx', ttlSeconds, heldSince: iso(grantedAt), confirmedAt: iso(grantedAt), expiresAt: iso(grantedAt + ttlSeconds * 1000) };
    const renewedAt: { beat: number; remainingMs: number; sinceLastMs: number }[] = [];
    let last = grantedAt;
    for (let beat = 1; beat <= beats; beat++) {
      const now = t0 + beat * cadenceMs;
      if (!leaseDueForRenewal(lease, iso(now), cadenceMs, spreadOf(id, lease.expiresAt))) continue;
      renewedAt.push({ beat, remainingMs: Date.parse(lease.expiresAt) - now, sinceLastMs: now - last });
      lease = { ...lease, confirmedAt: iso(now), expiresAt: iso(now + ttlSeconds * 1000) };
      last = now;
    }
    return renewedAt;
  });
}

const peakPerBeat = (runs: { beat: number }[][]) => {
  const perBeat = new Map<number, number>();
  for (const run of runs) for (const r of run) perBeat.set(r.beat, (perBeat.get(r.beat) ?? 0) + 1);
  return Math.max(...perBeat.values());
};
const total = (runs: unknown[][]) => runs.reduce((n, run) => n + run.length, 0);

describe('renewal spread', () => {
  it('is a fraction of the campaign id and the lease expiry, spread over [0, 1)', () => {
    const spreads = ids.map((id) => renewalSpreadOf(id, EXPIRES));
    expect(spreads.every((s) => s >= 0 && s < 1)).toBe(true);
    expect(renewalSpreadOf('campaign-7', EXPIRES)).toBe(spreads[7]);
    expect(renewalSpreadOf('campaign-7', NOW)).not.toBe(spreads[7]);
    // Every decile used: ids that differ in their last characters do not bunch up.
    expect(new Set(spreads.map((s) => Math.floor(s * 10))).size).toBe(10);
  });

  it('never says later than the rule without it, at any remaining time, spread or corner', () => {
    for (const [ttlSeconds, cadenceMs] of CORNERS.map(([t, c]) => [t, c * 1000] as const)) {
      for (const first of [true, false]) {
        const lease: OurLease = { epoch: 1, contextId: 'ctx', ttlSeconds, heldSince: NOW, confirmedAt: first ? NOW : EXPIRES, expiresAt: iso(Date.parse(NOW) + ttlSeconds * 1000) };
        for (let remaining = 0; remaining <= ttlSeconds * 1000; remaining += 5_000) {
          const now = iso(Date.parse(lease.expiresAt) - remaining);
          if (!leaseDueForRenewal(lease, now, cadenceMs, 0)) continue;
          for (const spread of [0, 0.25, 0.5, 0.999]) expect(leaseDueForRenewal(lease, now, cadenceMs, spread)).toBe(true);
        }
      }
    }
  });

  it('at every corner: at most one renewal more per lease than the rule makes, and none the spread makes on the beat after a grant', () => {
    for (const [ttlSeconds, cadenceSeconds] of CORNERS) {
      const cadenceMs = cadenceSeconds * 1000;
      const due = Math.max((ttlSeconds * 1000) / 2, 2.2 * cadenceMs);
      const spread = renewals(ttlSeconds, cadenceMs, 120, renewalSpreadOf);
      const together = renewals(ttlSeconds, cadenceMs, 120, () => 0);
      // At most one renewal more per lease: the first one, earlier.
      expect(total(spread)).toBeLessThanOrEqual(total(together) + ids.length);
      for (const run of spread) {
        expect(run.length).toBeGreaterThan(0);
        for (const { remainingMs, sinceLastMs } of run) {
          // A renewal the rule alone would not have made yet is at least a beat and a half
          // after the grant (the rule itself renews every beat when TTL is under 3.2 beats).
          if (remainingMs > due) expect(sinceLastMs).toBeGreaterThanOrEqual(1.5 * cadenceMs);
        }
      }
    }
  });

  it('spreads leases granted in one beat, and they stay apart', () => {
    // TTL 3,600 s, 60 s beats (the soak): 200 leases in one beat without the spread, every time.
    const soak = renewals(3600, 60_000, 600, renewalSpreadOf);
    expect(peakPerBeat(renewals(3600, 60_000, 600, () => 0))).toBe(ids.length);
    expect(new Set(soak.map((r) => r[0]!.beat)).size).toBeGreaterThanOrEqual(20);
    expect(peakPerBeat(soak)).toBeLessThanOrEqual(ids.length / 10);
    expect(peakPerBeat(soak.map((run) => run.filter((r) => r.beat >= 300)))).toBeLessThanOrEqual(ids.length / 10);
    // The defaults (TTL 600 s, 120 s beats) leave two beats to choose from: about half in each.
    const defaults = renewals(600, 120_000, 60, renewalSpreadOf);
    expect(peakPerBeat(renewals(600, 120_000, 60, () => 0))).toBe(ids.length);
    expect(peakPerBeat(defaults)).toBeLessThanOrEqual(ids.length * 0.65);
    expect(peakPerBeat(defaults.map((run) => run.filter((r) => r.beat >= 30)))).toBeLessThanOrEqual(ids.length * 0.65);
  });

  it('is what the chart renews by: the first renewal at each lease’s own beat, the next at the rule’s', () => {
    const beatsOf = (campaignId: string) => {
      let [s] = initialTransition(campaignMachine, { campaignId, controllerId: US, maxAttempts: 3, ...FACTS });
      [s] = transition(campaignMachine, s, claimEvent());
      [s] = transition(campaignMachine, s, done('claimLease', CLAIM_OUTPUTS[0]!));
      const renewedAt: number[] = [];
      for (let beat = 1; beat <= 20 && renewedAt.length < 2; beat++) {
        const now = Date.parse(NOW) + beat * CADENCE_MS;
        const [next] = transition(campaignMachine, s, tick({ now: iso(now) }));
        s = next;
        if (!s.matches({ active: { authority: { controlling: 'renewing' } } })) continue;
        renewedAt.push(beat);
        const renewed = { holder: US, epoch: CLAIM_OUTPUTS[0]!.claimed!.epoch, expiresAt: iso(now + 600_000), readAt: iso(now) };
        [s] = transition(campaignMachine, s, done('renewLease', { lease: renewed, code: null }));
        expect(s.matches({ active: { authority: { controlling: 'ready' } } })).toBe(true);
      }
      return renewedAt;
    };
    // The claim's 600 s lease expires 590 s after NOW: the rule alone renews at beat 5 (290 s left).
    expect(Date.parse(EXPIRES) - Date.parse(NOW)).toBe(590_000);
    const runs = ids.slice(0, 40).map(beatsOf);
    expect(runs.every((r) => r.length === 2 && r[0]! >= 2 && r[0]! <= 5)).toBe(true);
    expect(new Set(runs.map((r) => r[0])).size).toBeGreaterThanOrEqual(3);
    // After a renewal, the rule's own point: 300 s before expiry, i.e. 5 beats later, for all.
    expect(runs.every((r) => r[1]! - r[0]! === 5)).toBe(true);
  });
});
