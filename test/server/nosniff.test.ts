/**
 * `X-Content-Type-Options: nosniff` on every answer of the one listener, not only the page's:
 * the public health, an API answer, a refusal, an unknown route and /metrics.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../server/http-server.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { startSessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('nosniff', () => {
  it('is on every answer', async () => {
    const w = await startSessionWorld(scope);
    const json = { 'content-type': 'application/json' };
    const answers = await Promise.all([
      fetch(`${w.base}/health`),
      fetch(`${w.base}${API_PREFIX}/status`, { method: 'POST', headers: { ...json, 'x-api-key': w.key }, body: '{}' }),
      fetch(`${w.base}${API_PREFIX}/status`, { method: 'POST', headers: json, body: '{}' }),
      fetch(`${w.base}/no-such-route`),
      fetch(`${w.base}/metrics`, { headers: { 'x-api-key': w.key } }),
      fetch(`${w.base}/`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 200, 200]);
    for (const r of answers) expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
