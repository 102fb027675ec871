/**
 * Renewal spread: leases claimed in the same beat (a takeover claims a whole share at once; the
 * soak claims 10,000 together) must not renew in the same beat forever after. Each lease
 * renews at its own point of the window from TTL/2 to 3·TTL/4 remaining (`renewalSpreadOf`, a
 * new point after each renewal), never later than the rule without the spread and never on the beat after a renewal. Checked
 * on the rule alone over many renewals, and on the chart (pure transitions) for the first one.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { leaseDueForRenewal, renewalSpreadOf } from '../../machines/campaign.guards.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import type { OurLease } from '../../machines/campaign.types.js';
import { CADENCE_MS, CLAIM_OUTPUTS, claimEvent, done, EXPIRES, FACTS, NOW, tick, US } from './graph-events.js';

const iso = (ms: number) => new Date(ms).toISOString();
const ids = Array.from({ length: 200 }, (_, i) => `campaign-${i}`);

/** The beats (0-based) at which each campaign renews, all claimed at beat 0, over `beats` beats. */
function renewalBeats(ttlSeconds: number, cadenceMs: number, beats: number, spreadOf: (id: string, expiresAt: string) => number) {
  const t0 = Date.parse(NOW);
  return ids.map((id) => {
    let lease = { expiresAt: iso(t0 + ttlSeconds * 1000), ttlSeconds } as OurLease;
    const renewedAt: { beat: number; remainingMs: number }[] = [];
    for (let beat = 1; beat <= beats; beat++) {
      const now = t0 + beat * cadenceMs;
      if (!leaseDueForRenewal(lease, iso(now), cadenceMs, spreadOf(id, lease.expiresAt))) continue;
      renewedAt.push({ beat, remainingMs: Date.parse(lease.expiresAt) - now });
      lease = { ...lease, expiresAt: iso(now + ttlSeconds * 1000) };
    }
    return renewedAt;
  });
}

const peakPerBeat = (runs: { beat: number }[][], from: number) => {
  const perBeat = new Map<number, number>();
  for (const run of runs) for (const r of run) if (r.beat >= from) perBeat.set(r.beat, (perBeat.get(r.beat) ?? 0) + 1);
  return Math.max(...perBeat.values());
};

describe('renewal spread', () => {
  it('is a fixed fraction of the campaign id and its lease expiry, spread over [0, 1)', () => {
    const spreads = ids.map((id) => renewalSpreadOf(id, EXPIRES));
    expect(spreads.every((s) => s >= 0 && s < 1)).toBe(true);
    expect(renewalSpreadOf('campaign-7', EXPIRES)).toBe(spreads[7]);
    // A renewed lease (a new expiry) gets a new point: same-period leases do not stay in step.
    expect(renewalSpreadOf('campaign-7', NOW)).not.toBe(spreads[7]);
    // Deciles all used: the ids do not bunch up.
    expect(new Set(spreads.map((s) => Math.floor(s * 10))).size).toBe(10);
  });

  it('spreads leases claimed in one beat across beats, and they stay apart (TTL 3600 s, 60 s beats)', () => {
    const spread = renewalBeats(3600, 60_000, 600, renewalSpreadOf);
    const together = renewalBeats(3600, 60_000, 600, () => 0);
    // Without the spread every lease renews in the same beats: the whole fleet at once.
    expect(peakPerBeat(together, 0)).toBe(ids.length);
    expect(new Set(spread.map((r) => r[0]!.beat)).size).toBeGreaterThanOrEqual(10);
    expect(peakPerBeat(spread, 0)).toBeLessThanOrEqual(ids.length / 5);
    // Later renewals do not fall back into step.
    expect(peakPerBeat(spread, 300)).toBeLessThanOrEqual(ids.length / 5);
  });

  it('only ever renews earlier than the rule without it, and never on the beat after a renewal', () => {
    for (const [ttlSeconds, cadenceMs] of [
      [3600, 60_000],
      [600, 60_000],
      [120, 50_000],
      [30, 5_000],
    ] as const) {
      const due = Math.max((ttlSeconds * 1000) / 2, 2.2 * cadenceMs);
      for (const run of renewalBeats(ttlSeconds, cadenceMs, 200, renewalSpreadOf)) {
        expect(run.length).toBeGreaterThan(0);
        for (const { remainingMs } of run) {
          // No later than the unspread rule's beat (within one beat of its threshold)...
          expect(remainingMs).toBeGreaterThan(due - cadenceMs);
          // ...no earlier than a quarter TTL before it, and the spread never makes a renewal in
          // the beat after one (a TTL under 2.2 beats does that by the rule itself).
          expect(remainingMs).toBeLessThanOrEqual(due + (ttlSeconds * 1000) / 4);
          if (remainingMs > due) expect(remainingMs).toBeLessThan(ttlSeconds * 1000 - cadenceMs);
        }
      }
    }
  });

  it('is what the chart renews by: campaigns claimed together enter renewing at different beats', () => {
    const firstRenewal = (campaignId: string) => {
      let [s] = initialTransition(campaignMachine, { campaignId, controllerId: US, maxAttempts: 3, ...FACTS });
      [s] = transition(campaignMachine, s, claimEvent());
      [s] = transition(campaignMachine, s, done('claimLease', CLAIM_OUTPUTS[0]!));
      expect(s.matches({ active: { authority: { controlling: 'ready' } } })).toBe(true);
      for (let beat = 1; beat <= 10; beat++) {
        const [next] = transition(campaignMachine, s, tick({ now: iso(Date.parse(NOW) + beat * CADENCE_MS) }));
        if (next.matches({ active: { authority: { controlling: 'renewing' } } })) return beat;
      }
      return null;
    };
    // The claim's lease (600 s, expiring at EXPIRES) is due at 300 s left without the spread: beat 5.
    expect(Date.parse(EXPIRES) - Date.parse(NOW)).toBe(590_000);
    const beats = ids.slice(0, 40).map(firstRenewal);
    expect(beats.every((b) => b !== null && b >= 2 && b <= 5)).toBe(true);
    expect(new Set(beats).size).toBeGreaterThanOrEqual(3);
  });
});
