/**
 * An objective (or any operator text) carrying our own API key or the remote's token, say an
 * operator pasting it by mistake, is refused at the edge: nothing is stored, shown, sent to the
 * remote or handed to a model. (Found by a flow test: the objective was once stored verbatim in
 * the campaign document and shown in every view, although the Argus envelope redacted it.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('operator text carrying our own credential', () => {
  it('an objective with our API key (any case) is refused, and no campaign exists afterwards', async () => {
    const w = await decisionWorld(scope);
    const [taskId] = w.sim.createTasks(1, 'training');
    for (const secret of [w.apiKey, w.apiKey.toUpperCase(), w.token]) {
      const created = await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: `reach 0.9; api key ${secret}`, remote_task_id: taskId! });
      expect(created).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect(JSON.stringify(created)).not.toContain(secret);
    }
    expect(w.supervisor.status().campaigns).toEqual([]);
    expect(existsSync(path.join(w.stateRoot, 'campaigns', 'c1.json'))).toBe(false);
  });

  it('an instruction or answer with the remote token is refused before the chart sees it', async () => {
    const w = await decisionWorld(scope);
    const [taskId] = w.sim.createTasks(1, 'training');
    expect((await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'reach 0.9', remote_task_id: taskId! })).ok).toBe(true);
    const before = JSON.stringify(w.sim.stats().requests);
    const refused = await w.act('c1', { action: 'intervene', epoch: 1, instruction: `use token ${w.token}` });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const answered = await w.act('c1', { action: 'answer', text: `here: ${w.apiKey}` });
    expect(answered).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(JSON.stringify(w.sim.stats().requests)).toBe(before);
  });
});
