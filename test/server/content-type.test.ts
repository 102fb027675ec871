/**
 * The API takes only `application/json` bodies: `text/plain` (which Fastify parses by default)
 * and a form are `415 invalid_request` with the one sentence docs/api.md names, and nothing is
 * created. JSON still works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../server/http-server.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { startSessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('request content type', () => {
  it('text/plain and a form are 415; application/json is accepted', async () => {
    const w = await startSessionWorld(scope);
    const send = (type: string, body: string) => fetch(`${w.base}${API_PREFIX}/campaigns`, { method: 'POST', headers: { 'content-type': type, 'x-api-key': w.key }, body });
    const create = JSON.stringify({ action: 'create', campaign_id: 'ct-1', objective: 'o' });
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
      const res = await send(type, create);
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ ok: false, error: { code: 'invalid_request', message: 'Send the request body as application/json.' } });
    }
    const list = await send('application/json', JSON.stringify({ action: 'list' }));
    expect(list.status).toBe(200);
    expect(((await list.json()) as { campaigns: unknown[] }).campaigns).toEqual([]);
  });
});
