/**
 * `serve` listens first and discovers in the background (issue 18, item 2): an agent card
 * served at 1 byte/s by the real loopback simulator never keeps a real `serve` child from
 * answering `/health`; until discovery succeeds the authenticated health says so and a claim
 * is refused `remote_unavailable` at once.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { createScope, httpCall, startServe, tempStateRoot } from '../fixtures/supervisor-harness.js';

const API_KEY = canary('slow-card-api-key');
const scope = createScope();
let sim: RunningSimulator | null = null;
afterEach(async () => {
  await scope.dispose();
  await sim?.close();
  sim = null;
});

describe('an agent card served at 1 byte/s', () => {
  it('a serve child answers /health within 2 s of asking for the card, says it is still discovering, and refuses a claim remote_unavailable', async () => {
    sim = await startSimulator({ port: 0 });
    // Every card fetch trickles (each ~68 min at 1 B/s): discovery cannot finish in this test.
    sim.injectFaults({ kind: 'trickle', count: 100, methods: ['agentCard'], delayMs: 1_000 });
    const root = await tempStateRoot(scope);
    // When the first card fetch reaches the simulator, discovery has begun: from then on, /health
    // must answer within 2 s (process start and module loading come before, and vary with load).
    let discoveryBegan: number | null = null;
    const watch = setInterval(() => {
      if (discoveryBegan === null && (sim!.stats().requests['agentCard'] ?? 0) > 0) discoveryBegan = performance.now();
    }, 5);
    scope.defer(watch, clearInterval);
    const serve = startServe(
      scope,
      {
        ARGUS_SUPERVISOR_ENABLED: '1',
        OPENTRAINING_A2A_URL: sim.url,
        ARGUS_SUPERVISOR_STATE_ROOT: root,
        ARGUS_SUPERVISOR_API_KEY: API_KEY,
        ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '60',
      },
      API_KEY,
    );
    const child = await serve.ready;
    const health = await httpCall(`${child.address}/health`);
    const answered = performance.now();
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('ok');
    expect(discoveryBegan, 'the card was asked for before serve listened').not.toBeNull();
    expect(answered - discoveryBegan!, 'from the first card request to the first /health answer').toBeLessThan(2_000);

    const own = await child.api('health');
    expect(own.status).toBe(200);
    expect((own.json as { remote: { discovery: string; protocol_version: unknown } }).remote).toMatchObject({ discovery: 'discovering', protocol_version: null });

    // A campaign is created without a task read (none is bound) and a claim does not wait for discovery.
    expect((await child.api('campaigns', { action: 'create', campaign_id: 'c1', objective: 'fine-tune a model' })).status).toBe(200);
    const asked = performance.now();
    const claim = await child.api('campaign_action', { campaign_id: 'c1', action: 'claim' });
    expect(performance.now() - asked).toBeLessThan(2_000);
    expect([claim.status, claim.json.error?.code]).toEqual([503, 'remote_unavailable']);
  }, 30_000);
});
