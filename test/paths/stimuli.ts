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
import { RIVAL_CONTROLLER_ID } from '../../simulator/index.js';
import { START_MS, type DefectMethod, type DrivenWorld } from './driven-world.js';
import { arrangeDecision, performDecision } from './stimuli-decisions.js';
import { crashWithOpenIntent, environmentChanges, takenOver } from './stimuli-restarts.js';

type Planned = Record<string, any>;
export type Outcome =
  | {
      ok: true;
      /** The command restarted the process (the campaign actor was rebuilt from its document). */
      restarted?: boolean;
      /** An intent the restart found journaled and unresolved. */
      journaled?: { requestId: string; kind: string; outcomeRecorded?: boolean };
      /** The API refused the operator's command (its stable code): the actor need not hear of it. */
      refused?: string;
    }
  | { ok: false; reason: string };
const OK: Outcome = { ok: true };
const no = (reason: string): Outcome => ({ ok: false, reason });

/** The model's instants (graph-events.ts), as offsets the drivers translate to the live lease. */
const MODEL = {
  now: Date.parse('2030-01-01T00:00:10.000Z'),
  expires: Date.parse('2030-01-01T00:10:00.000Z'),
  /** When the model's lease readbacks were read (graph-events.ts READ_AT). */
  readAt: Date.parse('2030-01-01T00:00:05.000Z'),
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
  const target = await liveInstant(world, planned);
  if (target > world.now()) world.setClock(target);
}

/** Where a model instant stands on the live clock (see clockTo). */
async function liveInstant(world: DrivenWorld, planned: number): Promise<number> {
  const expiry = await liveExpiry(world);
  return expiry !== null ? expiry - (MODEL.expires - planned) : START_MS + (planned - MODEL.now);
}

async function contextOf(world: DrivenWorld): Promise<string> {
  const view = await world.view();
  const ctx = view.remote?.context_id ?? view.lease?.context_id ?? world.sim.task(world.taskId!)?.contextId;
  if (!ctx) throw new Error('no context to take over');
  return ctx;
}

/** The task the campaign is bound to now (a submit binds a new one). */
async function boundTask(world: DrivenWorld): Promise<string | null> {
  return (await world.view()).remote?.task_id ?? world.taskId;
}

/** Moves the bound task to the first phase of its scenario in `state`. */
async function moveTo(world: DrivenWorld, state: 'working' | 'input-required' | 'completed'): Promise<Outcome> {
  const task = await boundTask(world);
  if (task === null) return no('no task is bound to move');
  if (world.sim.task(task)?.state === state) return OK;
  return world.sim.moveTask(task, state) ? OK : no(`the bound task's scenario has no ${state} phase`);
}

const takeover = async (world: DrivenWorld) => void world.sim.takeover(await contextOf(world), RIVAL_CONTROLLER_ID);

/** An operator command the API must accept (its answer is the model's business, not the driver's). */
async function command(world: DrivenWorld, body: Record<string, unknown>): Promise<Outcome> {
  const answer = await world.command(body as never);
  // The request's own shape is the API's to check, before any rule: such a command never reaches the chart.
  if (answer.ok === false && /^(invalid_request|campaign_not_found)$/.test(answer.error?.code ?? '')) return no(`the API's schema refuses it before the chart: ${answer.error!.code}`);
  return answer.ok === false ? { ok: true, refused: answer.error?.code ?? 'unknown' } : OK;
}

/** The lease epoch the planned MUTATE names, as the live one (the model's lease is epoch 7). */
async function epochFor(world: DrivenWorld, planned: number): Promise<number> {
  const view = await world.view();
  return (view.lease?.epoch ?? 0) + (planned - 7);
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
    case 'ENVIRONMENT':
      return environmentChanges(world);
    case 'HOSTING_TAKEN_OVER':
      // The takeover carries `now`: the rotation judges the lease's renewal deadline at it.
      await clockTo(world, e.now);
      return takenOver(world);
    default:
      return performDecision(world, e);
  }
}

/** The effect a planned answer comes from (`statusReader` for the reads). */
export const effectOf = (e: Planned): string | null => effectOfType(String(e.type));
const effectOfType = (type: string): string | null => /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(type)?.[1] ?? (type === 'READ_DONE' || type === 'READ_CRASHED' ? 'statusReader' : null);
export const isEffectAnswer = (e: Planned): boolean => effectOf(e) !== null;

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
    // The claim step (its readback before was readLease's): granted and read back, or unanswered.
    case 'xstate.done.actor.rotateLease':
      if (o.code === null && o.claimed?.holder === 'argus-openoperator' && o.readback?.holder === 'argus-openoperator') return OK;
      if (o.code === 'epoch_rotation_failed') return fault(world, 'http-5xx', CONTROL_METHODS.leaseClaim), OK;
      return no('this rotation answer is not scripted');
    case 'xstate.done.actor.journalIntent':
      if (o.refusedCode) return no('a journal refusal (decision consumed) needs an Argus decision');
      // The journal's clock after the write, against the readback's: the freshness rule reads both.
      if (Date.parse(o.journaledAt) !== MODEL.now) {
        const late = Date.parse(o.journaledAt) - MODEL.readAt;
        world.whenReceived('xstate.done.actor.readLease', (ev) => {
          const readAt = (ev as { output?: { readback?: { readAt?: string } } }).output?.readback?.readAt;
          if (readAt) world.setClock(Math.max(world.now(), Date.parse(readAt) + late));
        });
      }
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
      // A definite refusal: the remote answered a JSON-RPC error and applied nothing.
      if (o.outcome === 'rejected') return world.sim.injectFaults({ kind: 'rpc-error', methods: [CONTROL_METHODS.leaseRelease], count: 1 }), OK;
      return no('this relay answer is not scripted');
    case 'xstate.done.actor.renewLease':
      if (o.lease?.holder === 'argus-openoperator') return OK;
      if (o.code === 'lease_held') return takeover(world).then(() => OK);
      return no('this renewal answer is not scripted');
    case 'xstate.done.actor.readBackIntent':
      if (o.status === 'unavailable') return fault(world, 'http-5xx', CONTROL_METHODS.requestGet), OK;
      return OK;
    case 'READ_DONE':
      if (!o.ok) {
        // A read sent a while after its tick (queued behind others): the clock moves as the tick arrives.
        if (Date.parse(o.requestedAt) !== MODEL.now) {
          const sentAt = await liveInstant(world, Date.parse(o.requestedAt));
          world.whenReceived('TICK', () => world.setClock(Math.max(world.now(), sentAt)));
        }
        return world.sim.injectFaults({ kind: 'http-5xx', methods: ['GetTask'], count: 3 }), OK;
      }
      if (o.observation?.view?.state === 'input-required') return moveTo(world, 'input-required');
      if (o.observation?.view?.state === 'completed') return moveTo(world, 'completed');
      // Working again after a question: the remote's answer came from elsewhere (the question is withdrawn).
      if (o.observation?.view?.state === 'working') {
        const task = await boundTask(world);
        if (task && world.sim.task(task)?.state !== 'working') return moveTo(world, 'working');
      }
      if (o.readback?.holder === 'rival-controller') return takeover(world).then(() => OK);
      return OK;
    case 'xstate.error.actor.journalIntent':
      // The disk fills between the readback and the journal's write.
      world.whenReceived('xstate.done.actor.readLease', () => world.failNextWrite());
      return OK;
    case 'READ_CRASHED':
      return world.defect('getTask'), OK;
    default: {
      const effect = /^xstate\.error\.actor\.(.+)$/.exec(e.type)?.[1];
      const method = effect ? DEFECTS[effect] : undefined;
      if (method) return world.defect(method), OK;
      return no(`no driver arranges ${e.type}`);
    }
  }
}

/** The client method whose defect makes each effect throw (the first remote call it makes). */
const DEFECTS: Record<string, DefectMethod> = {
  claimLease: 'leaseClaim',
  renewLease: 'leaseRenew',
  readLease: 'leaseGet',
  rotateLease: 'leaseClaim',
  relayMutation: 'leaseRelease',
  readBackIntent: 'requestGet',
};
