/**
 * The fifth fenced mutation, `answer`, below the chart: the journal and relay effects exactly
 * as the chart invokes them, against a real loopback simulator, with the intent journaled by a
 * real supervisor's campaign host into real files. An answer is one fenced SendMessage to the
 * task that asked, journaled before it leaves, never retried; the remote applies it only while
 * the task is input-required and the epoch is current. A decision already consumed is refused
 * by the journal itself: the effect resolves with the code and nothing is written or sent.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import type { BindingFacts, Mutation } from '../../machines/campaign.types.js';
import { recordIntentOutcome } from '../../persistence/intent-journal.js';
import type { CampaignStore } from '../../persistence/campaign-store.js';
import { createCampaignEffects, JournalRefusedError } from '../../services/campaign/effects.js';
import { BLOCKER_QUESTION, RIVAL_CONTROLLER_ID } from '../../simulator/index.js';
import { run } from '../services/effects-fixture.js';
import { authorityWorld, type AuthorityWorld } from './authority-fixture.js';

const CONTROLLER = 'argus-answer-test';
let w: AuthorityWorld;
let client: A2AClient;
let effects: ReturnType<typeof createCampaignEffects>;
let campaigns = 0;

beforeAll(async () => {
  w = await authorityWorld({ pollsPerStage: 1 });
  client = createA2AClient({ baseUrl: w.sim.url });
  expect((await client.discover()).ok).toBe(true);
  effects = createCampaignEffects({
    controllerId: CONTROLLER,
    remote: client,
    now: () => new Date(),
    // The production journal write: the campaign's ledger (its write queue), the store, fsync, rename.
    journal: (id, intent) => w.supervisor.system!.ledger.journal(id, intent),
    publishedKeys: async () => new Set(),
  });
});
afterAll(async () => {
  await client?.close();
  await w?.close();
});

/** A campaign of the real supervisor (its document is where the intent is journaled). */
async function campaign(taskId: string): Promise<string> {
  const id = `answer-${++campaigns}`;
  const created = await w.supervisor.campaigns({ action: 'create', campaign_id: id, objective: 'fine-tune a model', remote_task_id: taskId });
  expect(created.ok, JSON.stringify(created)).toBe(true);
  return id;
}

const documentPath = (id: string) => (w.supervisor.store as CampaignStore).layout.documentPath(id);

/** A task of `scenario` in its own context, leased by CONTROLLER; a blocker is moved to its question. */
async function leasedTask(scenario: 'blocker' | 'steady') {
  const { ids, contextIds } = w.sim.createTasksDetailed(1, scenario);
  const taskId = ids[0]!;
  if (scenario === 'blocker') for (let i = 0; i < 20 && w.sim.task(taskId)!.state !== 'input-required'; i++) w.sim.advance(taskId);
  const binding: BindingFacts = { taskId, contextId: contextIds[0]! };
  const out = await run(effects.claimLease, { campaignId: 'x', controllerId: CONTROLLER, ttlSeconds: 600, binding });
  if (!out.readback) throw new Error(`claim failed: ${JSON.stringify(out)}`);
  return { taskId, binding, epoch: out.readback.epoch, campaignId: await campaign(taskId) };
}

/** At each mutation request's arrival (before the remote acts on it): what was on disk for it. */
function watchArrivals(campaignId: string) {
  const seen: { requestId: string | null; action: string; method: string; onDisk: unknown }[] = [];
  const stop = w.sim.onMutationRequest((entry) => {
    const doc = JSON.parse(readFileSync(documentPath(campaignId), 'utf8')) as { intents: { requestId: string }[] };
    seen.push({ requestId: entry.requestId, action: entry.action, method: entry.method, onDisk: doc.intents.find((i) => i.requestId === entry.requestId) ?? null });
  });
  return { seen, stop };
}

const answerOf = (text: string): Mutation => ({ kind: 'answer', text, questionKey: 'q-1' });

/** journalIntent then relayMutation, as the chart runs them for an accepted answer. */
async function journalAndRelay(campaignId: string, binding: BindingFacts, epoch: number, text: string, decisionId: string | null = null) {
  const requestId = randomUUID();
  const mutation = answerOf(text);
  const journaled = await run(effects.journalIntent, { campaignId, requestId, kind: 'answer', epoch, mutation, binding, decisionId });
  expect(journaled.refusedCode).toBeNull();
  const relayed = await run(effects.relayMutation, { campaignId, controllerId: CONTROLLER, epoch, requestId, mutation, binding });
  return { requestId, relayed };
}

const ledgerOf = (requestId: string) => w.sim.ledger().entries.filter((e) => e.requestId === requestId).map(({ action, method, disposition, reason }) => ({ action, method, disposition, reason }));

describe('answer: applied once, journaled first', () => {
  it('sends one fenced SendMessage at our epoch; the intent was on disk when it arrived; the task resumes its script', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    expect(w.sim.task(taskId)!.state).toBe('input-required');
    const before = w.sim.stats();
    const arrivals = watchArrivals(campaignId);
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'yes, lower it to 1e-4', 'dec-applied-1');
    arrivals.stop();

    expect(relayed).toEqual({ outcome: 'applied', requestId, taskId: null });
    expect(arrivals.seen).toEqual([
      {
        requestId,
        action: 'answer',
        method: 'SendMessage',
        onDisk: expect.objectContaining({ requestId, action: 'answer', epoch, decisionId: 'dec-applied-1', outcome: null }),
      },
    ]);
    const after = w.sim.stats();
    expect(after.requests['SendMessage']! - (before.requests['SendMessage'] ?? 0)).toBe(1);
    expect(after.mutationsApplied.answer - before.mutationsApplied.answer).toBe(1);
    expect(after.appliedByRequestId[requestId]).toBe(1);
    expect(ledgerOf(requestId)).toEqual([{ action: 'answer', method: 'SendMessage', disposition: 'applied', reason: null }]);
    // The consumed decision is on disk with the intent.
    const doc = JSON.parse(await readFile(documentPath(campaignId), 'utf8')) as { consumedDecisions: string[] };
    expect(doc.consumedDecisions).toEqual(['dec-applied-1']);

    expect(w.sim.task(taskId)!.state).toBe('working');
    const readback = await run(effects.readBackIntent, { campaignId, requestId, kind: 'answer', readbackSupported: true });
    expect(readback).toEqual({ requestId, status: 'applied', taskId });
    for (let i = 0; i < 20 && w.sim.task(taskId)!.state !== 'completed'; i++) w.sim.advance(taskId);
    expect(w.sim.task(taskId)!.state).toBe('completed');
  });

  it('a timeout after the send is in doubt, never re-sent; the readback by request id settles it as an applied answer', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    const before = w.sim.stats().requests['SendMessage'] ?? 0;
    w.sim.injectFaults({ kind: 'lost-response', methods: ['SendMessage'] });
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'resume from the last checkpoint');
    w.sim.clearFaults();
    expect(relayed).toMatchObject({ outcome: 'ambiguous', requestId });
    expect((w.sim.stats().requests['SendMessage'] ?? 0) - before).toBe(1);
    expect(ledgerOf(requestId)).toEqual([{ action: 'answer', method: 'SendMessage', disposition: 'applied', reason: null }]);
    expect(await run(effects.readBackIntent, { campaignId, requestId, kind: 'answer', readbackSupported: true })).toEqual({ requestId, status: 'applied', taskId });
    // A readback that expects another kind of action settles nothing.
    expect((await run(effects.readBackIntent, { campaignId, requestId, kind: 'submit', readbackSupported: true })).status).toBe('unavailable');
  });
});

describe('answer: refused by the remote, nothing changes', () => {
  it('a stale epoch (a rival took the context) is rejected with the lease lost; the question still waits', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    w.sim.takeover(binding.contextId!, RIVAL_CONTROLLER_ID, 600);
    const arrivals = watchArrivals(campaignId);
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'yes');
    arrivals.stop();
    expect(relayed).toEqual({ outcome: 'rejected', requestId, code: 'lease_stale_epoch', leaseLost: true });
    expect(arrivals.seen.map((s) => [s.action, s.onDisk !== null])).toEqual([['answer', true]]);
    expect(ledgerOf(requestId)).toEqual([{ action: 'answer', method: 'SendMessage', disposition: 'rejected', reason: 'lease_stale_epoch' }]);
    expect(w.sim.task(taskId)!.state).toBe('input-required');
  });

  it('a lease that expired is not held: rejected, lease lost', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    w.sim.advanceClock(601);
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'yes');
    expect(relayed).toEqual({ outcome: 'rejected', requestId, code: 'lease_not_held', leaseLost: true });
    expect(w.sim.task(taskId)!.state).toBe('input-required');
  });

  it('a task that asks nothing (working) refuses the answer with task_not_awaiting_input, the lease kept', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('steady');
    w.sim.advance(taskId);
    const summary = w.sim.task(taskId);
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'lower it');
    expect(relayed).toEqual({ outcome: 'rejected', requestId, code: 'task_not_awaiting_input', leaseLost: false });
    expect(w.sim.task(taskId)).toEqual(summary);
    expect(ledgerOf(requestId)).toEqual([{ action: 'answer', method: 'SendMessage', disposition: 'rejected', reason: 'task_not_awaiting_input' }]);
  });

  it('a question answered once does not take a second answer', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    const first = await journalAndRelay(campaignId, binding, epoch, 'first');
    expect(first.relayed.outcome).toBe('applied');
    // What the chart's save does with the relay's answer (no chart runs here): the intent is settled.
    const settled = await w.supervisor.store!.transact(campaignId, (doc) => {
      const r = recordIntentOutcome(doc, first.requestId, { status: 'applied', settledBy: 'response', at: new Date() });
      return r.ok ? r.doc : null;
    });
    expect(settled.ok).toBe(true);
    const summary = w.sim.task(taskId);
    const { requestId, relayed } = await journalAndRelay(campaignId, binding, epoch, 'second');
    expect(relayed).toEqual({ outcome: 'rejected', requestId, code: 'task_not_awaiting_input', leaseLost: false });
    expect(w.sim.task(taskId)).toEqual(summary);
  });

  it('an answer without the task or its context sends nothing', async () => {
    const before = w.sim.stats().requests['SendMessage'] ?? 0;
    const mutation = answerOf('x');
    for (const binding of [{ taskId: null, contextId: 'ctx-1' }, { taskId: 'task-1', contextId: null }]) {
      const out = await run(effects.relayMutation, { campaignId: 'x', controllerId: CONTROLLER, epoch: 1, requestId: randomUUID(), mutation, binding });
      expect(out).toMatchObject({ outcome: 'rejected', code: 'binding_incomplete', leaseLost: false });
    }
    expect(w.sim.stats().requests['SendMessage'] ?? 0).toBe(before);
  });
});

describe('answer: a consumed decision', () => {
  it('resolves with decision_consumed, writes nothing and sends nothing; other journal refusals still reject', async () => {
    const { taskId, binding, epoch, campaignId } = await leasedTask('blocker');
    expect(w.sim.task(taskId)!.state).toBe('input-required');
    const first = await journalAndRelay(campaignId, binding, epoch, 'yes', 'dec-once');
    expect(first.relayed.outcome).toBe('applied');

    const bytes = await readFile(documentPath(campaignId), 'utf8');
    const requests = JSON.stringify(w.sim.stats().requests);
    const again = await run(effects.journalIntent, {
      campaignId,
      requestId: randomUUID(),
      kind: 'answer',
      epoch,
      mutation: answerOf('yes, again'),
      binding,
      decisionId: 'dec-once',
    });
    expect(again).toEqual({ journaledAt: expect.any(String), refusedCode: 'decision_consumed' });
    expect(Number.isFinite(Date.parse(again.journaledAt))).toBe(true);
    expect(await readFile(documentPath(campaignId), 'utf8')).toBe(bytes);
    expect(JSON.stringify(w.sim.stats().requests)).toBe(requests);

    // Another decision while the first intent is still open: the journal refuses, the effect rejects.
    const blocked = run(effects.journalIntent, { campaignId, requestId: randomUUID(), kind: 'answer', epoch, mutation: answerOf('other'), binding, decisionId: 'dec-other' });
    await expect(blocked).rejects.toThrow('intent_unresolved');
    await expect(blocked).rejects.toBeInstanceOf(JournalRefusedError);
    expect(await readFile(documentPath(campaignId), 'utf8')).toBe(bytes);
  });
});

it('the blocker scenario asks its question in input-required (the task these answers reply to)', async () => {
  const { ids } = w.sim.createTasksDetailed(1, 'blocker');
  for (let i = 0; i < 20 && w.sim.task(ids[0]!)!.state !== 'input-required'; i++) w.sim.advance(ids[0]);
  const read = await client.getTask(ids[0]!);
  expect(read.ok && read.value.state).toBe('input-required');
  expect(read.ok && read.value.latestAgentMessageExcerpt).toContain(BLOCKER_QUESTION.slice(0, 60));
});
