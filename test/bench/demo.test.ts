/**
 * The demo, in process: what the probe sees, the public events of a supervised training
 * campaign and a blocker, the NEEDS_YOU clearing on an answer, and a silent tally.
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
    expect(io.lines.filter((l) => l.includes('ATTEMPT_COMPLETED'))).toHaveLength(1);
    const needsYou = eventLines(io.lines, 'NEEDS_YOU', 'demo-blocker');
    expect(needsYou).toHaveLength(1);
    expect(needsYou[0]).toContain('Validation loss diverged');
    expect(io.lines.some((l) => l.includes('NEEDS_YOU cleared'))).toBe(true);

    // Routine progress (revision, loss, stdout) never reaches a person.
    const narrated = io.lines.filter((l) => /^\s+poll \d+/.test(l));
    expect(narrated.length).toBe(result.tally.publicEvents);
    expect(result.tally.routineSuppressed).toBeGreaterThan(0);
    expect(result.tally.polls).toBeGreaterThan(narrated.length);
    // Decision-worthy events (completion, the question, the answer) were recorded as wake requests;
    // no model runtime is wired into the demo, which the tally says in words.
    expect(result.tally.wakeRequests).toBeGreaterThan(0);
    const tally = io.lines.find((l) => l.startsWith('Tally:'));
    expect(tally).toContain(`${result.tally.polls} polls`);
    expect(tally).toContain('no model runtime is connected in this build');

    // Every claim about authority is a measured fact: the counters, not the sentence, are checked.
    const fact = (claim: string) => {
      const found = result.facts.find((f) => f.claim === claim);
      expect(found, `fact ${claim}`).toBeDefined();
      return found!.measured;
    };
    expect(result.facts.map((f) => [f.claim, f.holds])).toEqual([
      ['attach_sends_no_mutation', true],
      ['answer_not_sent_without_lease', true],
      ['claim_confirmed_by_readback', true],
      ['stale_epoch_refused_before_io', true],
      ['submit_journaled_then_sent', true],
      ['release_returns_to_observer', true],
    ]);
    expect(fact('attach_sends_no_mutation').mutation_requests).toBe(0);
    expect(fact('answer_not_sent_without_lease').mutation_requests).toBe(0);
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

    expect(io.lines.length).toBeLessThan(50);
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
