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

    // The authority act: explicit claim, a stale epoch refused locally, a fenced submit, release.
    const text = io.lines.join('\n');
    expect(text).toMatch(/controlling with epoch \d+/);
    expect(text).toContain('refused before any I/O (lease_stale_epoch)');
    expect(text).toMatch(/attempt 2 is \S+/);
    expect(text).toContain('released: back to observer mode');

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
