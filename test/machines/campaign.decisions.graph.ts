/**
 * The decision boundaries' invariants, on every edge of the traversal (graph-decisions.ts): a
 * review-approved MUTATE only from the mission's own fresh approval while we control, and what
 * each mission-poll answer does is what the verdict rule says; Foreman never completes or relays
 * anything; the remote's question is answered only through the authority path, and nothing else
 * takes it from the person. (One turn per event: campaign.turns.graph.ts.)
 */
import { describe, expect, it } from 'vitest';
import { judgeProposal } from '../../machines/argus.verdict.js';
import { bindingLive } from '../../machines/campaign.decide.js';
import { attemptRunning } from '../../machines/campaign.guards.js';
import { argusEventKey } from '../../machines/campaign.argus.js';
import type { ArgusCheckOutput, ForemanAssessOutput, MutateEvent, OperatorAnswerEvent, ReadStatusOutput } from '../../machines/campaign.types.js';
import { explainRefusal } from '../../machines/campaign.rules.js';
import { routeForDirective, routeWakesArgus } from '../../machines/foreman.directives.js';
import { A, discovered, isIn, traversal, type Snap } from './campaign-traversal.js';
import { ATT, expectedSettle, ofType, outputOf, READY, settledAttention, stepsOf } from './decision-steps.js';
import { checkKindOf, currentAnswers, type CheckKind } from './graph-decisions.js';
import { ANSWERS } from './graph-events.js';

describe('decision boundaries: the verdict, Foreman, the remote\'s question, by enumeration', { timeout: 240_000 }, () => {
  it('(b) raises a review-approved MUTATE only from the mission poll, in controlling.ready, for a fresh own approval of the latest event', () => {
    let raised = 0;
    for (const e of traversal().steps) {
      const mutates = e.raises.filter((r) => r.type === 'MUTATE') as MutateEvent[];
      if (mutates.length === 0) continue;
      expect(mutates).toHaveLength(1);
      const m = mutates[0]!;
      expect(m.approval.kind).toBe('review');
      if (m.approval.kind !== 'review') continue;
      raised++;
      expect([e.event.type, isIn(e.state, `${ATT}.awaiting-review.checking`), isIn(e.state, READY)]).toEqual(['xstate.done.actor.argusCheck', true, true]);
      const out = outputOf<ArgusCheckOutput>(e.event);
      expect(['approved-submit', 'approved-intervene', 'approved-cancel']).toContain(checkKindOf(out));
      if (!out.ok || out.proposal.status !== 'found') throw new Error('an approval needs a found proposal');
      const { mission } = e.state.context.argus;
      const latest = e.state.context.wakes.lastArgusEventKey;
      expect([m.approval.eventKey, m.approval.eventKey, m.approval.decisionId, m.approval.verdict]).toEqual([latest, mission!.dedupeKey, out.proposal.proposal.decision_id, 'approved']);
      expect(out.proposal.proposal.event_key).toBe(mission!.eventKey);
      // The mission's own Reviewer verdict, written after the wake, for this event.
      const fresh = out.journal.filter((j) => j.kind === 'mission_complete' && j.itemId === mission!.itemId && j.eventKey === mission!.eventKey && Date.parse(j.ts) > Date.parse(mission!.wokeAt));
      expect(fresh.length).toBeGreaterThan(0);
      expect(out.journal.some((j) => j.kind === 'mission_failed' || j.kind === 'mission_aborted')).toBe(false);
      // Authority is ours, never the model's: our epoch and the services' request id (the task is the chart's own binding).
      expect([m.epoch, m.requestId, Object.keys(m).sort()]).toEqual([e.state.context.lease!.epoch, out.requestId, ['approval', 'epoch', 'mutation', 'now', 'requestId', 'type']]);
    }
    expect(raised, 'review MUTATEs raised').toBeGreaterThan(0);
  });

  it('(b) does with each mission-poll answer what the verdict rule says: never a MUTATE for another event, a failure, a question, an older verdict or a superseded event', () => {
    const outcomes = new Map<string, Set<string>>();
    for (const e of stepsOf('argusCheck')) {
      const out = outputOf<ArgusCheckOutput>(e.event);
      const kind = checkKindOf(out) as CheckKind;
      const c = e.state.context;
      const mission = c.argus.mission!;
      const superseded = mission.eventKey !== (c.wakes.lastArgusEventKey === null ? null : argusEventKey(c.wakes.lastArgusEventKey));
      const v = out.ok
        ? judgeProposal({ eventKey: mission.eventKey, wokeAt: mission.wokeAt, dispatchedItemId: mission.itemId, latestEventKey: c.wakes.lastArgusEventKey && argusEventKey(c.wakes.lastArgusEventKey), proposal: out.proposal, journal: out.journal, backlog: out.backlog, pendingQuestions: out.pendingQuestions })
        : ({ status: 'pending' } as const);
      const relayed = e.raises.some((r) => r.type === 'MUTATE');
      let settledAll: { outcome: string; code: string | null }[];
      const settles = settledAttention(e.state, e.nextState);
      const where = isIn(e.nextState, `${ATT}.awaiting-review.mission`) ? 'mission' : settles !== 'elsewhere' ? settles : isIn(e.nextState, `${ATT}.needs-you`) ? 'needs-you' : 'elsewhere';
      const idle = expectedSettle(e.state);
      // What a queued event's take-up settles comes after this decision's record.
      settledAll = ofType<{ decision: { outcome: string; code: string | null } }>(e.emitted, 'DECISION_SETTLED').map((d) => d.decision);
      const settled = settledAll.slice(0, 1);
      const label = `${kind}${superseded ? ':superseded' : ''}${mission.itemId === null ? ':unbound' : ''}`;
      outcomes.set(label, (outcomes.get(label) ?? new Set()).add(`${where}:${settled.map((d) => `${d.outcome}/${d.code}`).join(',')}${relayed ? ':relayed' : ''}`));
      if (v.status === 'pending') expect([label, where, settled, relayed]).toEqual([label, 'mission', [], false]);
      else if (v.status === 'question') {
        expect([label, isIn(e.nextState, `${ATT}.needs-you`), relayed, e.nextState.context.pendingQuestion]).toEqual([label, true, false, expect.objectContaining({ key: `argus-${v.itemId}-${c.argus.receipts + 1}`, source: 'argus', itemId: v.itemId })]);
        expect(settled).toEqual([expect.objectContaining({ outcome: 'question' })]);
      } else if (v.status === 'rejected') expect([label, where, settled, relayed]).toEqual([label, idle, [expect.objectContaining({ outcome: 'rejected', code: v.code })], false]);
      else if (out.ok && out.consumed) expect([label, where, settled, relayed]).toEqual([label, idle, [expect.objectContaining({ outcome: 'consumed', code: 'decision_consumed' })], false]);
      else if (v.kind === 'observe') expect([label, where, settled, relayed]).toEqual([label, idle, [expect.objectContaining({ outcome: 'approved' })], false]);
      // An approved mutation: relayed, held, polled again or refused, by the authority region (the next test).
      else expect([label, relayed || where !== 'idle']).toEqual([label, true]);
      if (relayed) expect([label, superseded, mission.itemId !== null]).toEqual([label, false, true]);
    }
    // Every answer was given about a bound, current mission; the rejections also superseded and unbound.
    const labels = [...outcomes.keys()];
    for (const kind of ['pending', 'check-failed', 'question', 'question-listed', 'mission-failed', 'mission-aborted', 'no-proposal', 'proposal-unreadable', 'proposal-other-event', 'proposal-invalid', 'mismatch-other-event', 'mismatch-older', 'approved-observe', 'approved-submit', 'approved-intervene', 'approved-cancel', 'consumed'])
      expect(labels, kind).toContain(kind);
    expect(labels.some((l) => l.endsWith(':superseded'))).toBe(true);
    expect(labels.some((l) => l.endsWith(':unbound'))).toBe(true);
  });

  it('(b) applies an approved mutation only in controlling.ready with every MUTATE rule holding; holds it without a lease; polls again while the lease is busy; refuses it with the broken rule', () => {
    const seen = new Set<string>();
    for (const e of stepsOf('argusCheck')) {
      const out = outputOf<ArgusCheckOutput>(e.event);
      const kind = checkKindOf(out)!;
      if (!kind.startsWith('approved-') || kind === 'approved-observe') continue;
      const c = e.state.context;
      if (c.argus.mission!.itemId === null || c.argus.mission!.dedupeKey !== c.wakes.lastArgusEventKey) continue;
      const ready = isIn(e.state, READY);
      const controlling = isIn(e.state, `${A}.controlling`);
      const relayed = e.raises.some((r) => r.type === 'MUTATE');
      const q = e.nextState.context.pendingQuestion;
      // One mutation at a time needs no rule here: the chart relays only from controlling.ready.
      const expected = !controlling ? 'held' : !ready ? 'mission' : kind === 'approved-submit' && attemptRunning(c) ? 'refused:attempt_running' : 'relayed';
      const got = relayed ? 'relayed' : q?.key.startsWith('apply-') ? 'held' : q?.key.startsWith('refused-') ? `refused:${(q.text.match(/\(([a-z_]+)\)$/) ?? [])[1]}` : isIn(e.nextState, `${ATT}.awaiting-review.mission`) ? 'mission' : 'other';
      seen.add(expected);
      expect([kind, JSON.stringify(e.state.value), got]).toEqual([kind, JSON.stringify(e.state.value), expected]);
      if (expected === 'held') expect(e.nextState.context.argus.held).toMatchObject({ decisionId: 'd-1', eventKey: c.argus.mission!.eventKey });
    }
    expect([...seen].sort()).toEqual(['held', 'mission', 'refused:attempt_running', 'relayed']);
  });

  it('(c) a Foreman directive is a hint or a wake: FINISH never relays or completes anything, CONTINUE on a Foreman-only event wakes nobody', () => {
    const seen = new Set<string>();
    for (const e of stepsOf('foremanAssess')) {
      const out = outputOf<ForemanAssessOutput>(e.event);
      const wake = e.state.context.argus.wake!;
      const argus = wake.argusReady && bindingLive(e.state.context.argus);
      const asks = argus && (wake.target === 'argus' || (out.ok && routeWakesArgus(routeForDirective(out.directive))));
      const escalates = !asks && out.ok && out.directive === 'ESCALATE';
      // Asked: Argus takes the event up (a turn, unless that event's turn was sent already).
      const key = wake.target === 'argus' ? wake.dedupeKey : `foreman:${wake.dedupeKey}`;
      const resent = asks && e.state.context.argus.sentFor === key;
      const where = asks ? (resent ? 'needs-you' : 'awaiting-review') : escalates ? 'needs-you' : expectedSettle(e.state) === 'idle' ? 'idle' : 'taken-up';
      seen.add(`${out.ok ? out.directive : 'failed'}:${wake.target}:${where}`);
      // Foreman never acts on the remote, and publishes nothing but a receipt for a person.
      expect([e.raises.filter((r) => r.type === 'MUTATE'), JSON.stringify((e.nextState.value as { active: { authority: unknown } }).active.authority)]).toEqual([[], JSON.stringify((e.state.value as { active: { authority: unknown } }).active.authority)]);
      const receipts = ofType<{ drafts: { kind: string }[] }>(e.emitted, 'PUBLIC_DRAFTS').flatMap((d) => d.drafts.map((x) => x.kind));
      if (where !== 'taken-up') expect(receipts).toEqual(escalates || resent ? ['NEEDS_YOU'] : []);
      expect([out, where === 'taken-up' ? settledAttention(e.state, e.nextState) : isIn(e.nextState, `${ATT}.${where}`)]).toEqual([out, where === 'taken-up' ? 'taken-up' : true]);
      const settled = ofType<{ decision: { outcome: string } }>(e.emitted, 'DECISION_SETTLED').map((d) => d.decision.outcome);
      // Foreman's own boundary settles 'assessed' whenever it answered a Foreman-only event (also
      // when it hands the event to Argus); an Argus event goes on to its turn (or its receipt).
      expect(settled.slice(0, 1)).toEqual(asks ? (wake.target === 'foreman' ? ['assessed'] : resent ? ['interrupted'] : []) : ['assessed']);
      // Only a directive that wakes Argus about a Foreman-only event asks for a turn of its own.
      const argusWakes = ofType<{ wake: { target: string; reason: string; dedupeKey: string } }>(e.emitted, 'WAKE_REQUESTED').map((w) => w.wake);
      expect(argusWakes).toEqual(asks && wake.target === 'foreman' ? [expect.objectContaining({ target: 'argus', reason: 'foreman_directive', dedupeKey: `foreman:${wake.dedupeKey}` })] : []);
      if (out.ok && out.directive === 'FINISH') expect(wake.target === 'argus' && argus ? asks : [asks, settled[0]]).toEqual(wake.target === 'argus' && argus ? true : [false, 'assessed']);
      if (out.ok && out.directive === 'CONTINUE' && wake.target === 'foreman' && where === 'idle') expect([argusWakes, 'argusTurn' in e.nextState.children]).toEqual([[], false]);
    }
    for (const s of ['FINISH:foreman:idle', 'FINISH:argus:awaiting-review', 'FINISH:argus:idle', 'CONTINUE:foreman:idle', 'ESCALATE:foreman:awaiting-review', 'ESCALATE:argus:needs-you', 'START_WORKER:foreman:awaiting-review', 'failed:foreman:idle'])
      expect([...seen], s).toContain(s);
  });

  it("(d) an answer to the remote's question reaches relaying only through verifying and journaling in controlling; outside controlling it is refused with lease_required", () => {
    const step = (p: string) => `${A}.controlling.${p}`;
    const answerIntent = (s: Snap) => s.context.pendingIntent?.kind === 'answer';
    const into = (p: string) => traversal().steps.filter((e) => answerIntent(e.nextState) && isIn(e.nextState, step(p)) && !isIn(e.state, step(p)));
    const entries = { verifying: into('verifying'), journaling: into('journaling'), relaying: into('relaying') };
    for (const [p, list] of Object.entries(entries)) expect(list.length, `answer intents entering ${p}`).toBeGreaterThan(0);
    for (const e of entries.verifying) expect([e.event.type, isIn(e.state, READY), e.state.context.pendingQuestion?.source]).toEqual(['OPERATOR_ANSWER', true, 'remote']);
    for (const e of entries.journaling) expect([e.event.type, isIn(e.state, step('verifying'))]).toEqual(['xstate.done.actor.readLease', true]);
    for (const e of entries.relaying) expect([e.event.type, isIn(e.state, step('journaling'))]).toEqual(['xstate.done.actor.journalIntent', true]);
    // Refused outside controlling: the answer changes nothing (it is not an Argus turn either).
    const codes = new Set<string>();
    for (const e of traversal().steps) {
      if (e.event.type !== 'OPERATOR_ANSWER' || e.state.context.pendingQuestion?.source !== 'remote' || isIn(e.state, `${A}.controlling`) || e.state.status !== 'active') continue;
      // An undiscovered or unfenced remote is refused by its own row first (policy.graph).
      if (!discovered(e.state)) continue;
      const code = explainRefusal(e.state, e.event);
      if (code !== null) codes.add(code);
      expect([e.taken, e.nextState.context.pendingIntent]).toEqual([[], e.state.context.pendingIntent]);
      // An answer breaking no rule of its own: refused only for where the campaign is.
      if (e.event === ANSWERS[0]!.event || currentAnswers(e.state.context.pendingQuestion.key).includes(e.event as OperatorAnswerEvent)) {
        const authority = e.state.matches('paused') ? 'paused' : isIn(e.state, `${A}.ambiguous-intent`) ? 'ambiguous' : 'other';
        expect([authority, code]).toEqual([authority, authority === 'paused' ? 'campaign_paused' : authority === 'ambiguous' ? 'intent_unresolved' : 'lease_required']);
      }
    }
    expect(codes).toContain('lease_required');
  });

  it("(d) the remote's question is answered (REMOTE_ANSWERED) only by an applied answer relay, which clears it and leaves attention idle", () => {
    let answered = 0;
    for (const e of traversal().steps) {
      const raised = e.raises.filter((r) => r.type === 'REMOTE_ANSWERED') as unknown as { questionKey: string }[];
      if (raised.length === 0) continue;
      answered++;
      const intent = e.state.context.pendingIntent!;
      expect([e.event.type, intent.kind, outputOf<{ outcome: string }>(e.event).outcome]).toEqual(['xstate.done.actor.relayMutation', 'answer', 'applied']);
      expect(raised).toEqual([{ type: 'REMOTE_ANSWERED', questionKey: (intent.mutation as { questionKey: string }).questionKey }]);
      if (e.state.context.pendingQuestion?.key === raised[0]!.questionKey && isIn(e.state, `${ATT}.needs-you`)) {
        const taken = expectedSettle(e.state) === 'taken-up';
        expect([taken || e.nextState.context.pendingQuestion === null, e.nextState.context.pendingQuestion?.source, settledAttention(e.state, e.nextState)]).toEqual([true, taken ? e.nextState.context.pendingQuestion?.source : undefined, expectedSettle(e.state)]);
        if (taken) expect(e.nextState.context.pendingQuestion?.key).not.toBe(raised[0]!.questionKey);
      }
    }
    expect(answered).toBeGreaterThan(0);
  });

  it("keeps the remote's own question until it is answered or withdrawn: nothing else takes it from the person", () => {
    const how = new Set<string>();
    for (const e of traversal().steps) {
      const q = e.state.context.pendingQuestion;
      if (q?.source !== 'remote' || e.nextState.status !== 'active') continue;
      const next = e.nextState.context.pendingQuestion;
      if (next?.key === q.key && next.source === 'remote') continue;
      const out = e.event.type === 'READ_DONE' ? outputOf<ReadStatusOutput>(e.event) : null;
      const withdrawn = out !== null && out.ok && out.observation !== null && !out.observation.remoteBlocked;
      const answeredHere = e.raises.some((r) => r.type === 'REMOTE_ANSWERED');
      how.add(withdrawn ? 'withdrawn' : answeredHere ? 'answered' : e.event.type);
      expect([e.event.type, JSON.stringify(e.state.value), e.state.context.argus.held !== null, withdrawn || answeredHere]).toEqual([e.event.type, JSON.stringify(e.state.value), e.state.context.argus.held !== null, true]);
    }
    expect([...how].sort()).toEqual(['answered', 'withdrawn']);
    // In needs-you the only decision still in memory is one held for the lease: the remote's
    // blocker drops it (settled as interrupted), so no later tick applies it over the question.
    let dropped = 0;
    for (const s of traversal().reachedStates.values()) {
      const a = s.context.argus;
      if (s.status === 'active' && isIn(s, `${ATT}.needs-you`) && (a.wake !== null || a.mission !== null)) expect(a.held).not.toBeNull();
    }
    for (const e of traversal().steps) {
      if (e.event.type !== 'READ_DONE' || !isIn(e.state, `${ATT}.needs-you`) || e.state.context.argus.held === null) continue;
      const out = outputOf<ReadStatusOutput>(e.event);
      if (!out.ok || !out.observation?.events.some((x) => x.class === 'BLOCKED')) continue;
      dropped++;
      expect([e.nextState.context.argus.held, e.nextState.context.argus.mission, e.nextState.context.pendingQuestion?.source]).toEqual([null, null, 'remote']);
      expect(ofType<{ decision: { outcome: string; code: string } }>(e.emitted, 'DECISION_SETTLED').map((d) => [d.decision.outcome, d.decision.code])).toEqual([['interrupted', 'remote_blocked']]);
    }
    expect(dropped, 'held decisions a blocker dropped').toBeGreaterThan(0);
  });

});
