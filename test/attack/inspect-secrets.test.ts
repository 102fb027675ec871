/**
 * Attack on the `inspect` seam: a plugin host's inspector sees every event, snapshot and effect
 * answer of every campaign actor. Against the hostile remote (its token and credential-shaped
 * values in every string it sends), none of that may carry the remote token or our API key.
 * Real loopback hostile remote, real store.
 */
import type { InspectionEvent } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/config/config.js';
import { createSupervisor } from '../../services/runtime/supervisor.js';
import { canary } from '../fixtures/canary.js';
import { startHostileServer } from '../fixtures/hostile-server.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { createScope, envFor, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

/** JSON of what an inspector can read, cycles cut (actor refs are references, not data). */
function text(events: InspectionEvent[]): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(
    events.map((e) => ({ type: e.type, event: (e as { event?: unknown }).event, snapshot: (e as { snapshot?: unknown }).snapshot })),
    (key, value: unknown) => {
      if (key === 'actorRef' || key === 'sourceRef' || key === '_parent' || key === 'system') return undefined;
      if (value && typeof value === 'object') {
        if (seen.has(value)) return '[seen]';
        seen.add(value);
      }
      return value;
    },
  );
}

describe('the inspector a plugin host attaches', () => {
  it('never sees the remote token or the API key, even from a remote that echoes them', { timeout: 20_000 }, async () => {
    const token = canary('inspect-token');
    const apiKey = canary('inspect-api-key');
    const remote = scope.defer(await startHostileServer({ token }), (r) => r.close());
    const stateRoot = await tempStateRoot(scope);
    const inspected: InspectionEvent[] = [];
    const supervisor = await createSupervisor({
      config: loadConfig(envFor({ stateRoot, url: remote.base, token, apiKey })),
      logger: captureLogs().logger,
      inspect: (e) => inspected.push(e),
    });
    await supervisor.start({ heartbeat: false, initialSweep: false });
    scope.defer(supervisor, (s) => s.stop());

    expect((await supervisor.campaigns({ action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: remote.taskId })).ok).toBe(true);
    expect((await supervisor.observe('c1')).ok).toBe(true);
    const claimed = (await supervisor.campaignAction({ campaign_id: 'c1', action: 'claim' })) as { ok: boolean; value?: { lease: { epoch: number } } };
    remote.setMode('poison');
    for (let i = 0; i < 3; i++) await supervisor.observe('c1');
    await supervisor.sweep();
    if (claimed.ok) await supervisor.campaignAction({ campaign_id: 'c1', action: 'intervene', epoch: claimed.value!.lease.epoch, instruction: 'x' });

    const seen = text(inspected);
    expect(inspected.length).toBeGreaterThan(20);
    expect(seen).toContain('READ_DONE');
    expect(remote.poisonReads).toBeGreaterThan(0);
    // The poisoned strings did reach the inspector, redacted.
    expect(seen).toContain('[REDACTED]');
    expect(seen).not.toContain(token);
    expect(seen).not.toContain(apiKey);
  });
});
