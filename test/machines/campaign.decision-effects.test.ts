/**
 * What the chart hands the five decision effects (the graph traversal never runs an effect, so
 * it cannot see these), with a live actor through one whole decision: bind the mission, restore
 * (the binding is asked again), a completed attempt assessed by Foreman first, its directive as
 * the hint of the Argus turn, the mission polled. Each effect answers from its input alone; what
 * it was given is read from the inspection stream, as in campaign.effects.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor, type AnyActorLogic, type InspectionEvent } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { settleInterrupted } from '../../machines/campaign.restore.js';
import type {
  ArgusCheckInput,
  ArgusCheckOutput,
  ArgusTurnInput,
  ArgusTurnOutput,
  BindMissionInput,
  BindMissionOutput,
  ForemanAssessInput,
  ForemanAssessOutput,
  ReadStatusInput,
  ReadStatusOutput,
  VerifyBindingInput,
  VerifyBindingOutput,
} from '../../machines/campaign.types.js';
import { readerOf } from '../fixtures/ask-reader.js';
import { checkOutputs, DECISION_READS, DEADLINE, ITEM, PROJECT } from './graph-decisions.js';
import { BOUND, ENV, K_DONE, NOW, tick } from './graph-events.js';

type Read = Extract<ReadStatusOutput, { ok: true }>;
const effects = {
  // One completed attempt, then nothing new (the reducer never hands back a published event).
  statusReader: readerOf(async (input: ReadStatusInput): Promise<ReadStatusOutput> => {
    const read = DECISION_READS.completed as Read;
    return input.previous === null ? { ...read, requestedAt: input.now } : { ...read, requestedAt: input.now, fingerprint: input.previous.fingerprint, observation: null };
  }),
  bindMission: fromPromise<BindMissionOutput, BindMissionInput>(async ({ input }) => ({ ok: true, projectId: input.projectId ?? `proj-for-${input.campaignId}` })),
  verifyBinding: fromPromise<VerifyBindingOutput, VerifyBindingInput>(async () => ({ ok: true })),
  foremanAssess: fromPromise<ForemanAssessOutput, ForemanAssessInput>(async ({ input }) => ({ ok: true, directive: 'START_VERIFIER', reason: `attempt ${input.attemptsSubmitted}/${input.maxAttempts}`, at: NOW })),
  argusTurn: fromPromise<ArgusTurnOutput, ArgusTurnInput>(async ({ input }) => ({ ok: true, wokeAt: NOW, deadlineAt: DEADLINE, turn: { kind: 'task', itemId: input.wake.foremanHint ? ITEM : null } })),
  argusCheck: fromPromise<ArgusCheckOutput, ArgusCheckInput>(async ({ input }) => checkOutputs(input.eventKey, ITEM).pending),
};
const IDS = Object.keys(effects).filter((id) => id !== 'statusReader');

function start(logic: AnyActorLogic, snapshot?: unknown) {
  const inputs: Record<string, unknown[]> = Object.fromEntries(IDS.map((id) => [id, []]));
  const seen = new Set<string>();
  const inspect = (ev: InspectionEvent) => {
    if (ev.type !== '@xstate.snapshot') return;
    const ref = ev.actorRef as unknown as { id: string; sessionId: string };
    if (!IDS.includes(ref.id) || seen.has(ref.sessionId)) return;
    seen.add(ref.sessionId);
    inputs[ref.id]!.push((ev.snapshot as unknown as { input: unknown }).input);
  };
  const actor = createActor(logic, { input: { campaignId: 'camp-1', maxAttempts: 3, binding: BOUND, environment: { ...ENV, argusAvailable: true } }, inspect, ...(snapshot ? { snapshot: snapshot as never } : {}) }).start();
  return { actor, inputs };
}

describe('decision effects', () => {
  it('hands each of the five decision effects exactly its input: the binding its project, Foreman the event and the attempt count, Argus the event with the Foreman hint, the poll the mission event', async () => {
    const logic = campaignMachine.provide({ actors: effects });
    const first = start(logic);
    first.actor.send({ type: 'BIND_MISSION' });
    await waitFor(first.actor, (s) => s.context.argus.projectId !== null);
    expect(first.inputs.bindMission).toEqual([{ campaignId: 'camp-1', projectId: null }]);
    const persisted = JSON.parse(JSON.stringify(first.actor.getPersistedSnapshot()));
    first.actor.stop();

    const { actor, inputs } = start(logic, settleInterrupted(persisted, NOW).snapshot);
    actor.send(tick());
    await waitFor(actor, (s) => s.matches({ active: { attention: { 'awaiting-review': 'mission' }, heartbeat: 'idle' } }));
    actor.send(tick());
    await waitFor(actor, (s) => inputs.argusCheck!.length === 1 && s.matches({ active: { attention: { 'awaiting-review': 'mission' } } }));

    const projectId = 'proj-for-camp-1';
    const remote = actor.getSnapshot().context.remote;
    const wake = { dedupeKey: K_DONE, eventKey: K_DONE, target: 'argus', reason: 'attempt_terminal', eventClass: 'ATTEMPT_COMPLETED', argusReady: true, answer: null };
    expect(inputs.verifyBinding).toEqual([{ projectId }]);
    expect(inputs.foremanAssess).toEqual([{ campaignId: 'camp-1', wake: { ...wake, foremanHint: null }, remote, attemptsSubmitted: 0, maxAttempts: 3 }]);
    expect(inputs.argusTurn).toEqual([{ campaignId: 'camp-1', projectId, wake: { ...wake, foremanHint: 'START_VERIFIER: attempt 0/3' }, remote, remoteQuestion: null }]);
    expect(inputs.argusCheck).toEqual([{ campaignId: 'camp-1', projectId, eventKey: K_DONE }]);
    expect(inputs.bindMission).toEqual([]);
    expect(actor.getSnapshot().context.argus.mission).toMatchObject({ dedupeKey: K_DONE, itemId: ITEM, deadlineAt: DEADLINE });
    expect(PROJECT).not.toBe(projectId); // the project id came from the binding's answer, not the alphabet
    actor.stop();
  });
});
