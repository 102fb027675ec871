/**
 * The effects provided once to the real chart, against a real simulator: a TICK reads and
 * remembers the view, an operator claim takes the lease by readback, and a MUTATE goes
 * readLease → journalIntent → relayMutation and settles applied, journaled before it was sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { CONTROL_METHODS } from '../../adapters/a2a/index.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { describeStates } from '../../machines/campaign.projection.js';
import type { CampaignEmitted, HostEnvironment, RemoteCapabilities } from '../../machines/campaign.types.js';
import { createCampaignEffects } from '../../services/campaign/effects.js';
import { CONTROLLER, effectsWorld, type EffectsWorld } from './effects-fixture.js';

const CAPS: RemoteCapabilities = { claim: true, renew: true, release: true, submit: true, intervene: true, cancel: true, epochEnforced: true, requestReadback: true };
const ENVIRONMENT: HostEnvironment = { capabilities: CAPS, argusAvailable: false, cadenceMs: 60_000 };

let w: EffectsWorld;
beforeAll(async () => {
  w = await effectsWorld();
});
afterAll(() => w.close());

describe('effects provided to the chart', () => {
  it('TICK reads, a claim is confirmed, a mutation is journaled before it is relayed and settles applied', async () => {
    const { ids, contextIds } = w.sim.createTasksDetailed(1, 'steady');
    const binding = { taskId: ids[0]!, contextId: contextIds[0]! };
    // The journal records what the remote had received when the intent became durable.
    const intervenesAtJournal: number[] = [];
    const effects = createCampaignEffects({
      ...w.deps,
      journal: async (campaignId, intent) => {
        intervenesAtJournal.push(w.requests(CONTROL_METHODS.intervene));
        await w.deps.journal(campaignId, intent);
      },
    });
    const actor = createActor(campaignMachine.provide({ actors: effects }), { input: { campaignId: 'c-chart', controllerId: CONTROLLER, binding, environment: ENVIRONMENT } });
    const emitted: CampaignEmitted[] = [];
    actor.on('*', (e) => emitted.push(e as CampaignEmitted));
    actor.start();
    const heartbeatIdle = () => waitFor(actor, (s) => (s.value as { active?: { heartbeat?: string } }).active?.heartbeat === 'idle');

    actor.send({ type: 'TICK', now: new Date().toISOString() });
    await heartbeatIdle();
    expect(actor.getSnapshot().context.remote).toMatchObject({ taskId: binding.taskId, contextId: binding.contextId });
    expect(emitted.find((e) => e.type === 'READ_SETTLED')).toMatchObject({ result: 'changed' });

    actor.send({ type: 'OPERATOR_CLAIM', ttlSeconds: 600, now: new Date().toISOString() });
    await waitFor(actor, (s) => !s.hasTag('effect-in-flight'));
    expect(describeStates(actor.getSnapshot()).authority).toBe('controlling');
    const epoch = actor.getSnapshot().context.lease!.epoch;
    expect(emitted.find((e) => e.type === 'CLAIM_SETTLED')).toMatchObject({ granted: true, epoch });

    const requestId = randomUUID();
    actor.send({
      type: 'MUTATE',
      mutation: { kind: 'intervene', instruction: 'lower the learning rate' },
      requestId,
      epoch,
      approval: { kind: 'operator', principal: 'api-key' },
      now: new Date().toISOString(),
    });
    await waitFor(actor, (s) => !s.hasTag('effect-in-flight'));
    expect(emitted.find((e) => e.type === 'INTENT_SETTLED')).toMatchObject({ requestId, kind: 'intervene', status: 'applied', settledBy: 'response' });
    expect(w.calls.journal.filter((i) => i.requestId === requestId)).toHaveLength(1);
    expect(intervenesAtJournal).toHaveLength(1);
    expect(w.requests(CONTROL_METHODS.intervene) - intervenesAtJournal[0]!).toBe(1);
    expect(w.sim.stats().appliedByRequestId[requestId]).toBe(1);
    expect(describeStates(actor.getSnapshot()).authority).toBe('controlling');
    actor.stop();
  });
});
