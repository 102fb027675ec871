/**
 * The decision drivers (roots `argus`, `argus-restored`): how the events of the attention
 * region are made to happen in a running system whose Argus and Foreman are the SIMULATED
 * ones (driven-argus.ts). An operator's `mission` command is PERFORMED; an effect's answer is
 * ARRANGED by scripting the fake that effect talks to, so that the real effect, reading the
 * fake's real answer, returns an output that takes the planned branch. What is matched is the
 * branch (the planned `taken` ids), not the payload: a live item id is Argus's, not `item-1`.
 *
 * Every planned answer is also put in its place in the group's order (answer-order.ts), and a
 * status read in an Argus world is too: the read that must come after an effect's answer is
 * held at the simulator until that answer has arrived.
 *
 * An effect that THROWS (`xstate.error.actor.*`) cannot be had from either fake through its
 * protocol (the adapters turn every failure into a coded outcome): it is a DEFECT injected at
 * the port the effect calls (driven-argus.ts `arm`), said so here and there.
 */
import type { PlannedPath } from './path-plan.js';
import { DECISION_EFFECTS, type ArgusWorldOptions } from './driven-argus.js';
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { CAMPAIGN, type DrivenWorld } from './driven-world.js';
import type { Outcome } from './stimuli.js';

type Planned = Record<string, any>;
const OK: Outcome = { ok: true };
const no = (reason: string): Outcome => ({ ok: false, reason });

/** Past the decision budget (10 s, driven-argus.ts argusEnv): the bridge gives up first. */
const PAST_BUDGET_MS = 11_000;

/**
 * The world a path needs: the Argus roots get the SIMULATED runtimes, with Foreman enabled
 * when the path asks Foreman anything (else the reads say Foreman is off, as the plan's do).
 */
export function argusWorldFor(path: PlannedPath): { argus?: ArgusWorldOptions } {
  if (path.root !== 'argus' && path.root !== 'argus-restored') return {};
  // The plan says whether Foreman runs (every read of the path agrees); an older plan did not.
  const foreman = path.foreman ?? path.steps.some((s) => /foremanAssess/.test(String(s.event.type)) || s.taken.some((t) => t.includes('observationWantsForeman')));
  return { argus: { foreman, restored: path.root === 'argus-restored' } };
}

/** Performs an operator event of the attention region. */
export async function performDecision(world: DrivenWorld, e: Planned): Promise<Outcome> {
  if (!world.argus) return no(`no driver performs ${e.type}`);
  switch (e.type) {
    case 'BIND_MISSION': {
      // The command answers once the bind settled; the plan may want that later (the call
      // waits for its turn), so it is sent and left running once the actor has the event.
      const answer = world.command({ action: 'mission' } as never).catch(() => null);
      const arrived = () => world.peek().some((r) => r.event.type === 'BIND_MISSION');
      for (let i = 0; i < 400 && !arrived(); i++) if ((await Promise.race([answer, sleep(5).then(() => undefined)])) !== undefined) break;
      return arrived() ? OK : no('the mission command never reached the campaign');
    }
    default:
      return no(`no driver performs ${e.type}`);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const effectOf = (type: string): string | null => /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(type)?.[1] ?? null;

/**
 * Arranges a planned answer in an Argus world. Null: not this module's (the standard drivers
 * of stimuli.ts arrange it; a read is still put in its place in the order first).
 */
export async function arrangeDecision(world: DrivenWorld, e: Planned): Promise<Outcome | null> {
  const argus = world.argus;
  if (!argus) return null;
  if (e.type === 'READ_DONE' || e.type === 'READ_CRASHED') {
    argus.order.plan('read', () => world.sim.hold(['GetTask']).release);
    return e.type === 'READ_DONE' ? arrangeEvidence(world, e.output) : null;
  }
  const effect = effectOf(e.type);
  if (effect === null || !(DECISION_EFFECTS as readonly string[]).includes(effect)) return null;
  argus.order.plan(effect);
  if (e.type.startsWith('xstate.error.actor.')) return defect(world, effect);
  const o = e.output;
  switch (effect) {
    case 'verifyBinding':
      if (o.ok) return OK;
      // Argus no longer knows the project, or cannot answer now (a status it cannot read).
      argus.script('runtime', o.definite ? { projectsLost: true } : { malformed: true });
      return OK;
    case 'bindMission':
      if (!o.ok) argus.script('runtime', { createErrorCode: 'daemon_start_failed' });
      return OK;
    case 'foremanAssess':
      argus.writeForemanScript(o.ok ? { action: o.directive, reason: o.reason } : { exitCode: 3 });
      return OK;
    case 'argusTurn':
      return arrangeTurn(world, o);
    case 'argusCheck':
      // Its answer may be planned while a renewal is in flight (`controlling.renewing`): the
      // renewal the plan does not answer first waits until the group's answers are in.
      argus.order.holdUntilAnswered(() => world.sim.hold([CONTROL_METHODS.leaseRenew]).release);
      return arrangeCheck(world, o);
  }
  return null;
}

/**
 * Reads the attention region needs more of than stimuli.ts gives: new evidence (a Foreman-only
 * wake): the training publishes a checkpoint, working again if it was not. On the FIRST
 * observation no evidence is ever reported (the reducer compares artifacts with a previous
 * view only), so there the evidence read is a finished attempt, the other observation that
 * asks Foreman first (the same arrows; only its wake names Argus, which a later step may tell).
 */
function arrangeEvidence(world: DrivenWorld, o: Planned): Outcome | null {
  if (!o?.ok || !o.observation) return null;
  const taskId = world.taskId!;
  const live = world.sim.task(taskId)?.state;
  const observed = world.supervisor.system!.host(CAMPAIGN)!.getSnapshot().context.remote !== null;
  const state = o.observation.view?.state;
  // Still blocked, yet a material read: a checkpoint saved while it waits. (A BLOCKED event is
  // reported only when the remote ENTERS input-required, so such a read never blocks anew.)
  if (state === 'input-required' && live === 'input-required' && observed) return world.sim.addCheckpoint(taskId) ? OK : no('the blocked task cannot publish a checkpoint');
  const evidence = state === 'working' && o.observation.events?.some((ev: Planned) => ev.class === 'EVIDENCE_READY');
  if (!evidence) return null;
  if (!observed) return world.sim.moveTask(taskId, 'completed') ? OK : no('the task cannot complete');
  if (live !== 'working' && !world.sim.moveTask(taskId, 'working')) return no('the task cannot work');
  return world.sim.addCheckpoint(taskId) ? OK : no('the task cannot publish a checkpoint');
}

/** The error answers: a DEFECT at the port the effect calls first (driven-argus.ts). */
function defect(world: DrivenWorld, effect: string): Outcome {
  const port = ({ verifyBinding: 'argus.status', argusCheck: 'argus.status', argusTurn: 'argus.message', bindMission: 'argus.createProject', foremanAssess: 'foreman.assess' } as const)[effect as 'argusTurn'];
  world.argus!.arm(port);
  return OK;
}

/** The Manager's answer to the turn: a dispatched item, a question, a chat, a timeout, a failure. */
function arrangeTurn(world: DrivenWorld, o: Planned): Outcome {
  const argus = world.argus!;
  if (o.ok) {
    if (o.turn.kind === 'task' && o.turn.itemId === null) return no('a turn that dispatches no backlog item is not scripted (the fake always names its item)');
    argus.script('events', { reply: o.turn.kind });
    return OK;
  }
  if (o.code === 'argus_timeout') argus.script('events', { hangMs: PAST_BUDGET_MS });
  // An answer in a shape the bridge does not read (argus_bad_result), else a Manager failure.
  else if (o.code === 'argus_bad_result') argus.script('events', { malformed: true });
  else argus.script('events', { errorCode: 'manager_failed' });
  return OK;
}

/**
 * The mission poll's answer: how the scripted daemon and Reviewer settle the dispatched item
 * (no verdict yet, blocked on a question, failed, complete) and the decision file it writes.
 * A verdict is written on the fake's clock; the world's moves a second on, so it is after the
 * wake, as a real Reviewer's would be.
 */
function arrangeCheck(world: DrivenWorld, o: Planned): Outcome {
  const argus = world.argus!;
  if (!o.ok) {
    argus.script('runtime', { malformed: true });
    return OK;
  }
  if (o.consumed) return no('a decision applied already needs an earlier relay of the same decision id; this path has none');
  const kinds = (o.journal as Planned[]).map((j) => j.kind);
  const asks = o.backlog.some((b: Planned) => b.pendingQuestion) || o.pendingQuestions.length > 0;
  if (kinds.length === 0) {
    argus.script('events', asks ? { verdict: 'blocked', question: 'Which seed?' } : { verdict: 'none' });
    return OK;
  }
  world.setClock(world.now() + 1_000);
  if (kinds.some((k) => k === 'mission_failed' || k === 'mission_aborted')) {
    argus.script('events', { verdict: 'failed', proposal: null });
    return OK;
  }
  const p = o.proposal;
  if (p.status === 'none') argus.script('events', { verdict: 'complete', proposal: null });
  else if (p.status === 'invalid') argus.script('events', { verdict: 'complete', proposal: { event_key: '$EVENT_KEY' } });
  else {
    const { kind, text, instruction } = p.proposal;
    const proposal = { decision_id: 'sim-$ITEM_ID', event_key: '$EVENT_KEY', kind, reason: 'SIMULATED Reviewer', evidence_refs: [], ...(text ? { text } : {}), ...(instruction ? { instruction } : {}) };
    argus.script('events', { verdict: 'complete', proposal });
  }
  return OK;
}
