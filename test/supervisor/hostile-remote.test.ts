/**
 * Issue 7, defect 1, against a hand-written hostile A2A 1.0 remote over real loopback: 100
 * observes of a 200 KB stage that changes and grows on every read, poisoned with controls,
 * bidi and zero-width characters, the remote's own token and credential-shaped values. The
 * document stays under its documented bound (docs/remote-text.md), the token appears nowhere
 * (API answers, document, events JSONL, logs) and no API answer carries a control character.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REMOTE_TEXT_CAPS } from '../../adapters/a2a/sanitize.js';
import { forbiddenIn, startHostileFixture } from '../fixtures/hostile-harness.js';
import { createScope, documentPath, eventsOf } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

/** The documented bound of one campaign document, whatever the remote sends (docs/remote-text.md). */
const DOCUMENT_BOUND_BYTES = 256 * 1024;
const OBSERVES = 100;

describe('a hostile remote that poisons every string it sends', () => {
  it('cannot grow the document past its bound, leak the token or put a control character in any answer', async () => {
    const f = await startHostileFixture(scope);
    f.remote.setMode('poison');
    const created = await f.post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'watch a liar', remote_task_id: f.remote.taskId });
    expect(created.status, created.text).toBe(200);

    let largest = 0;
    for (let i = 0; i < OBSERVES; i++) {
      const observed = await f.post('campaign_action', { campaign_id: 'c1', action: 'observe' });
      expect(observed.status, observed.text.slice(0, 300)).toBe(200);
      expect(observed.json.ok).toBe(true);
      largest = Math.max(largest, (await stat(documentPath(f.stateRoot, 'c1'))).size);
    }
    // The remote really served 100+ poisoned reads, each with a 200 KB stage (plus create's read).
    expect(f.remote.poisonReads).toBe(OBSERVES + 1);
    expect(largest).toBeLessThan(DOCUMENT_BOUND_BYTES);

    // Every read was material (the stage changed), so the outbox really filled up and trimmed.
    const events = eventsOf(f.supervisor, 'c1');
    expect(events.filter((e) => e.kind === 'STAGE_TRANSITION').length).toBeGreaterThan(10);
    expect(events.filter((e) => e.kind === 'NEEDS_YOU').length).toBeGreaterThan(10);

    const got = await f.post('campaigns', { action: 'get', campaign_id: 'c1' });
    const campaign = got.json.campaign as { remote: { stage: string }; pending_question: { key: string; text: string } | null };
    expect(campaign.remote.stage.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.stage);
    expect(campaign.remote.stage).toMatch(/^stage-\d+ \[REDACTED\]/);
    await f.post('campaigns', { action: 'list' });
    await f.post('status');
    await f.post('health');

    // No API answer carries the token (or the API key) or any control/bidi/zero-width character.
    expect(f.answers.length).toBe(OBSERVES + 5);
    for (const answer of f.answers) {
      expect(answer.text).not.toContain(f.token);
      expect(answer.text).not.toContain(f.apiKey);
      expect(forbiddenIn(answer.text), answer.text.slice(0, 200)).toEqual([]);
    }

    // Nor does anything the supervisor wrote: the document, the events JSONL, the log lines.
    const docText = await readFile(documentPath(f.stateRoot, 'c1'), 'utf8');
    const jsonl = await readFile(path.join(f.stateRoot, 'events', 'c1.jsonl'), 'utf8');
    expect(jsonl.split('\n').filter(Boolean).length).toBeGreaterThan(20);
    for (const text of [docText, jsonl, ...f.lines]) expect(text).not.toContain(f.token);
    expect(forbiddenIn(docText, { pretty: true })).toEqual([]);
    for (const line of jsonl.split('\n').filter(Boolean)) expect(forbiddenIn(line)).toEqual([]);
    expect(f.lines.length).toBeGreaterThan(0);
  });
});
