/**
 * Restoring the decision boundaries (campaign@5), the way the host restores a document
 * (campaign-host.ts: checkRestorable, then settleInterrupted): older snapshots become @5, and
 * nothing that was in flight is replayed. An Argus turn in flight becomes an "interrupted"
 * NEEDS_YOU; a status poll, a verification or a binding in flight restores before it; no restore
 * ever invokes argusTurn again (the restored actor's children, and what it invokes next).
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor, type AnyActorLogic } from 'xstate';
import { initialArgusMemory } from '../../machines/campaign.argus.js';
import { campaignMachine, CAMPAIGN_MACHINE_VERSION } from '../../machines/campaign.machine.js';
import { checkRestorable, settleInterrupted, withEnvironment } from '../../machines/campaign.restore.js';
import type { ArgusCheckOutput, ArgusTurnOutput, BindMissionOutput, CampaignEmitted, ForemanAssessOutput, ReadStatusInput, ReadStatusOutput, VerifyBindingOutput } from '../../machines/campaign.types.js';
import { readerOf } from '../fixtures/ask-reader.js';
import { checkOutputs, DECISION_READS, DEADLINE, ITEM, PROJECT, WOKE_AT } from './graph-decisions.js';
import { BOUND, claimEvent, CLAIM_OUTPUTS, ENV, NOW, tick } from './graph-events.js';

/** Argus's runtime is here (the decision effects run); the remote as discovered. */
const ARGUS_ENV = { ...ENV, argusAvailable: true };
const INPUT = { campaignId: 'camp-1', maxAttempts: 2, binding: BOUND, environment: ARGUS_ENV };
const LATER_NOW = '2030-01-01T01:00:00.000Z';
const never = <T>() => new Promise<T>(() => {});
type Read = Extract<ReadStatusOutput, { ok: true }>;

/** Effects that answer as each test says; by default a decision effect never answers (it is "in flight"). */
function world(over: { read?: Read; turn?: () => Promise<ArgusTurnOutput>; check?: () => Promise<ArgusCheckOutput>; foreman?: () => Promise<ForemanAssessOutput>; bind?: () => Promise<BindMissionOutput>; verify?: () => Promise<VerifyBindingOutput> } = {}) {
  const calls = { argusTurn: vi.fn(), argusCheck: vi.fn(), foremanAssess: vi.fn(), bindMission: vi.fn(), verifyBinding: vi.fn() };
  const effect = <T>(name: keyof typeof calls, answer?: () => Promise<T>) =>
    fromPromise<T, unknown>(({ input }) => {
      calls[name](input);
      return answer ? answer() : never<T>();
    });
  const read = over.read ?? (DECISION_READS.completedNoForeman as Read);
  const logic = campaignMachine.provide({
    actors: {
      // The remote as the reducer sees it: this read once, then unchanged (a published event is never handed back).
      statusReader: readerOf(async (input: ReadStatusInput) =>
        input.previous === null ? { ...read, requestedAt: input.now } : { ...read, requestedAt: input.now, fingerprint: input.previous.fingerprint, observation: null },
      ),
      claimLease: fromPromise(async () => CLAIM_OUTPUTS[0]!),
      argusTurn: effect('argusTurn', over.turn),
      argusCheck: effect('argusCheck', over.check),
      foremanAssess: effect('foremanAssess', over.foreman),
      bindMission: effect<BindMissionOutput>('bindMission', over.bind ?? (async () => ({ ok: true, projectId: PROJECT }))),
      verifyBinding: effect('verifyBinding', over.verify),
    } as never,
  });
  return { logic, calls };
}

/** A campaign bound to its mission, with the events that follow (each settled before the next). */
async function bound(logic: AnyActorLogic) {
  const actor = createActor(logic, { input: INPUT }).start();
  actor.send({ type: 'BIND_MISSION' });
  await waitFor(actor, (s) => s.context.argus.projectId === PROJECT && s.matches({ active: { attention: 'idle' } }));
  return actor;
}

/** JSON on disk, then the host's restore path; the NEEDS_YOU and wake-log records it hands back. */
function restore(snapshot: unknown, version = CAMPAIGN_MACHINE_VERSION): { snapshot: unknown; emitted: CampaignEmitted[] } {
  const check = checkRestorable(JSON.parse(JSON.stringify({ version, snapshot })), BOUND);
  if (!check.ok) throw new Error(`refused ${check.version}`);
  // As the host restores it: settled, then with this process's environment.
  const settled = settleInterrupted(check.snapshot, LATER_NOW);
  return { ...settled, snapshot: withEnvironment(settled.snapshot, ARGUS_ENV) };
}
const start = (logic: AnyActorLogic, snapshot: unknown) => createActor(logic, { snapshot: snapshot as never, input: INPUT }).start();
const childIds = (actor: { getSnapshot(): { children: Record<string, unknown> } }) => Object.keys(actor.getSnapshot().children).sort();

describe('campaign@3 and @4 snapshots restore as campaign@5', () => {
  /** What campaign@4 wrote: no `argus` memory, attention a plain string (`awaiting-review` the inert placeholder). */
  async function v4(attention: string) {
    const { logic } = world();
    const actor = createActor(logic, { input: INPUT }).start();
    actor.send(claimEvent());
    await waitFor(actor, (s) => s.matches({ active: { authority: { controlling: 'ready' } } }));
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as { context: Record<string, unknown>; value: { active: Record<string, unknown> } };
    actor.stop();
    const { argus: _argus, ...context } = persisted.context;
    return { ...persisted, context, value: { active: { ...persisted.value.active, attention } } };
  }

  it.each([
    ['campaign@4', 'idle', { idle: 'quiet' }],
    ['campaign@4', 'awaiting-review', { idle: 'quiet' }],
    ['campaign@4', 'needs-you', 'needs-you'],
    ['campaign@3', 'idle', { idle: 'quiet' }],
    ['campaign@3', 'awaiting-review', { idle: 'quiet' }],
  ])('%s with attention %s restores in %j with the default Argus memory, invoking nothing', async (version, attention, expected) => {
    const { logic, calls } = world();
    const { snapshot, emitted } = restore(await v4(attention), version);
    const actor = start(logic, snapshot);
    expect(actor.getSnapshot().value).toEqual({ active: { authority: { controlling: 'ready' }, attention: expected, heartbeat: 'idle' } });
    expect(actor.getSnapshot().context.argus).toEqual(initialArgusMemory());
    expect([emitted, childIds(actor)]).toEqual([[], ['statusReader']]);
    for (const fn of Object.values(calls)) expect(fn).not.toHaveBeenCalled();
    actor.stop();
  });

  it('a paused @4 snapshot whose history names the placeholder resumes in idle', async () => {
    const paused = { ...(await v4('awaiting-review')), value: 'paused', historyValue: { 'campaign.active.attention.before-pause': [{ id: 'campaign.active.attention.awaiting-review' }] }, children: {} };
    const { logic, calls } = world();
    const actor = start(logic, restore(paused, 'campaign@4').snapshot);
    expect(actor.getSnapshot().value).toBe('paused');
    expect(actor.getSnapshot().context.argus).toEqual(initialArgusMemory());
    actor.send({ type: 'RESUME', now: NOW });
    expect(actor.getSnapshot().value).toEqual({ active: { authority: 'observing', attention: { idle: 'quiet' }, heartbeat: 'idle' } });
    expect(calls.argusTurn).not.toHaveBeenCalled();
    actor.stop();
  });
});

describe('campaign@5: a decision in flight is settled on restore, never replayed', () => {
  it('a paused campaign restored asks its binding again after the resume (every restore does)', async () => {
    const first = world({ read: { ...(DECISION_READS.completedNoForeman as Read), observation: null, fingerprint: 'fp-seen' } });
    const actor = await bound(first.logic);
    actor.send({ type: 'PAUSE' });
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const again = world({ read: { ...(DECISION_READS.completedNoForeman as Read), observation: null, fingerprint: 'fp-seen' }, verify: async () => ({ ok: true }) });
    const restored = start(again.logic, restore(persisted).snapshot);
    expect([restored.getSnapshot().value, restored.getSnapshot().context.argus.bindingVerified]).toEqual(['paused', false]);
    restored.send({ type: 'RESUME', now: NOW });
    restored.send(tick());
    await waitFor(restored, (s) => s.context.argus.bindingVerified && s.matches({ active: { heartbeat: 'idle' } }));
    expect([again.calls.verifyBinding.mock.calls, again.calls.argusTurn.mock.calls.length]).toEqual([[[{ projectId: PROJECT }]], 0]);
    restored.stop();
  });

  it('an Argus turn in flight restores in needs-you with an interrupted-<n> receipt, and settleInterrupted hands back its DECISION_SETTLED and NEEDS_YOU draft', async () => {
    const first = world();
    const actor = await bound(first.logic);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { attention: { 'awaiting-review': 'turn' } } }));
    expect(first.calls.argusTurn).toHaveBeenCalledTimes(1);
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const receipts = actor.getSnapshot().context.argus.receipts;

    const again = world({ turn: async () => ({ ok: true, wokeAt: WOKE_AT, deadlineAt: DEADLINE, turn: { kind: 'chat' } }) });
    const { snapshot, emitted } = restore(persisted);
    const restored = start(again.logic, snapshot);
    const s = restored.getSnapshot();
    const key = `interrupted-${receipts + 1}`;
    expect(s.value).toEqual({ active: { authority: 'observing', attention: 'needs-you', heartbeat: 'idle' } });
    expect(s.context.pendingQuestion).toMatchObject({ key, source: 'argus', itemId: null, askedAt: LATER_NOW });
    expect(s.context.argus).toMatchObject({ wake: null, mission: null, bindingVerified: false, receipts: receipts + 1 });
    expect(emitted.map((e) => e.type)).toEqual(['DECISION_SETTLED', 'PUBLIC_DRAFTS']);
    expect(emitted[0]).toMatchObject({ decision: { outcome: 'interrupted', code: 'restart_interrupted', dedupeKey: 'attempt:task-1:att-1:terminal', at: LATER_NOW } });
    expect(emitted[1]).toMatchObject({ drafts: [{ kind: 'NEEDS_YOU', dedupeKey: `needs-you:${key}`, data: { receipt: 'interrupted', source: 'argus' } }] });
    // Nothing is re-invoked, now or on the next beats (reads that show the same event again included).
    expect(childIds(restored)).toEqual(['statusReader']);
    for (let i = 0; i < 3; i++) {
      restored.send(tick());
      await waitFor(restored, (x) => x.matches({ active: { heartbeat: 'idle' } }));
    }
    expect(again.calls.argusTurn).not.toHaveBeenCalled();
    // Only the operator's answer wakes Argus again: one turn, for the answer.
    restored.send({ type: 'OPERATOR_ANSWER', questionKey: key, answer: 'go on', now: NOW, requestId: 'r' });
    await waitFor(restored, (x) => x.matches({ active: { attention: 'idle' } }));
    expect(again.calls.argusTurn).toHaveBeenCalledTimes(1);
    expect(again.calls.argusTurn.mock.calls[0]![0]).toMatchObject({ wake: { dedupeKey: `answer:${key}`, answer: { text: 'go on' } } });
    restored.stop();
  });

  it('a mission poll in flight restores in awaiting-review.mission; the next TICK polls again and sends no turn', async () => {
    const first = world({ turn: async () => ({ ok: true, wokeAt: WOKE_AT, deadlineAt: '2031-01-01T00:00:00.000Z', turn: { kind: 'task', itemId: ITEM } }) });
    const actor = await bound(first.logic);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { attention: { 'awaiting-review': 'mission' }, heartbeat: 'idle' } }));
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { attention: { 'awaiting-review': 'checking' } } }));
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const pending = checkOutputs('attempt:task-1:att-1:terminal', ITEM).pending;
    const again = world({ check: async () => pending });
    const { snapshot, emitted } = restore(persisted);
    const restored = start(again.logic, snapshot);
    expect([restored.getSnapshot().value, emitted, childIds(restored)]).toEqual([{ active: { authority: 'observing', attention: { 'awaiting-review': 'mission' }, heartbeat: 'idle' } }, [], ['statusReader']]);
    expect(restored.getSnapshot().context.argus.mission).toEqual(actor.getSnapshot().context.argus.mission);
    restored.send(tick());
    await waitFor(restored, (s) => s.matches({ active: { attention: { 'awaiting-review': 'mission' }, heartbeat: 'idle' } }) && again.calls.argusCheck.mock.calls.length === 1);
    expect(again.calls.argusCheck.mock.calls[0]![0]).toEqual({ campaignId: 'camp-1', projectId: PROJECT, eventKey: 'attempt:task-1:att-1:terminal' });
    expect(again.calls.argusTurn).not.toHaveBeenCalled();
    restored.stop();
  });

  it('a binding check in flight (idle.verifying) restores in idle.quiet, unverified; the next TICK asks again', async () => {
    const quiet: Read = { ...(DECISION_READS.completedNoForeman as Read), observation: null, fingerprint: 'fp-seen' };
    const first = world({ read: quiet });
    const actor = await bound(first.logic);
    // The first restore marks the binding unverified; its next TICK verifies it (and the verification hangs).
    const unverified = start(first.logic, restore(actor.getPersistedSnapshot()).snapshot);
    actor.stop();
    unverified.send(tick());
    await waitFor(unverified, (s) => s.matches({ active: { attention: { idle: 'verifying' } } }));
    expect(first.calls.verifyBinding).toHaveBeenCalledWith({ projectId: PROJECT });
    const persisted = unverified.getPersistedSnapshot();
    unverified.stop();
    const again = world({ read: quiet, verify: async () => ({ ok: true }) });
    const restored = start(again.logic, restore(persisted).snapshot);
    expect([restored.getSnapshot().value, childIds(restored), restored.getSnapshot().context.argus.bindingVerified]).toEqual([{ active: { authority: 'observing', attention: { idle: 'quiet' }, heartbeat: 'idle' } }, ['statusReader'], false]);
    restored.send(tick());
    await waitFor(restored, (s) => s.context.argus.bindingVerified);
    expect([again.calls.verifyBinding.mock.calls.length, again.calls.argusTurn.mock.calls.length]).toEqual([1, 0]);
    restored.stop();
  });

  it('a mission bind in flight restores in idle; nothing is bound or invoked until the operator asks again', async () => {
    const first = world({ bind: () => never() });
    const actor = createActor(first.logic, { input: INPUT }).start();
    actor.send({ type: 'BIND_MISSION' });
    expect(actor.getSnapshot().matches({ active: { attention: 'binding' } })).toBe(true);
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const again = world();
    const restored = start(again.logic, restore(persisted).snapshot);
    expect([restored.getSnapshot().value, childIds(restored), restored.getSnapshot().context.argus.projectId]).toEqual([{ active: { authority: 'observing', attention: { idle: 'quiet' }, heartbeat: 'idle' } }, ['statusReader'], null]);
    restored.send(tick());
    await waitFor(restored, (s) => s.matches({ active: { heartbeat: 'idle' } }));
    expect(Object.values(again.calls).map((fn) => fn.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
    restored.stop();
  });

  it.each([
    ['an event that wants Argus: an interrupted receipt', DECISION_READS.completed, 'needs-you', ['DECISION_SETTLED', 'PUBLIC_DRAFTS']],
    ['a Foreman-only event: settled as assessed, idle', DECISION_READS.evidence, { idle: 'quiet' }, ['DECISION_SETTLED']],
  ])('a Foreman assessment in flight, for %s; no turn and no second assessment', async (_name, read, attention, types) => {
    const first = world({ read: read as Read });
    const actor = await bound(first.logic);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { attention: { assessing: 'running' } } }));
    const persisted = actor.getPersistedSnapshot();
    actor.stop();
    const again = world({ read: read as Read });
    const { snapshot, emitted } = restore(persisted);
    const restored = start(again.logic, snapshot);
    expect([restored.getSnapshot().value, emitted.map((e) => e.type), childIds(restored)]).toEqual([{ active: { authority: 'observing', attention, heartbeat: 'idle' } }, types, ['statusReader']]);
    expect(emitted[0]).toMatchObject({ decision: { code: 'restart_interrupted' } });
    expect([again.calls.argusTurn.mock.calls.length, again.calls.foremanAssess.mock.calls.length]).toEqual([0, 0]);
    restored.stop();
  });
});
