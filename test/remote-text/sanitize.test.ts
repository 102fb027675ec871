/**
 * The remote-text boundary as tables: what each hostile input becomes (stripped, redacted,
 * capped), which identifiers pass, and that a normalized snapshot of a fully poisoned task
 * respects every cap in REMOTE_TEXT_CAPS and carries neither a secret nor a control character.
 */
import { describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';
import { normalizeTask } from '../../adapters/a2a/normalize.js';
import { checkAnswerIsAbout } from '../../adapters/a2a/remote-fields.js';
import { isRemoteIdentifier, redactSecrets, REMOTE_TEXT_CAPS, sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import { canary } from '../fixtures/canary.js';
import { FORBIDDEN_CHARS, stringsIn } from '../fixtures/hostile-harness.js';
import { poison } from '../fixtures/hostile-server.js';

const TOKEN = canary('sanitize-token');

describe('sanitizeRemoteText', () => {
  it.each([
    ['ANSI colour and screen clear', '\u001b[31mred\u001b[0m \u001b[2Jdone', 'red done'],
    ['NUL and bell become spaces', 'a\u0000b\u0007c', 'a b c'],
    ['C1 controls and DEL', 'a\u0085b\u0090c\u007fd', 'a b c d'],
    ['a C1 CSI sequence is removed whole', 'a\u009b2Jb', 'ab'],
    ['bidi overrides and isolates are removed', 'safe\u202e\u2066txt.exe\u2069\u202c', 'safetxt.exe'],
    ['zero-width characters and BOM are removed', 'to\u200bk\u200ce\u200dn\u2060\ufeff', 'token'],
    ['the exact token', `key ${TOKEN} end`, 'key [REDACTED] end'],
    ['the token in another case', `key ${TOKEN.toLowerCase()}`, 'key [REDACTED]'],
    ['the token split by a zero-width character', `key ${TOKEN.slice(0, 10)}\u200b${TOKEN.slice(10)}`, 'key [REDACTED]'],
    ['a Bearer value (any token)', 'Authorization failed for Bearer xyz.abc-123', 'Authorization failed for Bearer [REDACTED]'],
    ['an X-API-KEY header', 'sent X-API-KEY: hunter2hunter2', 'sent X-API-KEY: [REDACTED]'],
    ['an Authorization header with its scheme (the credential, not the scheme word)', `Authorization: Bearer ${canary('header-bearer')}`, 'Authorization: Bearer [REDACTED]'],
    ['a Proxy-Authorization header with Basic', `Proxy-Authorization: Basic ${canary('proxy-basic')}`, 'Proxy-Authorization: Basic [REDACTED]'],
    ['an url-encoded Authorization header', `authorization%3ABearer%20${canary('encoded-bearer')}`, 'authorization: Bearer [REDACTED]'],
    ['a Negotiate Authorization header', `Authorization: Negotiate ${canary('negotiate')}`, 'Authorization: Negotiate [REDACTED]'],
    ['an AWS4 Authorization header (credential, signed headers and signature)', `Authorization: AWS4-HMAC-SHA256 Credential=${canary('aws-cred')}, SignedHeaders=host, Signature=${canary('aws-sig')}`, 'Authorization: AWS4-HMAC-SHA256 [REDACTED]'],
    ['an Authorization value with no scheme, to the end of the value', `Authorization: ${canary('bare-auth')} and then more`, 'Authorization: [REDACTED]'],
    ['an x-api-key query value', 'GET /?x-api-key=abcdef1234 HTTP/1.1', 'GET /?x-api-key: [REDACTED] HTTP/1.1'],
    ['an api_key assignment', `api_key="${canary('assigned-key')}"`, 'api_key: [REDACTED]"'],
    ['basic auth', `Basic ${Buffer.from(`user:${canary('basic-pass')}`).toString('base64')}`, 'Basic [REDACTED]'],
    ['whitespace collapses', '  a \n\n\t b  ', 'a b'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeRemoteText(input, [TOKEN], 200)).toBe(expected);
  });

  it.each([
    ['identifier', REMOTE_TEXT_CAPS.identifier],
    ['stage', REMOTE_TEXT_CAPS.stage],
    ['excerpt', REMOTE_TEXT_CAPS.excerpt],
  ])('caps at the %s cap (%i) with an ellipsis, whatever the input size', (_field, cap) => {
    const out = sanitizeRemoteText('z'.repeat(200 * 1024), [], cap);
    expect(out).toHaveLength(cap);
    expect(out.endsWith('…')).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    const out = sanitizeRemoteText('😀'.repeat(100), [], 10);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
  });

  it('ignores secrets too short to be credentials', () => {
    expect(redactSecrets('a b c', ['a'])).toBe('a b c');
  });
});

describe('isRemoteIdentifier', () => {
  it.each([
    ['task-1', true],
    ['2f1c7a9e-8b7d-4c1e-9d1a-3b2c1d0e9f8a', true],
    ['urn:ot:ctx/42', true],
    ['', false],
    ['x'.repeat(REMOTE_TEXT_CAPS.identifier), true],
    ['x'.repeat(REMOTE_TEXT_CAPS.identifier + 1), false],
    ['has space', false],
    ['ctx\u202eA', false],
    ['ctx\u0000A', false],
    ['ctx"A', false],
    [TOKEN, false],
    [`ctx-${TOKEN}`, false],
  ])('%j → %s', (value, valid) => {
    expect(isRemoteIdentifier(value, [TOKEN])).toBe(valid);
  });
});

const wire = (over: Record<string, unknown> = {}, control: Record<string, unknown> = {}) => ({
  id: 'task-A',
  contextId: 'ctx-A',
  status: { state: 'TASK_STATE_WORKING' },
  metadata: { [CONTROL_EXTENSION_URI]: { revision: 1, stage: 'train', attempt: 1, attemptId: 'att-1', lease: null, ...control } },
  ...over,
});
const lease = (over: Record<string, unknown> = {}) => ({ contextId: 'ctx-A', holder: 'argus-openoperator', epoch: 1, expiresAt: '2030-01-01T00:10:00.000Z', ttlSeconds: 600, ...over });

describe('normalizeTask through the boundary', () => {
  it('caps, strips and redacts every field of a fully poisoned task', () => {
    const p = (label: string) => poison(label, TOKEN, 200 * 1024);
    const r = normalizeTask(
      wire(
        {
          status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: p('ts'), message: { role: 'ROLE_AGENT', parts: [{ text: p('status') }] } },
          artifacts: Array.from({ length: 100 }, (_, i) => ({ artifactId: p(`art-${i}`), name: p(`name-${i}`) })),
        },
        { stage: p('stage'), attemptId: p('attempt') },
      ),
      [TOKEN],
    );
    if (!r.ok) throw new Error(r.error.message);
    const s = r.value;
    expect(s.control!.stage!.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.stage);
    expect(s.control!.stage).toMatch(/^stage \[REDACTED\]/);
    expect(s.control!.attemptId!.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.identifier);
    expect(s.latestAgentMessageExcerpt!.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.excerpt);
    expect(s.timestamp!.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.instant);
    expect(s.artifacts).toHaveLength(REMOTE_TEXT_CAPS.artifacts);
    for (const a of s.artifacts) {
      expect(a.id.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.identifier);
      expect(a.name!.length).toBeLessThanOrEqual(REMOTE_TEXT_CAPS.artifactName);
    }
    const text = JSON.stringify(s);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toMatch(/xyz-not-the-token/);
    for (const str of stringsIn(s)) expect(str).not.toMatch(FORBIDDEN_CHARS);
  });

  it.each([
    ['a task id that is not an identifier', wire({ id: 'task A' })],
    ['a context id carrying a bidi override', wire({ contextId: 'ctx\u202eA' })],
    ['a context id that is the token', wire({ contextId: TOKEN })],
    ['a 200 KB context id', wire({ contextId: 'c'.repeat(200 * 1024) })],
    ['a lease holder with a zero-width character', wire({}, { lease: lease({ holder: 'argus-openoperator\u200b' }) })],
    ['a lease on another context than the task', wire({}, { lease: lease({ contextId: 'ctx-OTHER' }) })],
    ['a lease expiry that is not an instant', wire({}, { lease: lease({ expiresAt: 'soon' }) })],
  ])('refuses %s as remote_payload_invalid', (_name, task) => {
    const r = normalizeTask(task, [TOKEN]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('remote_payload_invalid');
  });

  it.each([
    ['another task id', { taskId: 'task-B' }, false],
    ['another bound context', { taskId: 'task-A', contextId: 'ctx-B' }, false],
    ['the asked task, context not yet bound', { taskId: 'task-A', contextId: null }, true],
    ['the asked task in the bound context', { taskId: 'task-A', contextId: 'ctx-A' }, true],
  ])('an answer about %s is accepted: %s', (_name, expected, accepted) => {
    const snapshot = normalizeTask(wire(), []);
    if (!snapshot.ok) throw new Error('fixture');
    const r = checkAnswerIsAbout(snapshot.value, expected);
    expect(r.ok).toBe(accepted);
    if (!r.ok) expect(r.error.code).toBe('remote_payload_invalid');
  });
});
