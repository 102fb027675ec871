import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { campaignMachine, CAMPAIGN_MACHINE_VERSION, EFFECT_IN_FLIGHT, initialCampaignContext } from '../../machines/campaign.machine.js';
import { explainRefusal } from '../../machines/campaign.rules.js';
import { NO_ENVIRONMENT } from '../../machines/campaign.types.js';
import type {
  BindingFacts,
  CampaignContext,
  ClaimLeaseInput,
  ClaimLeaseOutput,
  JournalIntentInput,
  JournalIntentOutput,
  MutateEvent,
  ReadBackIntentInput,
  ReadBackIntentOutput,
  ReadLeaseInput,
  ReadLeaseOutput,
  ReadStatusInput,
  ReadStatusOutput,
  RelayMutationInput,
  RelayMutationOutput,
  RenewLeaseInput,
  RenewLeaseOutput,
  RotateLeaseInput,
  RotateLeaseOutput,
} from '../../machines/campaign.types.js';
import { checkRestorable, settleInterrupted, withEnvironment } from '../../machines/campaign.restore.js';
import { isQuiescent } from '../../machines/campaign.version.js';
import { readerOf } from '../fixtures/ask-reader.js';
import { allStateNodes } from './statechart-coverage.js';
import { answerEvent, BOUND, claimEvent, CONTEXT, ENV, environmentEvent, EPOCH, FACTS, LATER, mutateEvent, NOW, OURS, READ_BLOCKED, TASK, tick } from './graph-events.js';

/**
 * Created on a context, before its first submit (no task bound: no attempt running, nothing to
 * read); TASK_INPUT is bound to a task (its reads run on TICK).
 */
const INPUT = { campaignId: 'camp-1', maxAttempts: 2, binding: { taskId: null, contextId: CONTEXT }, environment: ENV };
const TASK_INPUT = { ...INPUT, ...FACTS };

type Fns = {
  relay?: (input: RelayMutationInput) => Promise<RelayMutationOutput>;
  readBack?: (input: ReadBackIntentInput) => Promise<ReadBackIntentOutput>;
  read?: (input: ReadStatusInput) => Promise<ReadStatusOutput>;
  renew?: (input: RenewLeaseInput) => Promise<RenewLeaseOutput>;
};
/** An unchanged-looking read that shows our lease. */
const quietRead = async (input: ReadStatusInput): Promise<ReadStatusOutput> => ({ ok: true, requestedAt: input.now, answeredAt: input.now, message: null, fingerprint: 'fp-q', readback: { ...OURS, readAt: input.now }, observation: null });
const applied = async (i: RelayMutationInput): Promise<RelayMutationOutput> => ({ outcome: 'applied', requestId: i.requestId, taskId: null });

function wired(fns: Fns = {}) {
  return campaignMachine.provide({
    actors: {
      statusReader: readerOf((input) => (fns.read ?? quietRead)(input)),
      claimLease: fromPromise<ClaimLeaseOutput, ClaimLeaseInput>(async ({ input }) => ({ claimed: OURS, readback: OURS, contextId: input.binding.contextId, ttlSeconds: input.ttlSeconds, code: null })),
      renewLease: fromPromise<RenewLeaseOutput, RenewLeaseInput>(({ input }) =>
        fns.renew ? fns.renew(input) : Promise.reject(new Error('renewal timed out')),
      ),
      readLease: fromPromise<ReadLeaseOutput, ReadLeaseInput>(async () => ({ readback: { ...OURS, readAt: NOW }, code: null })),
      rotateLease: fromPromise<RotateLeaseOutput, RotateLeaseInput>(async () => ({ before: OURS, claimed: { ...OURS, epoch: EPOCH + 1 }, readback: { ...OURS, epoch: EPOCH + 1 }, code: null })),
      journalIntent: fromPromise<JournalIntentOutput, JournalIntentInput>(async () => ({ journaledAt: NOW, refusedCode: null })),
      relayMutation: fromPromise<RelayMutationOutput, RelayMutationInput>(({ input }) => (fns.relay ?? applied)(input)),
      readBackIntent: fromPromise<ReadBackIntentOutput, ReadBackIntentInput>(({ input }) =>
        fns.readBack ? fns.readBack(input) : Promise.resolve({ requestId: input.requestId, status: 'unavailable' as const, taskId: null }),
      ),
    },
  });
}

const submit = (requestId: string): MutateEvent => mutateEvent({ requestId });
const READY = { active: { authority: { controlling: 'ready' } } } as const;

async function controllingActor(machine: ReturnType<typeof wired>, input: typeof INPUT | typeof TASK_INPUT = INPUT) {
  const actor = createActor(machine, { input }).start();
  actor.send(claimEvent());
  await waitFor(actor, (s) => s.matches(READY));
  return actor;
}

/** What the store does: JSON on disk, with the version beside it. */
const throughDisk = (snapshot: unknown) => JSON.parse(JSON.stringify({ version: CAMPAIGN_MACHINE_VERSION, snapshot })) as { version: string; snapshot: unknown };
/** What the host does with it (campaign-host.ts): refuse an unknown version, then settle what was in flight. */
function hostRestore(stored: { version: string; snapshot: unknown }): unknown {
  const check = checkRestorable(stored, BOUND);
  if (!check.ok) throw new Error(`expected a restorable snapshot, got ${check.version}`);
  return settleInterrupted(check.snapshot, NOW).snapshot;
}

describe('campaign actor: persist and restore', () => {
  it('round-trips a quiescent snapshot with getPersistedSnapshot()', async () => {
    const actor = await controllingActor(wired());
    expect(isQuiescent(actor.getSnapshot())).toBe(true);
    const stored = throughDisk(actor.getPersistedSnapshot());
    const check = checkRestorable(stored, BOUND);
    expect(check.ok).toBe(true);
    const restored = createActor(wired(), { snapshot: check.ok ? (check.snapshot as never) : undefined, input: INPUT }).start();
    expect(restored.getSnapshot().value).toEqual(actor.getSnapshot().value);
    expect(restored.getSnapshot().context).toEqual(actor.getSnapshot().context);
  });

  it('restoring a quiescent snapshot never invokes the relay; a journaled intent restores into ambiguous-intent', async () => {
    const relay = vi.fn(applied);
    const actor = await controllingActor(wired({ relay }));
    const stored = throughDisk(actor.getPersistedSnapshot());
    // The process died after journaling req-9 and before its outcome was recorded.
    const readBack = vi.fn(async (i: ReadBackIntentInput): Promise<ReadBackIntentOutput> => ({ requestId: i.requestId, status: 'not_applied', taskId: null }));
    const restored = createActor(wired({ relay, readBack }), { snapshot: stored.snapshot as never, input: INPUT }).start();
    restored.send({ type: 'INTENT_IN_DOUBT', requestId: 'req-9', kind: 'submit' });
    expect(restored.getSnapshot().matches({ active: { authority: 'ambiguous-intent' } })).toBe(true);
    expect(restored.getSnapshot().can(submit('req-10'))).toBe(false);
    expect(explainRefusal(restored.getSnapshot(), submit('req-10'))).toBe('intent_unresolved');
    restored.send({ type: 'RESOLVE_INTENT' });
    await waitFor(restored, (s) => s.matches({ active: { authority: 'observing' } }));
    expect(readBack).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req-9', readbackSupported: true }));
    expect(relay).not.toHaveBeenCalled();
    // Settled by readback → observing, not controlling: control must be claimed again, explicitly.
    expect(restored.getSnapshot().context.lease).toBeNull();
  });

  it('a snapshot taken mid-relay is not quiescent: XState would re-run the relay on restore', async () => {
    let release!: () => void;
    const relay = vi.fn((i: RelayMutationInput) => new Promise<RelayMutationOutput>((resolve) => (release = () => resolve({ outcome: 'applied', requestId: i.requestId, taskId: null }))));
    const actor = await controllingActor(wired({ relay }));
    actor.send(submit('req-1'));
    await waitFor(actor, (s) => s.matches({ active: { authority: { controlling: 'relaying' } } }));
    expect(isQuiescent(actor.getSnapshot())).toBe(false);
    const restored = createActor(wired({ relay }), { snapshot: throughDisk(actor.getPersistedSnapshot()).snapshot as never, input: INPUT }).start();
    await vi.waitFor(() => expect(relay).toHaveBeenCalledTimes(2)); // the pitfall this design avoids
    release();
    restored.stop();
    actor.stop();
  });

  it('a restore while reading settles in heartbeat.idle; the next TICK re-runs the status read, with the same input, and only the read', async () => {
    const pending = vi.fn((_: ReadStatusInput) => new Promise<ReadStatusOutput>(() => {}));
    const relay = vi.fn(applied);
    const actor = await controllingActor(wired({ read: pending, relay }), TASK_INPUT);
    actor.send(tick());
    expect(actor.getSnapshot().matches({ active: { heartbeat: 'reading' } })).toBe(true);
    // Reading is no effect-in-flight: the host may persist it.
    expect(isQuiescent(actor.getSnapshot())).toBe(true);
    const stored = throughDisk(actor.getPersistedSnapshot());
    actor.stop();
    const read = vi.fn(quietRead);
    // The host's restore path: the read in flight is not answered by a restarted reader.
    const restored = createActor(wired({ read, relay }), { snapshot: hostRestore(stored) as never, input: INPUT }).start();
    expect(restored.getSnapshot().matches({ active: { heartbeat: 'idle' } })).toBe(true);
    expect(read).not.toHaveBeenCalled();
    restored.send(tick());
    await waitFor(restored, (s) => s.matches({ active: { heartbeat: 'idle' } }));
    expect(read).toHaveBeenCalledTimes(1);
    expect(read.mock.calls[0]![0]).toEqual(pending.mock.calls[0]![0]);
    // Harmless: still in control (the read showed our lease), nothing sent, the read remembered.
    expect(restored.getSnapshot().matches(READY)).toBe(true);
    expect(relay).not.toHaveBeenCalled();
    expect(restored.getSnapshot().context.readFailures.consecutive).toBe(0);
    restored.stop();
  });

  it('restores a campaign@3 snapshot (per-read child, no reader) with a live reader, and reads on the next TICK', async () => {
    const actor = await controllingActor(wired(), TASK_INPUT);
    const current = throughDisk(actor.getPersistedSnapshot());
    actor.stop();
    // What campaign@3 wrote mid-read: its per-read promise child, no long-lived reader.
    const { statusReader: _reader, ...rest } = (current.snapshot as { children: Record<string, unknown> }).children;
    const v3 = {
      version: 'campaign@3',
      snapshot: {
        ...(current.snapshot as object),
        value: { active: { ...(current.snapshot as { value: { active: object } }).value.active, heartbeat: 'reading' } },
        children: { ...rest, readStatus: { snapshot: { status: 'active', input: {} }, src: 'readStatus', syncSnapshot: false } },
      },
    };
    const snapshot = hostRestore(v3);
    expect(Object.keys((snapshot as { children: object }).children)).toEqual(['statusReader']);
    const read = vi.fn(quietRead);
    const restored = createActor(wired({ read }), { snapshot: snapshot as never, input: INPUT }).start();
    expect(restored.getSnapshot().matches({ active: { heartbeat: 'idle' } })).toBe(true);
    restored.send(tick());
    await waitFor(restored, (s) => s.matches({ active: { heartbeat: 'idle' } }) && read.mock.calls.length === 1);
    expect(restored.getSnapshot().matches(READY)).toBe(true);
    restored.stop();
  });

  it('tags exactly the ten effect states, and a host that persists only quiescent snapshots never persists one of them', async () => {
    const tagged = allStateNodes(campaignMachine.root).filter((n) => n.tags.includes(EFFECT_IN_FLIGHT)).map((n) => n.id.replace('campaign.active.authority.', ''));
    expect(tagged.sort()).toEqual([
      'ambiguous-intent.reclaiming',
      'ambiguous-intent.resolving',
      'ambiguous-intent.rotating',
      'claiming',
      'controlling.journaling',
      'controlling.reclaiming',
      'controlling.relaying',
      'controlling.renewing',
      'controlling.rotating',
      'controlling.verifying',
    ]);
    // Walk through every one of them with a host-like subscriber.
    const seenTagged = new Set<string>();
    const persisted: unknown[] = [];
    const relay = vi.fn(async (i: RelayMutationInput): Promise<RelayMutationOutput> =>
      i.requestId === 'req-amb' ? { outcome: 'ambiguous', requestId: i.requestId, code: 'remote_timeout' } : { outcome: 'applied', requestId: i.requestId, taskId: null },
    );
    const renew = async (): Promise<RenewLeaseOutput> => ({ lease: { ...OURS, readAt: LATER }, code: null });
    const readBack = async (i: ReadBackIntentInput): Promise<ReadBackIntentOutput> => ({ requestId: i.requestId, status: 'applied', taskId: null });
    const actor = createActor(wired({ relay, renew, readBack }), { input: TASK_INPUT });
    const onSnapshot = (s: ReturnType<typeof actor.getSnapshot>) => {
      if (s.hasTag(EFFECT_IN_FLIGHT)) seenTagged.add(JSON.stringify((s.value as { active: { authority: unknown } }).active.authority));
      if (isQuiescent(s)) persisted.push(throughDisk(actor.getPersistedSnapshot()).snapshot);
    };
    actor.subscribe(onSnapshot);
    actor.start();
    actor.send(claimEvent());
    await waitFor(actor, (s) => s.matches(READY));
    actor.send(tick({ now: LATER }));
    await waitFor(actor, (s) => s.matches(READY) && s.matches({ active: { heartbeat: 'idle' } }) && s.context.lease?.confirmedAt === LATER);
    // An intervene: the bound task is never read here (a submit would wait for it to end).
    actor.send(mutateEvent({ requestId: 'req-1', mutation: { kind: 'intervene', instruction: 'x' } }));
    await waitFor(actor, (s) => s.matches(READY) && s.context.pendingIntent === null);
    actor.send(mutateEvent({ requestId: 'req-amb', mutation: { kind: 'cancel', reason: 'x' } }));
    await waitFor(actor, (s) => s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }));
    // A takeover in doubt rotates (rotating, reclaiming) before the readback.
    actor.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(actor, (s) => s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }) && s.context.lastEpoch === EPOCH + 1);
    actor.send({ type: 'RESOLVE_INTENT' });
    await waitFor(actor, (s) => s.matches({ active: { authority: 'observing' } }));
    // A takeover's rotation, on a second actor (its greater epoch would make the walk's mutations stale).
    const taken = createActor(wired({ relay, renew, readBack }), { input: TASK_INPUT });
    taken.subscribe((s) => {
      if (s.hasTag(EFFECT_IN_FLIGHT)) seenTagged.add(JSON.stringify((s.value as { active: { authority: unknown } }).active.authority));
      if (isQuiescent(s)) persisted.push(throughDisk(taken.getPersistedSnapshot()).snapshot);
    });
    taken.start();
    taken.send(claimEvent());
    await waitFor(taken, (s) => s.matches(READY));
    taken.send({ type: 'HOSTING_TAKEN_OVER', now: NOW });
    await waitFor(taken, (s) => s.matches(READY) && s.context.lease?.epoch === EPOCH + 1);
    taken.stop();
    expect(seenTagged.size).toBe(10);
    expect(persisted.length).toBeGreaterThan(0);
    for (const snapshot of persisted) {
      const restored = campaignMachine.resolveState(snapshot as never);
      expect(restored.hasTag(EFFECT_IN_FLIGHT)).toBe(false);
    }
    actor.stop();
  });

  it('refuses campaign@2 and any unknown machine version (the caller fails closed); restores campaign@3, @4, @5 and @6', () => {
    expect(CAMPAIGN_MACHINE_VERSION).toBe('campaign@6');
    expect(checkRestorable({ version: 'campaign@2', snapshot: {} }, BOUND)).toEqual({ ok: false, code: 'machine_version_unknown', version: 'campaign@2' });
    expect(checkRestorable({ version: 'campaign@0', snapshot: {} }, BOUND)).toEqual({ ok: false, code: 'machine_version_unknown', version: 'campaign@0' });
    expect(checkRestorable({ version: 'campaign@999', snapshot: {} }, BOUND).ok).toBe(false);
    // Not snapshot-shaped: handed on untouched, for XState to refuse.
    for (const version of ['campaign@3', 'campaign@4', 'campaign@5', 'campaign@6']) expect(checkRestorable({ version, snapshot: { x: 1 } }, BOUND)).toEqual({ ok: true, snapshot: { x: 1 } });
  });

  it('restores a campaign@5 snapshot with the binding its document kept (and the context a read or the lease named), and an empty environment', async () => {
    const actor = await controllingActor(wired(), TASK_INPUT);
    const current = throughDisk(actor.getPersistedSnapshot()).snapshot as { context: Record<string, unknown> };
    actor.stop();
    // What campaign@5 wrote: no binding, no environment in the context (the document held the binding).
    const { binding: _b, environment: _e, ...context5 } = current.context;
    const v5 = { version: 'campaign@5', snapshot: { ...current, context: context5 } };
    const restore = (binding: BindingFacts) => {
      const check = checkRestorable(v5, binding);
      if (!check.ok) throw new Error('expected restorable');
      return (check.snapshot as { context: CampaignContext }).context;
    };
    expect(restore(BOUND)).toMatchObject({ binding: BOUND, environment: NO_ENVIRONMENT });
    // A document binding with no context: the lease's context (no read saw the task yet).
    expect(restore({ taskId: TASK, contextId: null }).binding).toEqual({ taskId: TASK, contextId: CONTEXT });
    expect(restore({ taskId: null, contextId: null }).binding).toEqual({ taskId: null, contextId: CONTEXT });
    // The restored actor takes the host's environment and reads its bound task on TICK.
    const read = vi.fn(quietRead);
    const restored = createActor(wired({ read }), { snapshot: withEnvironment(hostRestore(v5), ENV) as never, input: INPUT }).start();
    expect(restored.getSnapshot().context.environment).toEqual(ENV);
    restored.send(tick());
    await waitFor(restored, (s) => s.matches({ active: { heartbeat: 'idle' } }) && read.mock.calls.length === 1);
    expect(read.mock.calls[0]![0]).toMatchObject({ taskId: TASK, contextId: CONTEXT });
    restored.stop();
  });
});

describe('campaign actor: behaviour with real effects', () => {
  it('emits exactly one CONTROL_LOST when renewal fails, and keeps reading', async () => {
    const actor = await controllingActor(wired(), TASK_INPUT);
    const lost = vi.fn();
    actor.on('CONTROL_LOST', lost);
    actor.send(tick({ now: LATER }));
    await waitFor(actor, (s) => s.matches({ active: { authority: 'control-lost', heartbeat: 'idle' } }));
    expect(lost).toHaveBeenCalledTimes(1);
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ type: 'CONTROL_LOST', campaignId: 'camp-1', reason: 'renewal_failed', epoch: EPOCH }));
    expect(lost.mock.calls[0]![0].heldSince).toEqual(expect.any(String));
    expect(actor.getSnapshot().can(tick())).toBe(true);
    expect(explainRefusal(actor.getSnapshot(), submit('req-1'))).toBe('lease_required');
  });

  it('an ambiguous relay drops control, keeps the intent, and is never replayed', async () => {
    const relay = vi.fn(async (i: RelayMutationInput): Promise<RelayMutationOutput> => ({ outcome: 'ambiguous', requestId: i.requestId, code: 'remote_timeout' }));
    const actor = await controllingActor(wired({ relay }));
    const ambiguous = vi.fn();
    actor.on('INTENT_AMBIGUOUS', ambiguous);
    actor.send(submit('req-1'));
    await waitFor(actor, (s) => s.matches({ active: { authority: 'ambiguous-intent' } }));
    expect(ambiguous).toHaveBeenCalledWith({ type: 'INTENT_AMBIGUOUS', campaignId: 'camp-1', requestId: 'req-1', kind: 'submit' });
    expect(actor.getSnapshot().context).toMatchObject({ lease: null, pendingIntent: { requestId: 'req-1', kind: 'submit' }, lastErrorCode: 'remote_timeout' });
    actor.send({ type: 'RESOLVE_INTENT' }); // the remote cannot answer: stay in doubt
    await waitFor(actor, (s) => s.matches({ active: { authority: { 'ambiguous-intent': 'unresolved' } } }));
    expect(relay).toHaveBeenCalledTimes(1);
  });

  it('counts applied submissions against max_attempts', async () => {
    const actor = await controllingActor(wired());
    for (const id of ['req-1', 'req-2']) {
      actor.send(submit(id));
      await waitFor(actor, (s) => s.matches(READY) && s.context.pendingIntent === null);
    }
    expect(actor.getSnapshot().context.attemptsSubmitted).toBe(2);
    expect(actor.getSnapshot().can(submit('req-3'))).toBe(false);
    expect(explainRefusal(actor.getSnapshot(), submit('req-3'))).toBe('attempt_limit_reached');
  });

  it("pause drops control; resume observes and returns attention to where it was; the remote's question is answered once control is claimed again", async () => {
    const read = async (input: ReadStatusInput): Promise<ReadStatusOutput> => ({ ...READ_BLOCKED, requestedAt: input.now, readback: { ...OURS, readAt: input.now } }) as ReadStatusOutput;
    const relay = vi.fn(applied);
    const actor = await controllingActor(wired({ read, relay }), TASK_INPUT);
    const wakes = vi.fn();
    actor.on('WAKE_REQUESTED', wakes);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { heartbeat: 'idle', attention: 'needs-you' } }));
    const key = actor.getSnapshot().context.pendingQuestion!.key;
    expect(actor.getSnapshot().context.wakes).toEqual({ lastArgusEventKey: key });
    expect(wakes.mock.calls.map(([w]) => w.wake.target)).toEqual(['argus']);
    actor.send({ type: 'PAUSE' });
    expect(actor.getSnapshot().context.lease).toBeNull();
    expect(explainRefusal(actor.getSnapshot(), submit('req-1'))).toBe('campaign_paused');
    actor.send({ type: 'RESUME', now: NOW });
    expect(actor.getSnapshot().value).toEqual({ active: { authority: 'observing', attention: 'needs-you', heartbeat: 'idle' } });
    expect(explainRefusal(actor.getSnapshot(), answerEvent({ questionKey: 'old', answer: 'x' }))).toBe('question_stale');
    // The remote's own question is answered by a fenced message to its task: only with the lease.
    expect(explainRefusal(actor.getSnapshot(), answerEvent({ questionKey: key, answer: 'v2' }))).toBe('lease_required');
    actor.send(answerEvent({ questionKey: key, answer: 'v2' }));
    expect(actor.getSnapshot().value).toEqual({ active: { authority: 'observing', attention: 'needs-you', heartbeat: 'idle' } });
    actor.send(claimEvent());
    await waitFor(actor, (s) => s.matches(READY));
    actor.send(answerEvent({ questionKey: key, answer: 'v2', requestId: 'req-ans' }));
    await waitFor(actor, (s) => s.matches(READY) && s.context.pendingIntent === null);
    expect(relay).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req-ans', epoch: EPOCH, mutation: { kind: 'answer', text: 'v2', questionKey: key } }));
    expect(actor.getSnapshot().value).toEqual({ active: { authority: { controlling: 'ready' }, attention: { idle: 'quiet' }, heartbeat: 'idle' } });
    expect(actor.getSnapshot().context.pendingQuestion).toBeNull();
  });

  it('explains refusals with stable codes', () => {
    const actor = createActor(campaignMachine, { input: INPUT }).start();
    expect(explainRefusal(actor.getSnapshot(), claimEvent({ ttlSeconds: 5 }))).toBe('ttl_out_of_bounds');
    expect(explainRefusal(actor.getSnapshot(), { type: 'RESOLVE_INTENT' })).toBe('intent_not_found');
    expect(explainRefusal(actor.getSnapshot(), answerEvent({ questionKey: 'q', answer: 'a' }))).toBe('no_pending_question');
    expect(explainRefusal(actor.getSnapshot(), { type: 'BIND_MISSION' })).toBe('argus_unavailable');
    actor.send(environmentEvent({ argusAvailable: true }));
    expect(explainRefusal(actor.getSnapshot(), { type: 'BIND_MISSION' })).toBeNull();
    expect(explainRefusal(actor.getSnapshot(), { type: 'RESUME', now: NOW })).toBe('not_paused');
    expect(explainRefusal(actor.getSnapshot(), claimEvent())).toBeNull();
    actor.send({ type: 'CLOSE' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(explainRefusal(actor.getSnapshot(), claimEvent())).toBe('campaign_closed');
  });

  it('refuses a max_attempts outside 1..20 instead of clamping it', () => {
    expect(() => initialCampaignContext({ campaignId: 'c', maxAttempts: 0 })).toThrow(RangeError);
    expect(() => initialCampaignContext({ campaignId: 'c', maxAttempts: 21 })).toThrow(RangeError);
    expect(initialCampaignContext({ campaignId: 'c' })).toMatchObject({ maxAttempts: 3, controllerId: 'argus-openoperator', lease: null });
  });
});

