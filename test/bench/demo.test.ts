/**
 * The demo, in process: what the probe sees, the public events of a supervised training
 * campaign and a blocker, the remote's question answered under a lease, the authority act,
 * the SIMULATED Argus deciding a third campaign (proposal, Reviewer approval, fenced relay, a
 * question the operator answers), model calls equal to the decision-worthy events, and a
 * silent tally.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDemo, type DemoIo } from '../../bin/commands/demo.js';
import { removeScratch } from '../fixtures/scratch.js';

function capture(): DemoIo & { out: (line: string) => void; lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line) };
}

/** The JSON block printed after "Probe sees:". */
function probeReport(lines: string[]): Record<string, unknown> {
  const start = lines.indexOf('Probe sees:') + 1;
  const end = lines.indexOf('}', start);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return JSON.parse(lines.slice(start, end + 1).join('\n')) as Record<string, unknown>;
}

const eventLines = (lines: string[], kind: string, campaign: string) =>
  lines.filter((l) => new RegExp(`^\\s+poll \\d+\\s+${kind}\\s+${campaign}\\s`).test(l));

describe('demo', () => {
  it('probes, narrates only public events, clears the NEEDS_YOU and reports a silent tally', async () => {
    const io = capture();
    const result = await runDemo({}, io);

    expect(io.errors).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(probeReport(io.lines)).toMatchObject({ protocolVersion: '1.0', controlExtension: true });

    expect(eventLines(io.lines, 'ATTEMPT_COMPLETED', 'demo-training')).toHaveLength(1);
    // One line per completed attempt, never a repeat: training's one, and the decided campaign's two.
    expect(eventLines(io.lines, 'ATTEMPT_COMPLETED', 'demo-decision').concat(eventLines(io.lines, 'ATTEMPT_COMPLETED', 'demo-blocker'))).toEqual([]);
    expect(io.lines.filter((l) => /^\s+sweep \d+\s+ATTEMPT_COMPLETED\s+demo-decision\s/.test(l)).map((l) => l.replace(/^.*demo-decision\s+/, ''))).toEqual([
      'Attempt 1 completed',
      'Attempt 2 completed',
    ]);
    expect(io.lines.filter((l) => l.includes('ATTEMPT_COMPLETED'))).toHaveLength(3);
    const needsYou = eventLines(io.lines, 'NEEDS_YOU', 'demo-blocker');
    expect(needsYou).toHaveLength(1);
    expect(needsYou[0]).toContain('Validation loss diverged');
    expect(io.lines.some((l) => l.includes('NEEDS_YOU cleared'))).toBe(true);

    // Routine progress (revision, loss, stdout) never reaches a person.
    const narrated = io.lines.filter((l) => /^\s+poll \d+/.test(l));
    expect(narrated.length).toBe(result.tally.publicEvents);
    expect(result.tally.routineSuppressed).toBeGreaterThan(0);
    expect(result.tally.polls).toBeGreaterThan(narrated.length);
    // Decision-worthy events of the observed campaigns (completion, the question, the answer) were
    // recorded as wake requests; no mission is bound to them, so no model ran for them, which the
    // tally says in words (the decision act below counts its own).
    expect(result.tally.wakeRequests).toBeGreaterThan(0);
    expect(result.tally.modelCalls).toBe(0);
    const tally = io.lines.find((l) => l.startsWith('Tally:'));
    expect(tally).toContain(`${result.tally.polls} polls`);
    expect(tally).toContain(`no Argus mission is bound to the observed campaigns, so 0 model calls for them`);

    // Every claim about authority is a measured fact: the counters, not the sentence, are checked.
    const fact = (claim: string) => {
      const found = result.facts.find((f) => f.claim === claim);
      expect(found, `fact ${claim}`).toBeDefined();
      return found!.measured;
    };
    expect(result.facts.map((f) => [f.claim, f.holds])).toEqual([
      ['attach_sends_no_mutation', true],
      ['answer_not_sent_without_lease', true],
      ['answer_relayed_once_under_lease', true],
      ['claim_confirmed_by_readback', true],
      ['stale_epoch_refused_before_io', true],
      ['submit_journaled_then_sent', true],
      ['release_returns_to_observer', true],
      ['completion_woke_argus_once', true],
      ['foreman_hint_only', true],
      ['proposal_approved_by_its_own_reviewer', true],
      ['approved_decision_relayed_once', true],
      ['answer_reached_argus', true],
      ['model_calls_equal_decision_events', true],
    ]);
    expect(fact('attach_sends_no_mutation').mutation_requests).toBe(0);
    // The remote's own question: refused without the lease before any I/O, then relayed once under it.
    expect(fact('answer_not_sent_without_lease')).toEqual({ refused: true, code: 'lease_required', mutation_requests: 0 });
    expect(fact('answer_relayed_once_under_lease')).toEqual({ arrivals: 1, applied_at_remote: 1, journal_entries: 1, journal_outcome: 'applied' });
    expect(fact('claim_confirmed_by_readback')).toMatchObject({ claims_applied: 1 });
    expect(fact('claim_confirmed_by_readback').lease_reads).toBeGreaterThanOrEqual(1);
    const stale = fact('stale_epoch_refused_before_io');
    expect(stale).toMatchObject({ refused: true, code: 'lease_stale_epoch' });
    expect(stale.requests_before).toBeGreaterThan(0);
    expect(stale.requests_after).toBe(stale.requests_before);
    expect(stale.intents_after).toBe(stale.intents_before);
    expect(fact('submit_journaled_then_sent')).toEqual({ journaled_at_arrival: true, arrivals: 1, applied_at_remote: 1, journal_outcome: 'applied' });
    expect(fact('release_returns_to_observer')).toEqual({ releases_applied: 1, mode: 'observer' });
    // The sentence prints the same numbers it was built from.
    expect(io.lines.join('\n')).toContain(`remote requests before ${stale.requests_before}, after ${stale.requests_after}`);

    // The decision act: SIMULATED Argus, said plainly; its story in order; counts measured and equal.
    expect(io.lines).toContain(
      'Argus decides one campaign (SIMULATED Argus: simulator/argus, a scripted Manager, daemon and Reviewer; no model runs; SIMULATED Foreman: simulator/foreman/fake_foreman.py, a deterministic python shim):',
    );
    const story = [
      /^ {2}demo-decision\s+-> task-\d+: observing, mission bound to Argus project s-[0-9a-f]{8} \(binding live\)$/,
      /^ {2}operator claims: controlling with epoch 1$/,
      /^ {2}sweep \d+\s+ATTEMPT_COMPLETED\s+demo-decision\s+Attempt 1 completed$/,
      /^ {2}Argus woken once \(argus_message calls: 1\) with EVENT_KEY attempt:task-\d+:att-1:terminal;/,
      /^ {2}SIMULATED Foreman assessed attempt 1 first \(1 run\); Argus got its directive as a hint in the untrusted block: "[A-Z_]+: SIMULATED: /,
      /^ {2}Argus proposal .*: submit dec-[0-9a-f]+ "Attempt 2: /,
      /^ {2}Reviewer verdict: mission_complete for item [0-9a-f]+, the item dispatched for this event -> approved$/,
      /^ {2}relayed: journal \{request [0-9a-f]{8}…, submit, epoch 1, decision dec-[0-9a-f]+\} -> applied; the simulator received it once \(ledger #\d+ submit applied\)/,
      /^ {2}sweep \d+\s+NEEDS_YOU\s+demo-decision\s/,
      /^ {2}NEEDS_YOU \(asked by Argus, key argus-[0-9a-f]+-\d+\): "/,
      /^ {2}operator answers argus-[0-9a-f]+-\d+: "/,
      /^ {2}the answer reached Argus once \(argus_message marked OPERATOR_ANSWER_FOR [0-9a-f]+; the item is resolved\), nothing went to the remote \(actions: 0\); its continuation settled: approved observe$/,
      /^ {2}decision-worthy events: 3 /,
      /^ {2}operator releases \(observing\) and closes demo-decision \(closed\)$/,
    ];
    const at = story.map((pattern) => io.lines.findIndex((l) => pattern.test(l)));
    expect(at.every((i) => i >= 0), JSON.stringify(at)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(fact('completion_woke_argus_once').argus_messages).toBe(1);
    expect(fact('foreman_hint_only')).toMatchObject({ foreman_runs: 1 });
    expect(fact('proposal_approved_by_its_own_reviewer')).toMatchObject({ proposal: 'found', kind: 'submit', mission_complete_for_event: 1 });
    expect(fact('approved_decision_relayed_once')).toEqual({ journal_entries: 1, journal_outcome: 'applied', epoch: 1, remote_received: 1, remote_applied: 1, consumed: 1 });
    expect(fact('answer_reached_argus')).toEqual({ answer_messages: 1, item_status: 'resolved', remote_actions: 0, last: 'approved' });
    // Completion 1, completion 2 and the operator's answer: one Argus turn each, nothing else.
    const counts = fact('model_calls_equal_decision_events');
    expect(counts).toMatchObject({ decision_worthy_events: 3, model_calls: 5, argus_calls: 3, foreman_calls: 2, foreman_runs: 2, completed_attempts: 2, settled: 'relayed,question,approved' });
    const countLine = io.lines.find((l) => l.includes('decision-worthy events:'));
    expect(countLine).toContain(`decision-worthy events: ${counts.decision_worthy_events} (Argus wakes in the wake log, settled relayed, question, approved)`);
    expect(countLine).toContain(`model calls: ${counts.model_calls} = ${counts.argus_calls} Argus turns + ${counts.foreman_calls} SIMULATED Foreman runs, one per completed attempt (2) (argus_supervisor_model_calls_total`);

    // Four acts, three campaigns: still a page, not a log.
    expect(io.lines.length).toBeLessThan(80);
  });

  it('keeps the documents in --state-root and picks fresh campaign names on a second run', async () => {
    const root = await mkdtemp(join(tmpdir(), 'argus-demo-test-'));
    try {
      expect((await runDemo({ stateRoot: root }, capture())).exitCode).toBe(0);
      const second = capture();
      expect((await runDemo({ stateRoot: root }, second)).exitCode).toBe(0);
      expect(eventLines(second.lines, 'ATTEMPT_COMPLETED', 'demo-training-2')).toHaveLength(1);
      const files = (await readdir(join(root, 'campaigns'))).sort();
      expect(files).toEqual(['demo-blocker-2.json', 'demo-blocker.json', 'demo-training-2.json', 'demo-training.json']);
      // The decision act keeps its own supervisor's documents beside them, fresh names too.
      expect((await readdir(join(root, 'decision-act', 'campaigns'))).sort()).toEqual(['demo-decision-2.json', 'demo-decision.json']);
      expect(second.lines.some((l) => /^ {2}sweep \d+\s+ATTEMPT_COMPLETED\s+demo-decision-2\s+Attempt 1 completed$/.test(l))).toBe(true);
    } finally {
      await removeScratch(root);
    }
  });

  it('exits 1 with one line on stderr when the campaigns do not settle in time', async () => {
    const io = capture();
    const result = await runDemo({ maxPolls: 2 }, io);
    expect(result.exitCode).toBe(1);
    expect(io.errors).toEqual(['demo failed: the campaigns did not settle within 2 polls']);
  });
});
