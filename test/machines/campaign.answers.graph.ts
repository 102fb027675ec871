/**
 * What each effect's answer and each status read does, on every reached edge of the traversal:
 * the rules a mutant of a guard would otherwise break unnoticed (found by `npm run mutation`).
 */
import { describe, expect, it } from 'vitest';
import { backingOff, leaseRenewalDeadlinePassed, readDue, readbackShowsOurLease, renewalDue } from '../../machines/campaign.guards.js';
import { describeStates } from '../../machines/campaign.projection.js';
import { explainRefusal, MUTATION_RULES } from '../../machines/campaign.rules.js';
import {
  LEASE_TTL_BOUNDS,
  type ClaimLeaseOutput,
  type JournalIntentOutput,
  type LeaseReadback,
  type MutateEvent,
  type ObserveEvent,
  type ReadBackIntentOutput,
  type ReadLeaseOutput,
  type ReadStatusOutput,
  type RelayMutationOutput,
  type RenewLeaseOutput,
  type TickEvent,
} from '../../machines/campaign.types.js';
import { A, discovered, inControlling, inRelaying, isIn, serializeEvent, traversal, type Step } from './campaign-traversal.js';
import { rowHolds } from './rule-rows.js';
import { CLAIMS, MUTATIONS, READER_ID } from './graph-events.js';

/** The answer of an invoked effect; the status reader's answer is READ_DONE. */
const isDone = (event: { type: string }, actor: string): boolean => (actor === READER_ID ? event.type === 'READ_DONE' : event.type === `xstate.done.actor.${actor}`);
const outputOf = <T>(event: { type: string }): T => (event as unknown as { output: T }).output;
const answersOf = (actor: string): Step[] => traversal().steps.filter((e) => isDone(e.event, actor));
const types = (events: { type: string }[]) => events.map((e) => e.type);
const ofType = <T>(events: { type: string }[], type: string): T[] => events.filter((e) => e.type === type) as unknown as T[];
const READY = `${A}.controlling.ready`;

describe('campaign statechart: answers and observations', { timeout: 240_000 }, () => {
  it('moves on a relay answer by its outcome only: applied release → observing, applied → ready, lease refusal → control-lost, refusal → ready, else in doubt; every answer settles the intent once', () => {
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
      const settled = ofType<{ status: string; settledBy: string; requestId: string }>(e.emitted, 'INTENT_SETTLED');
      expect(settled.map((s) => [s.status, s.settledBy, s.requestId])).toEqual([[out.outcome, 'response', e.state.context.pendingIntent!.requestId]]);
    }
    expect(seen.size, 'outcome × release combinations reached').toBeGreaterThanOrEqual(6);
  });

  it('learns the task and counts an attempt only from an applied submit', () => {
    for (const e of answersOf('relayMutation')) {
      const out = outputOf<RelayMutationOutput>(e.event);
      const appliedSubmit = out.outcome === 'applied' && e.state.context.pendingIntent?.kind === 'submit';
      // The binding is the chart's: only an applied submit's new task changes it.
      const learned = appliedSubmit && out.outcome === 'applied' && out.taskId ? out.taskId : null;
      expect([out, e.nextState.context.binding.taskId]).toEqual([out, learned ?? e.state.context.binding.taskId]);
      expect(e.nextState.context.attemptsSubmitted - e.state.context.attemptsSubmitted).toBe(appliedSubmit ? 1 : 0);
    }
  });

  it('leaves ambiguous-intent only on a readback of applied or not_applied for the intent in doubt', () => {
    const answers = answersOf('readBackIntent');
    expect(answers.length).toBeGreaterThan(0);
    for (const e of answers) {
      const out = outputOf<ReadBackIntentOutput>(e.event);
      const settles = out.status !== 'unavailable' && out.requestId === e.state.context.pendingIntent?.requestId;
      expect([out, isIn(e.nextState, `${A}.ambiguous-intent`)]).toEqual([out, !settles]);
      const settled = ofType<{ settledBy: string }>(e.emitted, 'INTENT_SETTLED');
      expect(settled.map((s) => s.settledBy)).toEqual(settles ? ['readback'] : []);
    }
  });

  it('claims only with a TTL inside the bounds, and refuses the rest as ttl_out_of_bounds', () => {
    const ttlOnly = new Set(CLAIMS.filter((c) => c.breaks === null || c.breaks === 'ttl_out_of_bounds').map((c) => serializeEvent(c.event)));
    const claims = traversal().steps.filter((e) => ttlOnly.has(e.key) && isIn(e.state, `${A}.observing`) && e.state.context.pendingIntent === null && discovered(e.state));
    const tried = new Set<number>();
    for (const e of claims) {
      const ttl = (e.event as { ttlSeconds: number }).ttlSeconds;
      tried.add(ttl);
      const inBounds = Number.isInteger(ttl) && ttl >= LEASE_TTL_BOUNDS.min && ttl <= LEASE_TTL_BOUNDS.max;
      expect([ttl, isIn(e.nextState, `${A}.claiming`)]).toEqual([ttl, inBounds]);
      if (!inBounds) expect(explainRefusal(e.state, e.event as never)).toBe('ttl_out_of_bounds');
    }
    expect([...tried].sort((a, b) => a - b)).toEqual([30, 120, 600, 600.5, 3600, 3601]);
  });

  it('refuses each broken claim rule in observing and control-lost with its code', () => {
    for (const { breaks, event } of CLAIMS.filter((c) => c.breaks !== null)) {
      const tries = (traversal().byEvent.get(serializeEvent(event)) ?? []).filter(
        (e) => (isIn(e.state, `${A}.observing`) || isIn(e.state, `${A}.control-lost`)) && e.state.context.pendingIntent === null && discovered(e.state),
      );
      expect(tries.length, `claim breaking ${breaks} was tried`).toBeGreaterThan(0);
      for (const e of tries) expect([breaks, isIn(e.nextState, `${A}.claiming`), explainRefusal(e.state, event)]).toEqual([breaks, false, breaks]);
    }
  });

  it('controls only when the claim names us, its readback shows us at the claimed epoch, and the context is known; every answer settles the claim once', () => {
    const answers = answersOf('claimLease');
    const refused = answers.filter((e) => !inControlling(e.nextState));
    expect(refused.length, 'claim answers that do not grant control').toBeGreaterThan(0);
    for (const e of answers) {
      const out = outputOf<ClaimLeaseOutput>(e.event);
      const { claimed, readback, contextId } = out;
      const ours = e.state.context.controllerId;
      const confirmed = claimed !== null && contextId !== null && claimed.holder === ours && readbackShowsOurLease(ours, claimed.epoch, readback);
      expect([out, inControlling(e.nextState)]).toEqual([out, confirmed]);
      const emitted = e.emitted;
      const settled = ofType<{ granted: boolean; epoch: number | null; code: string | null }>(emitted, 'CLAIM_SETTLED');
      expect(settled).toEqual([expect.objectContaining({ granted: confirmed, epoch: confirmed ? claimed!.epoch : null, code: confirmed ? null : (out.code ?? 'claim_not_confirmed') })]);
      // A granted claim binds the context it leased, if the campaign had none; a refused one changes nothing.
      const before = e.state.context.binding;
      expect(e.nextState.context.binding).toEqual(confirmed ? { ...before, contextId: before.contextId ?? contextId } : before);
    }
  });

  it("never clears Argus's own question on an observation, and a Foreman-only wake wakes Foreman at most (once per event)", () => {
    const material = answersOf(READER_ID).filter((e) => {
      const out = outputOf<ReadStatusOutput>(e.event);
      return out.ok && out.observation !== null;
    });
    const obs = (e: Step) => (outputOf<ReadStatusOutput>(e.event) as Extract<ReadStatusOutput, { ok: true }>).observation!;
    // A remote that blocks asks its own question, which takes the card; any other reading leaves Argus's.
    const argusAsking = material.filter(
      (e) =>
        !obs(e).remoteBlocked &&
        !obs(e).events.some((x) => x.class === 'BLOCKED') &&
        e.state.context.pendingQuestion?.source === 'argus' &&
        e.state.matches({ active: { attention: 'needs-you' } }),
    );
    expect(argusAsking.length).toBeGreaterThan(0);
    for (const e of argusAsking) expect(e.nextState.context.pendingQuestion).toEqual(e.state.context.pendingQuestion);

    // A Foreman-only wake wakes nobody but Foreman: assessing when Foreman runs here (unless it
    // assessed that very event already: then it is settled, not asked twice), else idle; never
    // Argus, never a person, in that step.
    const foremanOnly = material.filter((e) => {
      if (!e.state.matches({ active: { attention: 'idle' } })) return false;
      return obs(e).wakes.length > 0 && obs(e).wakes.every((w) => w.target === 'foreman') && !obs(e).remoteBlocked;
    });
    const sides = new Set<string>();
    for (const e of foremanOnly) {
      const again = e.state.context.argus.assessedFor === obs(e).wakes[0]!.dedupeKey;
      const expected = obs(e).foremanEnabled && !again ? 'assessing' : 'idle';
      sides.add(`${obs(e).foremanEnabled}:${again}`);
      expect([obs(e).foremanEnabled, again, e.nextState.matches({ active: { attention: expected } })]).toEqual([obs(e).foremanEnabled, again, true]);
      expect(['argusTurn', 'foremanAssess'].filter((id) => id in e.nextState.children)).toEqual(expected === 'assessing' ? ['foremanAssess'] : []);
      if (obs(e).foremanEnabled && again) expect(ofType<{ decision: { code: string } }>(e.emitted, 'DECISION_SETTLED').map((d) => d.decision.code)).toEqual(['assessment_interrupted']);
    }
    expect([...sides].sort()).toEqual(['false:false', 'false:true', 'true:false', 'true:true']);
  });

  it('never errors: no guard or action throws on any reached edge', () => {
    const { steps, reachedStates } = traversal();
    expect(steps.filter((e) => e.nextState.status === 'error').map((e) => [e.state.value, e.event.type])).toEqual([]);
    expect([...reachedStates.values()].filter((s) => s.status === 'error')).toEqual([]);
    expect(steps.length).toBeGreaterThan(0);
  });

  it('verifies every MUTATE that breaks no rule, and relays it when the journal write leaves the readback fresh and the lease 5 s to spare (both limits inclusive)', () => {
    const valid = new Set(MUTATIONS.filter((m) => m.breaks === null).map((m) => serializeEvent(m.event)));
    const tries = traversal().steps.filter(
      (e) => isIn(e.state, READY) && valid.has(e.key) && MUTATION_RULES.every((rule) => rowHolds(rule, e.state, e.event as MutateEvent)),
    );
    expect(new Set(tries.map((e) => e.key)).size).toBe(valid.size);
    for (const e of tries) expect(isIn(e.nextState, `${A}.controlling.verifying`)).toBe(true);
    // The journal's answer: fresh means readAt ≤ journaledAt ≤ readAt + 30 s; margin means expiry − journaledAt ≥ 5 s.
    const boundaries = new Set<string>();
    for (const e of answersOf('journalIntent')) {
      const { journaledAt, refusedCode } = outputOf<JournalIntentOutput>(e.event);
      const rb = e.state.context.pendingIntent!.readback!;
      if (refusedCode !== null) {
        // The journal refused it (nothing written): refused as not journaled, never relayed.
        const emitted = e.emitted;
        expect([refusedCode, inRelaying(e.nextState), isIn(e.nextState, READY)]).toEqual([refusedCode, false, true]);
        expect(ofType(emitted, 'MUTATION_REFUSED')).toEqual([expect.objectContaining({ code: refusedCode, journaled: false })]);
        expect(ofType(emitted, 'INTENT_SETTLED')).toEqual([]);
        expect(e.nextState.context.pendingIntent).toBeNull();
        continue;
      }
      const age = Date.parse(journaledAt) - Date.parse(rb.readAt);
      const margin = Date.parse(rb.expiresAt) - Date.parse(journaledAt);
      const inTime = age >= 0 && age <= 30_000 && margin >= 5_000;
      if (inTime && age === 30_000) boundaries.add('fresh-limit');
      if (inTime && margin === 5_000) boundaries.add('margin-limit');
      expect([journaledAt, rb, inRelaying(e.nextState)]).toEqual([journaledAt, rb, inTime]);
      if (!inTime) {
        expect(isIn(e.nextState, READY)).toBe(true);
        const emitted = e.emitted;
        expect(ofType(emitted, 'MUTATION_REFUSED')).toEqual([expect.objectContaining({ code: 'readback_stale', journaled: true })]);
        expect(ofType(emitted, 'INTENT_SETTLED')).toEqual([expect.objectContaining({ status: 'rejected', code: 'readback_stale' })]);
        expect(e.nextState.context.pendingIntent).toBeNull();
      }
    }
    expect([...boundaries].sort()).toEqual(['fresh-limit', 'margin-limit']);
  });

  it('refuses an accepted mutation when the lease cannot be read (stays), is not ours (control-lost), the journal fails or refuses it: nothing is sent', () => {
    const codes = new Set<string>();
    for (const actor of ['readLease', 'journalIntent']) {
      // A mutation's readback and journal (a takeover's rotation reads the lease back too: not a mutation's).
      const steps = traversal().steps.filter((e) => e.event.type.startsWith(`xstate.`) && e.event.type.endsWith(`.actor.${actor}`) && (isIn(e.state, `${A}.controlling.verifying`) || isIn(e.state, `${A}.controlling.journaling`)));
      for (const e of steps) {
        if (inRelaying(e.nextState) || isIn(e.nextState, `${A}.controlling.journaling`)) continue;
        const refused = ofType<{ code: string; journaled: boolean; requestId: string }>(e.emitted, 'MUTATION_REFUSED');
        expect(refused).toHaveLength(1);
        codes.add(refused[0]!.code);
        expect(refused[0]!.requestId).toBe(e.state.context.pendingIntent!.requestId);
        const out = isDone(e.event, 'readLease') ? outputOf<ReadLeaseOutput>(e.event) : null;
        const lost = out !== null && out.code === null; // answered, and not us
        expect([refused[0]!.code, isIn(e.nextState, lost ? `${A}.control-lost` : READY)]).toEqual([refused[0]!.code, true]);
        if (lost) expect(refused[0]!.code).toBe('lease_not_held');
      }
    }
    expect([...codes].sort()).toEqual(['decision_consumed', 'lease_not_held', 'readback_stale', 'remote_unavailable', 'storage_unavailable']);
  });

  it('loses control on any read whose readback is not our unexpired lease at our epoch, unless the read was sent before the lease was last confirmed', () => {
    const readings = answersOf(READER_ID).filter((e) => outputOf<ReadStatusOutput>(e.event).ok && (isIn(e.state, READY) || isIn(e.state, `${A}.controlling.renewing`)));
    let losses = 0;
    let predating = 0;
    for (const e of readings) {
      const out = outputOf<Extract<ReadStatusOutput, { ok: true }>>(e.event);
      const lease = e.state.context.lease!;
      const judged = Date.parse(out.requestedAt) >= Date.parse(lease.confirmedAt);
      const notOurs = (r: LeaseReadback | null) => r === null || r.holder !== e.state.context.controllerId || r.epoch !== lease.epoch || Date.parse(r.expiresAt) <= Date.parse(r.readAt);
      const expected = judged && notOurs(out.readback);
      if (expected) losses++;
      if (!judged && notOurs(out.readback)) predating++;
      expect([out.readback, out.requestedAt, isIn(e.nextState, `${A}.control-lost`)]).toEqual([out.readback, out.requestedAt, expected]);
    }
    expect([losses > 0, predating > 0]).toEqual([true, true]);
  });

  it('reads on TICK only when a task is bound and no backoff holds, renews only when due, and gives the lease up past its renewal deadline', () => {
    const ticks = traversal().steps.filter((e) => e.event.type === 'TICK' && e.state.matches('active'));
    const sides = new Set<string>();
    for (const e of ticks) {
      const t = e.event as TickEvent;
      const wasIdle = e.state.matches({ active: { heartbeat: 'idle' } });
      const reads = wasIdle && readDue(e.state.context, t.now);
      sides.add(`read:${reads}`);
      expect([t, wasIdle, e.nextState.matches({ active: { heartbeat: 'reading' } })]).toEqual([t, wasIdle, wasIdle ? reads : true]);
      if (isIn(e.state, READY) || isIn(e.state, `${A}.controlling.renewing`)) {
        const late = leaseRenewalDeadlinePassed(e.state.context.lease, t.now);
        sides.add(`deadline:${late}`);
        expect([t, isIn(e.nextState, `${A}.control-lost`)]).toEqual([t, late]);
      }
      if (isIn(e.state, READY)) {
        const due = !leaseRenewalDeadlinePassed(e.state.context.lease, t.now) && renewalDue(e.state.context.campaignId, e.state.context.lease, t.now, e.state.context.environment.cadenceMs);
        sides.add(`renew:${due}`);
        expect([t, isIn(e.nextState, `${A}.controlling.renewing`)]).toEqual([t, due]);
      }
    }
    expect([...sides].sort()).toEqual(['deadline:false', 'deadline:true', 'read:false', 'read:true', 'renew:false', 'renew:true']);
  });

  it("reads on an operator's OBSERVE whenever it is idle with a task bound, backoff or not, and only then", () => {
    const observes = traversal().steps.filter((e) => e.event.type === 'OBSERVE' && e.state.matches('active'));
    const sides = new Set<string>();
    for (const e of observes) {
      const o = e.event as ObserveEvent;
      const reads = e.state.matches({ active: { heartbeat: 'idle' } }) && e.state.context.binding.taskId !== null;
      sides.add(`read:${reads}`);
      if (reads && backingOff(e.state.context, Date.parse(o.now))) sides.add('read-in-backoff');
      expect([o, e.nextState.matches({ active: { heartbeat: 'reading' } })]).toEqual([o, reads || e.state.matches({ active: { heartbeat: 'reading' } })]);
      // An operator's read never renews, claims or moves authority.
      expect(describeStates(e.nextState).authority).toBe(describeStates(e.state).authority);
    }
    expect([...sides].sort()).toEqual(['read-in-backoff', 'read:false', 'read:true']);
  });

  it('keeps the lease on a renewal that confirms it (same hold), and loses control on any other renewal answer', () => {
    const answers = answersOf('renewLease');
    expect(answers.length).toBeGreaterThan(0);
    for (const e of answers) {
      const out = outputOf<RenewLeaseOutput>(e.event);
      const lease = e.state.context.lease!;
      const confirms = readbackShowsOurLease(e.state.context.controllerId, lease.epoch, out.lease);
      expect([out, isIn(e.nextState, confirms ? READY : `${A}.control-lost`)]).toEqual([out, true]);
      if (confirms) expect(e.nextState.context.lease).toEqual({ ...lease, expiresAt: out.lease!.expiresAt, confirmedAt: out.lease!.readAt });
    }
  });

  it('settles every read with READ_SETTLED; an unchanged read changes no context and emits nothing else, a material one remembers the view and publishes its drafts and wakes', () => {
    const results = new Set<string>();
    for (const e of answersOf(READER_ID)) {
      const out = outputOf<ReadStatusOutput>(e.event);
      const emitted = e.emitted;
      const settled = ofType<{ result: string }>(emitted, 'READ_SETTLED');
      expect(settled).toHaveLength(1);
      const result = settled[0]!.result;
      results.add(result);
      const c = e.state.context;
      const unchanged = out.ok && c.remote !== null && out.fingerprint === c.remote.fingerprint && c.readFailures.consecutive === 0;
      expect([out, result]).toEqual([out, !out.ok ? 'failed' : unchanged ? 'unchanged' : 'changed']);
      if (result === 'unchanged') {
        expect(types(emitted).filter((t) => t !== 'CONTROL_LOST')).toEqual(['READ_SETTLED']);
        if (!isIn(e.nextState, `${A}.control-lost`) || isIn(e.state, `${A}.control-lost`)) expect(e.nextState.context).toEqual(c);
      } else if (out.ok) {
        expect(e.nextState.context.readFailures).toEqual({ consecutive: 0, nextReadAt: null, criticalRaised: false });
        if (out.observation) {
          expect(e.nextState.context.remote).toEqual(out.observation.view);
          // The read's drafts, then the NEEDS_YOU the attention region raised in the same step, if any
          // (a decision the observation ended, or one it found already taken up: its key is the question now pending).
          const receipt = e.nextState.context.argus.receipts > c.argus.receipts ? [[expect.objectContaining({ kind: 'NEEDS_YOU', dedupeKey: `needs-you:${e.nextState.context.pendingQuestion?.key}` })]] : [];
          expect(ofType<{ drafts: unknown[] }>(emitted, 'PUBLIC_DRAFTS').map((d) => d.drafts)).toEqual([...(out.observation.drafts.length ? [out.observation.drafts] : []), ...receipt]);
          expect(ofType<{ wake: unknown }>(emitted, 'WAKE_REQUESTED').map((w) => w.wake)).toEqual(out.observation.wakes);
        }
      } else {
        expect(ofType<{ drafts: unknown[] }>(emitted, 'PUBLIC_DRAFTS').map((d) => d.drafts)).toEqual(out.failure.drafts.length ? [out.failure.drafts] : []);
        expect(e.nextState.context.readFailures.criticalRaised).toBe(c.readFailures.criticalRaised || out.failure.critical);
      }
    }
    expect([...results].sort()).toEqual(['changed', 'failed', 'unchanged']);
  });
});
