/**
 * FAILS ON PURPOSE until the product redacts it (reported to the lead): an objective that
 * carries our own API key (an operator pasting it by mistake) is redacted in the Argus
 * envelope (adapters/argus/envelope.ts neutralises it with our secrets) but is stored verbatim
 * in the campaign document (services/api/campaigns-route.ts passes `req.objective` as is) and
 * shown verbatim in every campaign view. The standard is "secrets never appear in logs,
 * responses or state files"; an operator answer carrying the same key is already kept out of
 * the document (canaries.test.ts), so only the objective leaks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { docText, view } from './flow-helpers.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('an objective carrying our API key', () => {
  it('is not stored or shown verbatim', async () => {
    const w = await decisionWorld(scope);
    const [taskId] = w.sim.createTasks(1, 'training');
    const created = await w.supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: `reach 0.9; api key ${w.apiKey}`, remote_task_id: taskId! });
    expect(created.ok, JSON.stringify(created)).toBe(true);
    expect(JSON.stringify(created)).not.toContain(w.apiKey);
    expect(view(w).objective).not.toContain(w.apiKey);
    expect(docText(w)).not.toContain(w.apiKey);
  });
});
