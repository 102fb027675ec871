/**
 * How each planned event is made to happen in the running system. An event from outside the
 * chart (an operator's command, the heartbeat's TICK, a restart) is PERFORMED; an effect's
 * answer (a claim granted or refused, a read that failed, a relay whose answer was lost) is
 * ARRANGED on the simulator before the command that starts the effect. The planned event's
 * payload says which answer: a `lease_held` claim, a rival in the readback, a 503.
 *
 * A driver that does not exist answers with a reason: the path is then reported undriven,
 * never passed.
 */
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { recordIntent } from '../../persistence/intent-journal.js';
import { digestPayload } from '../../persistence/payload-digest.js';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { RIVAL_CONTROLLER_ID } from '../../simulator/index.js';
import { CAMPAIGN, START_MS, type DrivenWorld } from './driven-world.js';
import { arrangeDecision, performDecision } from './stimuli-decisions.js';

type Planned = Record<string, any>;
export type Outcome = { ok: true; journaled?: { requestId: string; kind: string } } | { ok: false; reason: string };
const OK: Outcome = { ok: true };
const no = (reason: string): Outcome => ({ ok: false, reason });

/** The model's instants (graph-events.ts), as offsets the drivers translate to the live lease. */
const MODEL = {
  now: Date.parse('2030-01-01T00:00:10.000Z'),
  expires: Date.parse('2030-01-01T00:10:00.000Z'),
};

/** The live lease's expiry (ms), from the view; null when none is held. */
async function liveExpiry(world: DrivenWorld): Promise<number | null> {
  const view = await world.view();
  return view.lease?.expires_at ? Date.parse(view.lease.expires_at) : null;
}

/**
 * Moves the clock to where a planned instant stands: relative to the live lease's expiry when
 * one is held (the model's lease expires at MODEL.expires), else relative to the start.
 */
async function clockTo(world: DrivenWorld, plannedIso: string): Promise<void> {
  const planned = Date.parse(plannedIso);
  if (planned === MODEL.now) return;
  const expiry = await liveExpiry(world);
  const target = expiry !== null ? expiry - (MODEL.expires - planned) : START_MS + (planned - MODEL.now);
  if (target > world.now()) world.setClock(target);
}

async function contextOf(world: DrivenWorld): Promise<string> {
  const view = await world.view();
  const ctx = view.remote?.context_id ?? view.lease?.context_id ?? world.sim.task(world.taskId!)?.contextId;
  if (!ctx) throw new Error('no context to take over');
  return ctx;
}

const takeover = async (world: DrivenWorld) => void world.sim.takeover(await contextOf(world), RIVAL_CONTROLLER_ID);

/** An operator command the API must accept (its answer is the model's business, not the driver's). */
async function command(world: DrivenWorld, body: Record<string, unknown>): Promise<Outcome> {
  const answer = await world.command(body as never);
  if (answer.ok === false && /^(invalid_request|campaign_not_found)$/.test(answer.error?.code ?? '')) return no(`the API refused the command: ${answer.error!.code}`);
  return OK;
}

/** The lease epoch the planned MUTATE names, as the live one (the model's lease is epoch 7). */
async function epochFor(world: DrivenWorld, planned: number): Promise<number> {
  const view = await world.view();
  return (view.lease?.epoch ?? 0) + (planned - 7);
}

/** What a crash between an intent's journal fsync and its send leaves on disk, then the restart. */
async function crashWithOpenIntent(world: DrivenWorld, kind: string): Promise<Outcome> {
  if (kind !== 'submit') return no(`an open ${kind} intent at restart is not scripted`);
  const view = await world.view();
  await world.supervisor.stop();
  const store = await openCampaignStore({ root: world.root });
  const requestId = `crash-${world.now()}`;
  const written = await store.transact(CAMPAIGN, (doc) => {
    const next = recordIntent(doc, { requestId, action: 'submit', epoch: view.lease?.epoch ?? 0, payloadDigest: digestPayload({ text: 'attempt' }), createdAt: new Date(world.now()) });
    if (!next.ok) throw new Error(next.reason);
    return next.doc;
  });
  if (!written.ok) return no(`the journal could not be written: ${written.code}`);
  await world.restart();
  return { ok: true, journaled: { requestId, kind: 'submit' } };
}

/** Performs one planned event from outside the chart. */
export async function perform(world: DrivenWorld, e: Planned): Promise<Outcome> {
  switch (e.type) {
    case 'TICK':
      await clockTo(world, e.now);
      await world.supervisor.sweep();
      return OK;
    case 'OBSERVE':
      return command(world, { action: 'observe' });
    case 'OPERATOR_CLAIM':
      return command(world, { action: 'claim', ttl_seconds: e.ttlSeconds });
    case 'PAUSE':
      return command(world, { action: 'pause' });
    case 'RESUME':
      return command(world, { action: 'resume' });
    case 'CLOSE':
      return command(world, { action: 'close' });
    case 'RESOLVE_INTENT':
      return command(world, { action: 'resolve_intent' });
    case 'OPERATOR_ANSWER': {
      const view = await world.view();
      const key = e.questionKey === 'not-the-question' ? 'not-the-question' : view.pending_question?.key;
      await clockTo(world, e.now);
      return command(world, { action: 'answer', text: e.answer, ...(key ? { question_key: key } : {}) });
    }
    case 'MUTATE': {
      if (e.approval?.kind !== 'operator' || !e.approval.principal) return no('a MUTATE approved by a review is Argus\'s, not an operator command');
      await clockTo(world, e.now);
      const epoch = await epochFor(world, e.epoch);
      const m = e.mutation;
      const body = m.kind === 'submit' ? { text: m.text } : m.kind === 'intervene' ? { instruction: m.instruction } : m.kind === 'cancel' ? { reason: m.reason } : {};
      return command(world, { action: m.kind, epoch, ...body });
    }
    case 'INTENT_IN_DOUBT':
      return crashWithOpenIntent(world, e.kind);
    default:
      return performDecision(world, e);
  }
}

const effectOf = (type: string): string | null => /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(type)?.[1] ?? (type === 'READ_DONE' || type === 'READ_CRASHED' ? 'statusReader' : null);
export const isEffectAnswer = (e: Planned): boolean => effectOf(e.type) !== null;

const fault = (world: DrivenWorld, kind: 'http-5xx' | 'lost-response', method: string) => world.sim.injectFaults({ kind, methods: [method], count: 1 });

/**
 * Arranges the simulator so the effect the next command starts answers as planned. Called for
 * each planned answer of a group before the group's command is performed.
 */
export async function arrange(world: DrivenWorld, e: Planned): Promise<Outcome> {
  // The decision effects, and a read's place in the answers' order, in an Argus world (stimuli-decisions.ts).
  const decided = await arrangeDecision(world, e);
  if (decided) return decided;
  const o = e.output;
  switch (e.type) {
    case 'xstate.done.actor.claimLease':
      if (o.code === 'lease_held') return takeover(world).then(() => OK);
      if (o.claimed?.holder === 'argus-openoperator' && o.readback?.holder === 'argus-openoperator' && o.contextId) return OK;
      return no('a claim answered other than granted or lease_held is not scripted');
    case 'xstate.done.actor.readLease':
      if (o.code) return fault(world, 'http-5xx', CONTROL_METHODS.leaseGet), OK;
      if (o.readback?.holder === 'argus-openoperator' && o.readback.epoch === 7 && o.readback.expiresAt === '2030-01-01T00:10:00.000Z') return OK;
      if (o.readback?.holder === 'rival-controller') return takeover(world).then(() => OK);
      return no('this lease readback is not scripted');
    case 'xstate.done.actor.journalIntent':
      if (o.refusedCode) return no('a journal refusal (decision consumed) needs an Argus decision');
      // The journal's clock after the write, relative to the lease: the send-margin rule reads it.
      await clockTo(world, o.journaledAt);
      return OK;
    case 'xstate.done.actor.relayMutation':
      if (o.outcome === 'applied') return OK;
      if (o.outcome === 'ambiguous') return fault(world, 'lost-response', CONTROL_METHODS.leaseRelease), OK;
      if (o.outcome === 'rejected' && o.leaseLost) {
        const ctx = await contextOf(world);
        const off = world.sim.onMutationRequest((entry) => {
          if (entry.method !== CONTROL_METHODS.leaseRelease) return;
          off();
          world.sim.takeover(ctx, RIVAL_CONTROLLER_ID);
        });
        return OK;
      }
      if (o.outcome === 'rejected') return fault(world, 'http-5xx', CONTROL_METHODS.leaseRelease), OK;
      return no('this relay answer is not scripted');
    case 'xstate.done.actor.renewLease':
      if (o.lease?.holder === 'argus-openoperator') return OK;
      if (o.code === 'lease_held') return takeover(world).then(() => OK);
      return no('this renewal answer is not scripted');
    case 'xstate.done.actor.readBackIntent':
      if (o.status === 'unavailable') return fault(world, 'http-5xx', CONTROL_METHODS.requestGet), OK;
      return OK;
    case 'READ_DONE':
      if (!o.ok) return world.sim.injectFaults({ kind: 'http-5xx', methods: ['GetTask'], count: 3 }), OK;
      if (o.observation?.view?.state === 'input-required') return world.sim.moveTask(world.taskId!, 'input-required') ? OK : no('the task cannot block');
      if (o.observation?.view?.state === 'completed') return world.sim.moveTask(world.taskId!, 'completed') ? OK : no('the task cannot complete');
      // Working again after a question: the remote's answer came from elsewhere (the question is withdrawn).
      if (o.observation?.view?.state === 'working' && world.sim.task(world.taskId!)?.state !== 'working') return world.sim.moveTask(world.taskId!, 'working') ? OK : no('the task cannot work');
      if (o.readback?.holder === 'rival-controller') return takeover(world).then(() => OK);
      return OK;
    default:
      return no(`no driver arranges ${e.type}`);
  }
}
