/**
 * Operator text passes the remote-text boundary (issue 19, defect 8): an objective, an answer,
 * submit or intervene text or a cancel reason holding a control character, a bidi override or
 * isolate, a directional mark or a zero-width character is refused with `invalid_request`
 * naming the field, never stripped, and nothing is stored. Ordinary text (accents, CJK, a
 * line break in a multi-line field) passes untouched.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { operatorTextProblem } from '../../adapters/a2a/sanitize.js';
import { startSimulator } from '../../simulator/index.js';
import { createScope, startTestSupervisor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const HOSTILE: [label: string, char: string][] = [
  ['ESC (an ANSI colour)', '\u001b[31m'],
  ['NUL', '\u0000'],
  ['DEL', '\u007f'],
  ['C1 CSI', '\u009b'],
  ['line separator', '\u2028'],
  ...['202a', '202b', '202c', '202d', '202e', '2066', '2067', '2068', '2069'].map((h): [string, string] => [`bidi U+${h.toUpperCase()}`, String.fromCodePoint(parseInt(h, 16))]),
  ...['200e', '200f', '061c'].map((h): [string, string] => [`mark U+${h.toUpperCase()}`, String.fromCodePoint(parseInt(h, 16))]),
  ...['200b', '200c', '200d', 'feff'].map((h): [string, string] => [`zero-width U+${h.toUpperCase()}`, String.fromCodePoint(parseInt(h, 16))]),
];

describe('operatorTextProblem (the shared rule)', () => {
  it.each(HOSTILE)('refuses %s inside a word, in single- and multi-line fields', (_label, char) => {
    expect(operatorTextProblem(`lower${char} lr`)).not.toBeNull();
    expect(operatorTextProblem(`lower${char} lr`, { multiline: true })).not.toBeNull();
  });

  it('names text made only of invisible characters', () => {
    expect(operatorTextProblem('\u200b\u200c\ufeff')).toBe('contains only invisible characters');
    expect(operatorTextProblem('a\u202eb')).toBe('contains invisible or bidirectional control characters');
  });

  it('lets tabs and line breaks through only in multi-line fields; ordinary text always', () => {
    expect(operatorTextProblem('line one\r\n\tline two', { multiline: true })).toBeNull();
    expect(operatorTextProblem('line one\nline two')).toBe('contains control characters or line breaks');
    expect(operatorTextProblem('Reach 76% top-1 — naïve café 日本語 (ü)')).toBeNull();
  });
});

describe('the operator API refuses, never strips', () => {
  async function world() {
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const { supervisor } = await startTestSupervisor(scope, { stateRoot: await tempStateRoot(scope), url: sim.url });
    return { supervisor, sim };
  }

  it('an objective with a bidi override, ESC or only zero-width characters: invalid_request naming objective; nothing is created', async () => {
    const { supervisor } = await world();
    for (const objective of ['Reach 76%\u202e gnitset', 'red \u001b[31malert', '\u200b\u200b\u200b', '\ufeffReach 76%']) {
      const r = await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective });
      expect(r.ok ? 'accepted' : [r.error.code, r.error.message.split(':')[0]], JSON.stringify(objective)).toEqual(['invalid_request', 'objective']);
    }
    const list = await supervisor.campaigns({ action: 'list' });
    expect(list).toMatchObject({ ok: true, value: { campaigns: [] } });
    const clean = 'Reach 76% top-1 — naïve 日本語';
    const created = await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: clean });
    expect(created).toMatchObject({ ok: true, value: { campaign: { objective: clean } } });
  });

  it.each([
    ['answer', 'text', {}],
    ['submit', 'text', { epoch: 1 }],
    ['intervene', 'instruction', { epoch: 1 }],
    ['cancel', 'reason', { epoch: 1 }],
  ] as const)('%s: %s with U+2067 or a NUL is invalid_request naming the field', async (action, field, extra) => {
    const { supervisor } = await world();
    expect((await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'o' })).ok).toBe(true);
    for (const value of ['resume \u2067now', 'resume\u0000 now', '\u200d']) {
      const r = await supervisor.campaignAction({ campaign_id: 'c1', action, ...extra, [field]: value });
      expect(r.ok ? 'accepted' : [r.error.code, r.error.message], JSON.stringify(value)).toEqual(['invalid_request', expect.stringMatching(new RegExp(`^${field}: contains `))]);
    }
    // A line break is ordinary in these fields: the request gets past the text boundary (and is then judged on the campaign's state).
    const typed = await supervisor.campaignAction({ campaign_id: 'c1', action, ...extra, [field]: 'first line\nsecond line' });
    expect(typed.ok ? 'ok' : typed.error.code).not.toBe('invalid_request');
  });
});
