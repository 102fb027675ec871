/**
 * Issue 19, defect 7: a `create` sent with an Idempotency-Key whose answer was lost (the process
 * SIGKILLed right after the campaign's document became durable, before it answered) is replayed
 * by a retry with the same key and body — 200 with `Idempotent-Replayed: true` — never refused
 * `campaign_exists`. That holds only if the campaign and its idempotency record are one durable
 * write. The kill is the real thing: `serve` with ARGUS_SUPERVISOR_FAULT_POINT=after_create_write
 * (run `npm run build` first).
 */
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { CLI_ENTRY, createScope, envFor, readDocument, spawnServe, tempStateRoot, type ServeChild } from '../fixtures/supervisor-harness.js';
import { canary } from '../fixtures/canary.js';

const scope = createScope();
afterEach(() => scope.dispose());
beforeAll(() => {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` first`);
});

const KEY = canary('create-crash-api-key');
async function post(child: ServeChild, body: unknown, idempotencyKey?: string) {
  const res = await fetch(`${child.address}/api/plugins/argus_supervisor/campaigns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { ok: boolean; error?: { code: string }; [k: string]: unknown };
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json };
}

describe('a create whose answer was lost to a SIGKILL', () => {
  it('is replayed (200) by a retry with the same key, because the campaign and its record are one write', async () => {
    const sim = scope.defer(await startSimulator({ port: 0 }), (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    const env = envFor({ stateRoot, url: sim.url, apiKey: KEY });
    const [taskId] = sim.createTasks(1, 'training');
    const create = { action: 'create', campaign_id: 'c1', objective: 'created once', remote_task_id: taskId };

    const first = await spawnServe(scope, { ...env, ARGUS_SUPERVISOR_FAULT_POINT: 'after_create_write' }, KEY);
    await expect(post(first, create, 'create-once')).rejects.toThrow();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The campaign is durable; its answer never left the process.
    const doc = await readDocument(stateRoot, 'c1');
    expect(doc.objective).toBe('created once');

    const second = await spawnServe(scope, env, KEY);
    const retried = await post(second, create, 'create-once');
    expect([retried.status, retried.json.error]).toEqual([200, undefined]);
    expect(retried.replayed).toBe('true');
    expect(retried.json).toMatchObject({ ok: true, campaign: { campaign_id: 'c1', objective: 'created once', remote: { task_id: taskId } } });
    // Replayed, not run again: still one campaign, one record, and without the key it is a conflict.
    expect((await readDocument(stateRoot, 'c1')).idempotency).toHaveLength(1);
    const again = await post(second, create);
    expect([again.status, again.json.error?.code]).toEqual([409, 'campaign_exists']);
    // The same key with another body is still refused as a reused key.
    const reused = await post(second, { ...create, objective: 'another' }, 'create-once');
    expect([reused.status, reused.json.error?.code]).toEqual([422, 'idempotency_key_reused']);
  });
});
