import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, normalizeState, normalizeTask, taskSnapshotSchema } from '../../adapters/a2a/index.js';
import { EXCERPT_MAX } from '../../adapters/a2a/normalize.js';
import { controlBlock, wireTask, type WireDialect } from '../fixtures/wire.js';
import { canary } from '../fixtures/canary.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const DIALECTS: WireDialect[] = ['1.0', '0.3', '0.2.5'];

describe('state normalization', () => {
  it.each([
    ['TASK_STATE_SUBMITTED', 'submitted'],
    ['TASK_STATE_WORKING', 'working'],
    ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
    ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
    ['TASK_STATE_COMPLETED', 'completed'],
    ['TASK_STATE_FAILED', 'failed'],
    ['TASK_STATE_CANCELED', 'canceled'],
    ['TASK_STATE_REJECTED', 'rejected'],
    ['TASK_STATE_UNSPECIFIED', 'unknown'],
    ['submitted', 'submitted'],
    ['input-required', 'input-required'],
    ['auth-required', 'auth-required'],
    ['canceled', 'canceled'],
    ['cancelled', 'canceled'],
    ['unknown', 'unknown'],
    ['paused-by-martians', 'unknown'],
  ])('%s → %s', (raw, normalized) => {
    expect(normalizeState(raw)).toBe(normalized);
  });
});

describe.each(DIALECTS)('dialect %s task → TaskSnapshot', (dialect) => {
  it('normalizes a working task with artifacts, status message and control metadata', () => {
    const raw = wireTask(dialect, {
      id: 't-1',
      contextId: 'ctx-1',
      state: 'input-required',
      statusText: 'need a dataset path',
      artifacts: [{ id: 'a-1', name: 'ckpt' }, { id: 'a-2' }],
      metadata: controlBlock(),
    });
    const r = normalizeTask(raw, []);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(taskSnapshotSchema.parse(r.value)).toEqual(r.value);
    expect(r.value).toEqual({
      id: 't-1',
      contextId: 'ctx-1',
      state: 'input-required',
      timestamp: '2026-01-01T00:00:00.000Z',
      artifacts: [
        { id: 'a-1', name: 'ckpt' },
        { id: 'a-2', name: null },
      ],
      latestAgentMessageDigest: sha256('need a dataset path'),
      latestAgentMessageExcerpt: 'need a dataset path',
      control: {
        revision: 7,
        stage: 'training',
        attempt: 1,
        attemptId: 'att-1',
        lease: { contextId: 'ctx-1', holder: 'argus-openoperator', epoch: 3, expiresAt: '2026-01-01T00:10:00.000Z', ttlSeconds: 600 },
        missionComplete: false,
      },
    });
  });

  it('falls back to the last agent entry in history (where 0.2.5 hosts put results)', () => {
    const raw = wireTask(dialect, {
      id: 't',
      contextId: 'c',
      state: 'completed',
      history: [
        { role: 'user', text: 'go' },
        { role: 'agent', text: 'first' },
        { role: 'agent', text: 'final: 0.12' },
        { role: 'user', text: 'thanks' },
      ],
    });
    const r = normalizeTask(raw, []);
    expect(r.ok && r.value.latestAgentMessageExcerpt).toBe('final: 0.12');
    expect(r.ok && r.value.latestAgentMessageDigest).toBe(sha256('final: 0.12'));
  });

  it('has null message fields and null control when neither is present', () => {
    const r = normalizeTask(wireTask(dialect, { id: 't', contextId: 'c', state: 'submitted' }), []);
    expect(r.ok && r.value).toMatchObject({ latestAgentMessageDigest: null, latestAgentMessageExcerpt: null, control: null, artifacts: [] });
  });

  it('rejects a present-but-invalid control block as remote_malformed', () => {
    const raw = wireTask(dialect, { id: 't', contextId: 'c', state: 'working', metadata: controlBlock({ revision: -1 }) });
    const r = normalizeTask(raw, []);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'remote_malformed', outcome: 'ambiguous' });
  });
});

describe('tolerant of unknown fields, strict on types', () => {
  const base = { id: 't', contextId: 'c', status: { state: 'working' } };

  it('ignores fields it does not know', () => {
    const r = normalizeTask({ ...base, futureField: { x: 1 }, status: { state: 'working', extra: true }, metadata: { other: 1 } }, []);
    expect(r.ok && r.value.state).toBe('working');
  });

  it('ignores a null control block (the remote has nothing to report)', () => {
    const r = normalizeTask({ ...base, metadata: { [CONTROL_EXTENSION_URI]: null } }, []);
    expect(r.ok && r.value.control).toBeNull();
  });

  it.each([
    ['numeric id', { ...base, id: 7 }],
    ['missing contextId', { id: 't', status: { state: 'working' } }],
    ['numeric state', { ...base, status: { state: 3 } }],
    ['artifacts not a list', { ...base, artifacts: {} }],
    ['parts not a list', { ...base, status: { state: 'working', message: { role: 'agent', parts: 'hi' } } }],
    ['not an object', 'task'],
  ])('rejects %s', (_name, raw) => {
    const r = normalizeTask(raw, []);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('remote_malformed');
  });

  it('ignores the text of a user-role status message and non-text parts', () => {
    const r = normalizeTask(
      { ...base, status: { state: 'working', message: { role: 'user', parts: [{ text: 'me' }] } }, history: [{ role: 'ROLE_AGENT', parts: [{ data: { a: 1 } }, { text: 'hi' }] }] },
      [],
    );
    expect(r.ok && r.value.latestAgentMessageExcerpt).toBe('hi');
  });
});

describe('excerpts are untrusted and bounded; the digest is of the full text', () => {
  it('redacts secrets, strips controls, truncates', () => {
    const secret = canary('remote-token');
    const text = `token ${secret} \u001b[31mred\u001b[0m\u0000 ${'y'.repeat(2000)}`;
    const r = normalizeTask({ id: 't', contextId: 'c', status: { state: 'working', message: { role: 'agent', parts: [{ text }] } } }, [secret]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.latestAgentMessageDigest).toBe(sha256(text));
    const excerpt = r.value.latestAgentMessageExcerpt ?? '';
    expect(excerpt.startsWith('token [REDACTED] red ')).toBe(true);
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_MAX);
    expect(excerpt).not.toMatch(/[\u0000-\u001f]/);
  });
});
