/**
 * A supervisor whose right to host was taken over (owner.json now names another owner with a
 * greater fence) refuses every campaign call before it writes anything: the API answers 503
 * `not_owner` with one sentence, logs it at error, and the documents on disk stay exactly as
 * they were. (Before its actors stopped on a lost right, each write answered `hosting_lost`.)
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen, API_PREFIX } from '../../server/http-server.js';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { startSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, documentPath, envFor, httpCall, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const apiKey = canary('api-key');
const token = canary('remote-token');

describe('a supervisor deposed by a takeover', () => {
  it('answers 503 not_owner to every write, logs it, and changes nothing on disk', async () => {
    const stateRoot = await tempStateRoot(scope);
    const sim = scope.defer(await startSimulator({ port: 0, token }), (s) => s.close());
    const { logger, lines } = captureLogs('info');
    const supervisor = await createSupervisor({ config: loadConfig(envFor({ stateRoot, url: sim.url, token, apiKey })), logger });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    scope.defer(supervisor, (s) => s.stop());
    const app = scope.defer(createHttpServer({ supervisor, apiKey, logger }), (a) => a.close());
    const base = (await listen(app, { kind: 'tcp', host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    const post = (route: string, body: unknown) => httpCall(`${base}${API_PREFIX}/${route}`, { body, headers: { 'x-api-key': apiKey } });

    const [taskId] = sim.createTasks(1, 'training');
    expect((await post('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: taskId })).status).toBe(200);
    const bytes = await fsp.readFile(documentPath(stateRoot, 'c1'));

    // What a takeover writes: another owner, the next fence.
    const ownerFile = path.join(stateRoot, 'owner.json');
    const record = JSON.parse(await fsp.readFile(ownerFile, 'utf8')) as { pid: number; fencing: number };
    await fsp.writeFile(ownerFile, JSON.stringify({ ...record, pid: record.pid + 1, claimId: 'the-new-owner', fencing: record.fencing + 1 }));

    for (const answer of [
      await post('campaign_action', { campaign_id: 'c1', action: 'pause' }),
      await post('campaigns', { action: 'create', campaign_id: 'c2', objective: 'o', remote_task_id: taskId }),
    ]) {
      expect([answer.status, answer.json.error?.code]).toEqual([503, 'not_owner']);
      expect(answer.json.error?.message).toMatch(/^[^.]+\.$/);
    }
    expect(await fsp.readFile(documentPath(stateRoot, 'c1'))).toEqual(bytes);
    await expect(fsp.stat(documentPath(stateRoot, 'c2'))).rejects.toMatchObject({ code: 'ENOENT' });
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 50 && l.code === 'not_owner');
    expect(logged.map((l) => l.campaignId)).toEqual(['c1', 'c2']);
    // The lost right is noticed once, and stop() leaves the new owner's record alone.
    expect(lines.filter((l) => l.includes('state_root_taken_over'))).toHaveLength(1);
    await supervisor.stop();
    expect(JSON.parse(await fsp.readFile(ownerFile, 'utf8'))).toMatchObject({ claimId: 'the-new-owner', releasedAt: null });
  });
});
