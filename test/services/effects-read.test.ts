/**
 * The status reader against a real simulator: the unchanged path is one request and no document
 * read; a material read reduces; a failure streak counts and raises the one CRITICAL at the
 * third; a recovering read that is noise still stamps observedAt.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createActor, sendTo, setup } from 'xstate';
import type { ReadFailures, ReadStatusInput, ReadStatusOutput, RemoteView } from '../../machines/campaign.types.js';
import { createCampaignEffects, REMOTE_NOT_CONFIGURED } from '../../services/campaign/effects.js';
import { askReader } from '../fixtures/ask-reader.js';
import { CONTROLLER, effectsWorld, type EffectsWorld } from './effects-fixture.js';

const NO_FAILURES: ReadFailures = { consecutive: 0, nextReadAt: null, criticalRaised: false };
const CADENCE = 60_000;

let w: EffectsWorld;
beforeAll(async () => {
  w = await effectsWorld({ pollsPerStage: 1 });
});
afterAll(() => w.close());

function input(taskId: string, over: Partial<ReadStatusInput> = {}): ReadStatusInput {
  return {
    campaignId: 'c-read',
    controllerId: CONTROLLER,
    taskId,
    contextId: w.sim.task(taskId)!.contextId,
    previous: null,
    readFailures: NO_FAILURES,
    createdAt: '2020-01-01T00:00:00.000Z',
    cadenceMs: CADENCE,
    now: new Date().toISOString(),
    ...over,
  };
}

const viewOf = (out: ReadStatusOutput): RemoteView => {
  if (!out.ok || !out.observation) throw new Error(`expected an observation, got ${JSON.stringify(out)}`);
  return out.observation.view;
};

describe('statusReader', () => {
  it('an unchanged fingerprint costs one GetTask and no document read', async () => {
    const [taskId] = w.sim.createTasks(1, 'steady');
    // Past the queued phase: from here on every poll is routine noise.
    w.sim.advance(taskId);
    w.sim.advance(taskId);
    const first = await askReader(w.effects.statusReader, input(taskId!));
    const previous = viewOf(first);

    const requestsBefore = w.requests();
    const getTaskBefore = w.requests('GetTask');
    const keysBefore = w.calls.publishedKeys;
    const before = Date.now();
    const out = await askReader(w.effects.statusReader, input(taskId!, { previous }));
    expect(w.requests() - requestsBefore).toBe(1);
    expect(w.requests('GetTask') - getTaskBefore).toBe(1);
    expect(w.calls.publishedKeys - keysBefore).toBe(0);
    expect(out).toMatchObject({ ok: true, fingerprint: previous.fingerprint, observation: null, readback: null });
    expect(Date.parse(out.requestedAt)).toBeGreaterThanOrEqual(before);
    // The read reached the wire: when the remote answered, and its status text (the view's, memory only).
    expect(out.ok && Date.parse(out.answeredAt!)).toBeGreaterThanOrEqual(Date.parse(out.requestedAt));
    // The simulator's steady task reports its progress as text (noise: the fingerprint ignores it).
    expect(out.ok && out.message).toMatch(/^step \d+\/\d+ loss [\d.]+ \(train\)$/);
  });

  it('a material read reduces with the published keys: first observation, then a stage change', async () => {
    const [taskId] = w.sim.createTasks(1, 'training');
    const keysBefore = w.calls.publishedKeys;
    const first = await askReader(w.effects.statusReader, input(taskId!));
    expect(w.calls.publishedKeys - keysBefore).toBe(1);
    const view = viewOf(first);
    expect(view).toMatchObject({ taskId, contextId: w.sim.task(taskId!)!.contextId });
    if (!first.ok || !first.observation) throw new Error('unreachable');
    expect(first.observation.events.map((e) => e.reason)).toEqual(['first_observation']);

    // The next poll moves the task into a stage: a public STAGE_TRANSITION draft.
    const second = await askReader(w.effects.statusReader, input(taskId!, { previous: view }));
    if (!second.ok || !second.observation) throw new Error(`expected material, got ${JSON.stringify(second)}`);
    expect(second.fingerprint).not.toBe(view.fingerprint);
    expect(second.observation.drafts.map((d) => d.kind)).toContain('STAGE_TRANSITION');

    // A key the document already published is dropped by the reducer (dedupe through deps).
    const [steady] = w.sim.createTasks(1, 'steady');
    w.sim.advance(steady);
    w.sim.advance(steady);
    const probe = await askReader(w.effects.statusReader, input(steady!));
    if (!probe.ok || !probe.observation) throw new Error('unreachable');
    expect(probe.observation.events.map((e) => e.reason)).toEqual(['first_observation']);
    const key = probe.observation.events[0]!.dedupeKey;
    w.published.add(key);
    const deduped = await askReader(w.effects.statusReader, input(steady!, { previous: null }));
    w.published.delete(key);
    if (!deduped.ok || !deduped.observation) throw new Error('unreachable');
    expect(deduped.fingerprint).toBe(probe.fingerprint);
    expect(deduped.observation.events).toEqual([]);
  });

  it('an input-required task is remoteBlocked', async () => {
    const [taskId] = w.sim.createTasks(1, 'blocker');
    for (let i = 0; i < 20 && w.sim.task(taskId!)!.state !== 'input-required'; i++) w.sim.advance(taskId);
    expect(w.sim.task(taskId!)!.state).toBe('input-required');
    const out = await askReader(w.effects.statusReader, input(taskId!));
    if (!out.ok || !out.observation) throw new Error('unreachable');
    expect(out.observation.remoteBlocked).toBe(true);
    expect(out.observation.drafts.map((d) => d.kind)).toContain('NEEDS_YOU');
  });

  it('failures count the streak from input, back off, and raise the CRITICAL at the third only', async () => {
    const [taskId] = w.sim.createTasks(1, 'steady');
    w.sim.advance(taskId);
    w.sim.advance(taskId);
    const previous = viewOf(await askReader(w.effects.statusReader, input(taskId!)));
    w.sim.injectFaults({ kind: 'http-5xx', count: 100, methods: ['GetTask'] });
    let failures: ReadFailures = NO_FAILURES;
    const outs: ReadStatusOutput[] = [];
    for (let i = 0; i < 4; i++) {
      const keysBefore = w.calls.publishedKeys;
      const out = await askReader(w.effects.statusReader, input(taskId!, { previous, readFailures: failures }));
      expect(w.calls.publishedKeys - keysBefore).toBe(1);
      if (out.ok) throw new Error(`expected a failure, got ${JSON.stringify(out)}`);
      outs.push(out);
      failures = { consecutive: out.failure.consecutive, nextReadAt: null, criticalRaised: failures.criticalRaised || out.failure.critical };
      for (const d of out.failure.drafts) w.published.add(d.dedupeKey);
    }
    w.sim.clearFaults();
    const failed = outs.map((o) => (o.ok ? null : o.failure));
    expect(failed.map((f) => f!.consecutive)).toEqual([1, 2, 3, 4]);
    expect(failed.map((f) => f!.critical)).toEqual([false, false, true, false]);
    expect(failed.map((f) => f!.backoffMs)).toEqual([CADENCE, 2 * CADENCE, 4 * CADENCE, 8 * CADENCE]);
    expect(failed[2]!.drafts.map((d) => d.kind)).toEqual(['CRITICAL']);
    expect(failed[3]!.drafts).toEqual([]);
    expect(outs.every((o) => !o.ok && o.code === 'remote_http_status')).toBe(true);
    // Each failed read reached the wire (the remote answered with an HTTP error): answered, not "not configured".
    expect(outs.every((o) => o.answeredAt !== null && Date.parse(o.answeredAt) >= Date.parse(o.requestedAt))).toBe(true);

    // Recovery: the same fingerprint, but the streak ends, so it reduces and stamps observedAt.
    const keysBefore = w.calls.publishedKeys;
    const recovered = await askReader(w.effects.statusReader, input(taskId!, { previous, readFailures: failures }));
    expect(w.calls.publishedKeys - keysBefore).toBe(1);
    if (!recovered.ok || !recovered.observation) throw new Error(`expected a recovering observation, got ${JSON.stringify(recovered)}`);
    expect(recovered.fingerprint).toBe(previous.fingerprint);
    expect(recovered.observation.events).toEqual([]);
    expect(Date.parse(recovered.observation.view.observedAt)).toBeGreaterThan(Date.parse(previous.observedAt));
  });

  it('names the outage by the last observation, so a new outage alerts again', async () => {
    const [taskId] = w.sim.createTasks(1, 'steady');
    const a = { ...viewOf(await askReader(w.effects.statusReader, input(taskId!))), observedAt: '2021-01-01T00:00:00.000Z' };
    const b = { ...a, observedAt: '2021-06-01T00:00:00.000Z' };
    w.sim.injectFaults({ kind: 'http-5xx', count: 2, methods: ['GetTask'] });
    const third: ReadFailures = { consecutive: 2, nextReadAt: null, criticalRaised: false };
    const first = await askReader(w.effects.statusReader, input(taskId!, { previous: a, readFailures: third }));
    const second = await askReader(w.effects.statusReader, input(taskId!, { previous: b, readFailures: third }));
    w.sim.clearFaults();
    if (first.ok || second.ok) throw new Error('expected failures');
    expect(first.failure.drafts[0]!.dedupeKey).not.toBe(second.failure.drafts[0]!.dedupeKey);
  });

  it("a beat's read takes the fleet listing's answer; an operator's OBSERVE always reads the task itself", async () => {
    const [taskId] = w.sim.createTasks(1, 'steady');
    const first = await askReader(w.effects.statusReader, input(taskId!));
    const previous = viewOf(first);
    let offered = 0;
    // A listing that answered this task already (its snapshot is the remote's own, read just now).
    const snapshot = await w.deps.remote!.getTask(taskId!, {});
    if (!snapshot.ok) throw new Error('the task could not be read');
    const fleet = { take: () => (offered++, { snapshot: snapshot.value, requestedAt: new Date().toISOString(), answeredAt: new Date() }) };
    const listed = createCampaignEffects({ ...w.deps, fleet });
    const before = w.requests('GetTask');
    await askReader(listed.statusReader, input(taskId!, { previous, beat: true }));
    expect([offered, w.requests('GetTask') - before]).toEqual([1, 0]);
    await askReader(listed.statusReader, input(taskId!, { previous }));
    await askReader(listed.statusReader, input(taskId!, { previous, beat: false }));
    expect([offered, w.requests('GetTask') - before]).toEqual([1, 2]);
  });

  it('an unchanged listed answer is heard in the same call as its READ (no slot, no promise); a material one still reads the keys', async () => {
    const [taskId] = w.sim.createTasks(1, 'steady');
    w.sim.advance(taskId);
    w.sim.advance(taskId);
    const previous = viewOf(await askReader(w.effects.statusReader, input(taskId!)));
    const snapshot = await w.deps.remote!.getTask(taskId!, {});
    if (!snapshot.ok) throw new Error('the task could not be read');
    const requestedAt = new Date().toISOString();
    const answeredAt = new Date();
    const listed = createCampaignEffects({ ...w.deps, fleet: { take: () => ({ snapshot: snapshot.value, requestedAt, answeredAt }) } });
    // A parent like the chart's: it records what it hears, when it hears it.
    const heardBy = (read: ReadStatusInput) => {
      const heard: { output?: ReadStatusOutput; crashed?: boolean } = {};
      const parent = setup({
        types: { events: {} as { type: 'READ_DONE'; output: ReadStatusOutput } | { type: 'READ_CRASHED' } },
        actors: { reader: listed.statusReader },
      }).createMachine({
        invoke: { id: 'reader', src: 'reader' },
        entry: sendTo('reader', { type: 'READ', input: read }),
        on: {
          READ_DONE: { actions: ({ event }) => (heard.output = event.output) },
          READ_CRASHED: { actions: () => (heard.crashed = true) },
        },
      });
      const actor = createActor(parent).start();
      return { heard, actor };
    };
    const keysBefore = w.calls.publishedKeys;
    const requestsBefore = w.requests();
    const unchanged = heardBy(input(taskId!, { previous, beat: true }));
    // Heard already, synchronously: the same answer a GetTask read of this snapshot gives.
    expect(unchanged.heard.output).toMatchObject({ ok: true, fingerprint: previous.fingerprint, observation: null, requestedAt, answeredAt: answeredAt.toISOString() });
    unchanged.actor.stop();
    expect([w.calls.publishedKeys - keysBefore, w.requests() - requestsBefore]).toEqual([0, 0]);

    // No previous view: material, so the reducer runs with the document's published keys (later).
    const material = heardBy(input(taskId!, { previous: null, beat: true }));
    expect(material.heard).toEqual({});
    await vi.waitFor(() => expect(material.heard.output).toBeDefined());
    expect(material.heard.output!.ok && material.heard.output!.observation !== null).toBe(true);
    expect([w.calls.publishedKeys - keysBefore, w.requests() - requestsBefore]).toEqual([1, 0]);
    material.actor.stop();
  });

  it('with no remote: fails closed with remote_not_configured, reads nothing, counts nothing', async () => {
    const offline = createCampaignEffects({ ...w.deps, remote: null });
    const requestsBefore = w.requests();
    const keysBefore = w.calls.publishedKeys;
    const failures: ReadFailures = { consecutive: 2, nextReadAt: null, criticalRaised: false };
    const out = await askReader(offline.statusReader, input(w.sim.createTasks(1, 'steady')[0]!, { readFailures: failures }));
    expect(out).toMatchObject({ ok: false, code: REMOTE_NOT_CONFIGURED, failure: { consecutive: 2, critical: false, drafts: [] } });
    expect(w.requests() - requestsBefore).toBe(0);
    expect(w.calls.publishedKeys - keysBefore).toBe(0);
  });
});
