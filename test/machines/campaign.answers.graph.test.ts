/**
 * What each effect's answer and each observation does, on every reached edge of the traversal:
 * the rules a mutant of a guard would otherwise break unnoticed (found by `npm run mutation`).
 */
import { describe, expect, it } from 'vitest';
import { LEASE_TTL_BOUNDS, type RelayMutationOutput } from '../../machines/campaign.types.js';
import { explainRefusal } from '../../machines/campaign.refusals.js';
import { MUTATION_RULES } from '../../machines/campaign.guards.js';
import type { LeaseReadback, MutateEvent } from '../../machines/campaign.types.js';
import { A, inControlling, inRelaying, isIn, traversal } from './campaign-traversal.js';
import { MUTATIONS } from './graph-events.js';

const isDone = (event: { type: string }, actor: string): boolean => event.type === `xstate.done.actor.${actor}`;
const outputOf = <T>(event: { type: string }): T => (event as unknown as { output: T }).output;

describe('campaign statechart: answers and observations', () => {
  it('moves on a relay answer by its outcome only: applied release → observing, applied → ready, lease refusal → control-lost, refusal → ready, else in doubt', () => {
    const answers = traversal().steps.filter((e) => inRelaying(e.state) && isDone(e.event, 'relayMutation'));
    expect(answers.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const e of answers) {
      const out = outputOf<RelayMutationOutput>(e.event);
      const release = e.state.context.pendingIntent?.kind === 'release';
      const expected =
        out.outcome === 'applied'
          ? release ? 'observing' : 'controlling.ready'
          : out.outcome === 'rejected'
            ? out.leaseLost ? 'control-lost' : 'controlling.ready'
            : 'ambiguous-intent';
      seen.add(`${out.outcome}:${release}:${expected}`);
      expect([out, release, isIn(e.nextState, `${A}.${expected}`)]).toEqual([out, release, true]);
      if (expected !== 'ambiguous-intent') expect(e.nextState.context.pendingIntent).toBeNull();
    }
    expect(seen.size, 'outcome × release combinations reached').toBeGreaterThanOrEqual(6);
  });

  it('leaves ambiguous-intent only on a readback of applied or not_applied for the intent in doubt', () => {
    const answers = traversal().steps.filter((e) => isDone(e.event, 'readBackIntent'));
    expect(answers.length).toBeGreaterThan(0);
    for (const e of answers) {
      const out = outputOf<{ requestId: string; status: string }>(e.event);
      const settles = out.status !== 'unavailable' && out.requestId === e.state.context.pendingIntent?.requestId;
      expect([out, isIn(e.nextState, `${A}.ambiguous-intent`)]).toEqual([out, !settles]);
    }
  });

  it('claims only with a TTL inside the bounds, and refuses the rest as ttl_out_of_bounds', () => {
    const claims = traversal().steps.filter((e) => e.event.type === 'OPERATOR_CLAIM' && isIn(e.state, `${A}.observing`) && e.state.context.pendingIntent === null);
    const tried = new Set<number>();
    for (const e of claims) {
      const ttl = (e.event as { ttlSeconds: number }).ttlSeconds;
      tried.add(ttl);
      const inBounds = Number.isInteger(ttl) && ttl >= LEASE_TTL_BOUNDS.min && ttl <= LEASE_TTL_BOUNDS.max;
      expect([ttl, isIn(e.nextState, `${A}.claiming`)]).toEqual([ttl, inBounds]);
      if (!inBounds) expect(explainRefusal(e.state, e.event)).toBe('ttl_out_of_bounds');
    }
    expect([...tried].sort((a, b) => a - b)).toEqual([30, 60, 600, 600.5, 3600, 3601]);
  });

  it('controls only when the claim names us and its readback shows us at the claimed epoch', () => {
    const answers = traversal().steps.filter((e) => isDone(e.event, 'claimLease'));
    const refused = answers.filter((e) => !inControlling(e.nextState));
    expect(refused.length, 'claim answers that do not grant control').toBeGreaterThan(0);
    for (const e of answers) {
      const { claimed, readback } = outputOf<{ claimed: { holder: string; epoch: number } | null; readback: { holder: string; epoch: number } | null }>(e.event);
      const ours = e.state.context.controllerId;
      const confirmed = claimed !== null && claimed.holder === ours && readback?.holder === ours && readback.epoch === claimed.epoch;
      expect([claimed, readback, inControlling(e.nextState)]).toEqual([claimed, readback, confirmed]);
    }
  });

  it("never clears Argus's own question on an observation, and a Foreman-only wake leaves attention idle", () => {
    const { steps } = traversal();
    const argusAsking = steps.filter(
      // A remote that blocks asks its own question, which takes the card; any other reading leaves Argus's.
      (e) =>
        e.event.type === 'REMOTE_OBSERVED' &&
        !e.event.remoteBlocked &&
        !e.event.events.some((x) => x.class === 'BLOCKED') &&
        e.state.context.pendingQuestion?.source === 'argus' &&
        e.state.matches({ active: { attention: 'needs-you' } }),
    );
    expect(argusAsking.length).toBeGreaterThan(0);
    for (const e of argusAsking) expect(e.nextState.context.pendingQuestion).toEqual(e.state.context.pendingQuestion);

    const foremanOnly = steps.filter((e) => {
      if (e.event.type !== 'REMOTE_OBSERVED' || !e.state.matches({ active: { attention: 'idle' } })) return false;
      return e.event.wakes.length > 0 && e.event.wakes.every((w) => w.target === 'foreman') && !e.event.remoteBlocked;
    });
    expect(foremanOnly.length).toBeGreaterThan(0);
    for (const e of foremanOnly) expect(e.nextState.matches({ active: { attention: 'idle' } })).toBe(true);
  });

  it('never errors: no guard or action throws on any reached edge', () => {
    const { steps, reachedStates } = traversal();
    for (const e of steps) expect([e.event.type, e.nextState.status]).not.toEqual([e.event.type, 'error']);
    for (const s of reachedStates.values()) expect(s.status).not.toBe('error');
  });

  it('relays every MUTATE that breaks no rule, including a readback exactly at the freshness limit', () => {
    const valid = new Set(MUTATIONS.filter((m) => m.breaks === null).map((m) => JSON.stringify(m.event)));
    const tries = traversal().steps.filter(
      (e) =>
        isIn(e.state, `${A}.controlling.ready`) &&
        valid.has(JSON.stringify(e.event)) &&
        MUTATION_RULES.every((rule) => rule.holds(e.state.context, e.event as MutateEvent)),
    );
    expect(new Set(tries.map((e) => JSON.stringify(e.event))).size).toBe(valid.size);
    for (const e of tries) expect(inRelaying(e.nextState)).toBe(true);
  });

  it('loses control on any reading whose readback is not our unexpired lease at our epoch', () => {
    const readings = traversal().steps.filter(
      (e) => e.event.type === 'REMOTE_OBSERVED' && (isIn(e.state, `${A}.controlling.ready`) || isIn(e.state, `${A}.controlling.renewing`)),
    );
    const lost = (r: LeaseReadback | null, epoch: number | undefined, us: string) =>
      r === null || r.holder !== us || r.epoch !== epoch || Date.parse(r.expiresAt) <= Date.parse(r.readAt);
    let losses = 0;
    for (const e of readings) {
      const readback = (e.event as { readback: LeaseReadback | null }).readback;
      const expected = lost(readback, e.state.context.lease?.epoch, e.state.context.controllerId);
      if (expected) losses++;
      expect([readback, isIn(e.nextState, `${A}.control-lost`)]).toEqual([readback, expected]);
    }
    expect(losses).toBeGreaterThan(0);
  });
});
