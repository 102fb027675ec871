// Attack: one Idempotency-Key reused with a different body that names another campaign.
import { afterEach, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope, envFor, spawnServe, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

it('the same key with a different create body is refused, not a second create', async () => {
  const apiKey = canary('idem-api-key');
  const serve = await spawnServe(scope, envFor({ stateRoot: await tempStateRoot(scope), apiKey }), apiKey);
  const create = (id: string) =>
    fetch(`${serve.address}/api/plugins/argus_supervisor/campaigns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': 'key-1' },
      body: JSON.stringify({ action: 'create', campaign_id: id, objective: 'o' }),
    });
  expect((await create('first')).status).toBe(200);
  const second = await create('second');
  expect(second.status).toBe(422);
  expect(((await second.json()) as { error?: { code: string } }).error?.code).toBe('idempotency_key_reused');
}, 30_000);

it('the same key with a different campaign_action body (another campaign) is refused', async () => {
  const apiKey = canary('idem-api-key');
  const serve = await spawnServe(scope, envFor({ stateRoot: await tempStateRoot(scope), apiKey }), apiKey);
  for (const id of ['a', 'b']) expect((await serve.api('campaigns', { action: 'create', campaign_id: id, objective: 'o' })).status).toBe(200);
  const pause = (id: string) =>
    fetch(`${serve.address}/api/plugins/argus_supervisor/campaign_action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': 'key-2' },
      body: JSON.stringify({ action: 'pause', campaign_id: id }),
    });
  expect((await pause('a')).status).toBe(200);
  expect((await pause('b')).status).toBe(422);
}, 30_000);
