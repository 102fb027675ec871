import { describe, expect, it } from 'vitest';
import { materialFingerprint } from '../../services/reducer/fingerprint.js';
import { lease, snap } from './fixtures.js';

const base = snap({ artifacts: [{ id: 'a1', name: 'ckpt' }, { id: 'a2', name: null }] });
const fp = materialFingerprint(base);

describe('materialFingerprint', () => {
  it.each([
    ['revision bump', snap({ artifacts: base.artifacts }, { revision: 99 })],
    ['status text and digest (routine stdout)', snap({ artifacts: base.artifacts, latestAgentMessageDigest: 'other', latestAgentMessageExcerpt: 'step 11' })],
    ['remote timestamp', snap({ artifacts: base.artifacts, timestamp: '2031-01-01T00:00:00Z' })],
    ['lease renewal (expiresAt only)', snap({ artifacts: base.artifacts }, { lease: lease({ expiresAt: '2031-01-01T00:00:00Z', ttlSeconds: 900 }) })],
    ['artifact listing order', snap({ artifacts: [...base.artifacts].reverse() })],
    ['artifact display name', snap({ artifacts: [{ id: 'a1', name: 'renamed' }, { id: 'a2', name: null }] })],
  ])('ignores %s', (_name, changed) => {
    expect(materialFingerprint(changed)).toBe(fp);
  });

  it.each([
    ['task id', snap({ id: 'task-2', artifacts: base.artifacts })],
    ['state', snap({ state: 'completed', artifacts: base.artifacts })],
    ['stage', snap({ artifacts: base.artifacts }, { stage: 'eval' })],
    ['attempt', snap({ artifacts: base.artifacts }, { attempt: 2 })],
    ['attemptId', snap({ artifacts: base.artifacts }, { attemptId: 'att-2' })],
    ['a new artifact', snap({ artifacts: [...base.artifacts, { id: 'a3', name: null }] })],
    ['lease holder', snap({ artifacts: base.artifacts }, { lease: lease({ holder: 'someone-else' }) })],
    ['lease epoch', snap({ artifacts: base.artifacts }, { lease: lease({ epoch: 4 }) })],
    ['lease gone', snap({ artifacts: base.artifacts }, { lease: null })],
    ['missionComplete', snap({ artifacts: base.artifacts }, { missionComplete: true })],
    ['control metadata disappearing (0.2.5 remote)', snap({ artifacts: base.artifacts }, null)],
  ])('changes with %s', (_name, changed) => {
    expect(materialFingerprint(changed)).not.toBe(fp);
  });

  it('treats an absent missionComplete as false', () => {
    const { missionComplete: _drop, ...control } = base.control!;
    expect(materialFingerprint({ ...base, control })).toBe(fp);
  });

  it('is cheap enough for 10,000 campaigns per tick', () => {
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) materialFingerprint(base);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
