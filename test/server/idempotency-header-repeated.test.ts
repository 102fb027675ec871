/**
 * Issue 19, defect 6: an `Idempotency-Key` sent twice (two header lines, which Node joins as
 * `a, b`) or with a comma inside is refused with `400 invalid_request` and changes nothing; it
 * never becomes one key that a later single `a, b` would replay.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../server/http-server.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { startSessionWorld, type SessionWorld } from './session-fixture.js';

const scope = createScope();
afterEach(() => scope.dispose());

/** A create with the given raw header lines (a flat [name, value, …] list, sent as written; such a list gets no Host of its own). */
function createWith(w: SessionWorld, id: string, extra: string[]): Promise<{ status: number; body: any; replayed: boolean }> {
  const body = JSON.stringify({ action: 'create', campaign_id: id, objective: 'o' });
  const url = new URL(`${w.base}${API_PREFIX}/campaigns`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: ['host', url.host, 'content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)), 'x-api-key', w.key, ...extra],
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), replayed: res.headers['idempotent-replayed'] === 'true' }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

describe('a repeated Idempotency-Key', () => {
  it('two header lines are 400 invalid_request and create nothing; a later single "dupA, dupB" is refused too, never replayed', async () => {
    const w = await startSessionWorld(scope);
    const twice = await createWith(w, 'c-twice', ['idempotency-key', 'dupA', 'idempotency-key', 'dupB']);
    expect(twice.status).toBe(400);
    expect(twice.body.error.code).toBe('invalid_request');
    expect(w.supervisor.readModel.getSnapshot().context.campaigns.has('c-twice')).toBe(false);

    const joined = await createWith(w, 'c-twice', ['idempotency-key', 'dupA, dupB']);
    expect(joined.status).toBe(400);
    expect(joined.body.error.code).toBe('invalid_request');
    expect(joined.replayed).toBe(false);
    expect(w.supervisor.readModel.getSnapshot().context.campaigns.has('c-twice')).toBe(false);

    // One key, once, still works (and its retry replays).
    const once = await createWith(w, 'c-once', ['idempotency-key', 'dupA']);
    expect(once.status).toBe(200);
    const again = await createWith(w, 'c-once', ['idempotency-key', 'dupA']);
    expect(again).toMatchObject({ status: 200, replayed: true });
  });
});
