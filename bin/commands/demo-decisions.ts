/**
 * The demo's decision act: one campaign with an Argus mission bound, decided end to end:
 * observing → claimed lease → a completed attempt → one Argus turn → the mission's proposal →
 * its own Reviewer's approval → the relay through the lease, the epoch and the journal → the
 * next completion's Argus question as NEEDS_YOU → the operator's answer, delivered to Argus.
 *
 * Argus is SIMULATED here (simulator/argus: a scripted Manager, daemon and Reviewer behind the
 * real MCP tool surface, run as a real stdio child) and so is Foreman (simulator/foreman, a
 * deterministic python shim run as a real child, once per completed attempt); no model runs.
 * The act runs on its own supervisor (demo-decisions-io.ts; the one the page serves) so its
 * heartbeat sweeps touch no other act's campaign and its counters are its own. Every claim is a measured fact (demo-facts.ts).
 * @module
 */
import { mutationRequestsSince, remoteCounters } from './demo-facts.js';
import {
  argusMessages,
  argusProject,
  decisionView,
  documentOf,
  eventKeyOf,
  foremanRuns as foremanRunsOf,
  modelCalls,
  publicEventsSince,
  writeFakeScript,
  type DecisionView,
  type DecisionWorld,
} from './demo-decisions-io.js';
import { DemoFailure, freshCampaignId, narrateFact, type DemoAct, type DemoStage } from './demo-stage.js';
import type { ScriptEntry } from '../../simulator/argus/fake-argus-state.js';

const OBJECTIVE = 'Fine-tune the baseline; Argus decides the next attempt';
const NEXT_ATTEMPT = 'Attempt 2: lower the learning rate to 1e-4 and warm up over 500 steps.';
const QUESTION = 'Attempt 2 plateaued as well. Keep this recipe for a third attempt, or stop here?';
const OPERATOR_ANSWER = 'Stop here: attempt 2 is good enough; keep its checkpoint.';
/** Sweeps per wait before the act gives up (each sweep is one read of its one campaign). */
const MAX_SWEEPS = 60;
/** Quiet sweeps at the end: nothing more may wake Argus. */
const QUIET_SWEEPS = 3;
/** Remote actions other than the lease's own calls (claim, renew, release). */
const ACTIONS = new Set(['submit', 'intervene', 'cancel', 'answer']);

/** The script: attempt 1's completion proposes the next attempt; the next completion asks; the answer settles. */
function argusScript(firstTaskId: string): Record<string, ScriptEntry> {
  const submit = { decision_id: 'dec-$ITEM_ID', event_key: '$EVENT_KEY', kind: 'submit', text: NEXT_ATTEMPT, reason: 'attempt 1 plateaued', evidence_refs: ['eval-attempt-1'] };
  const observe = { decision_id: 'dec-$ITEM_ID', event_key: '$EVENT_KEY', kind: 'observe', reason: 'the operator chose to stop', evidence_refs: [] };
  return {
    [`attempt:${firstTaskId}:`]: { reply: 'task', verdict: 'complete', proposal: submit },
    'answer:': { reply: 'task', verdict: 'complete', proposal: observe },
    '*': { reply: 'pending_question', question: QUESTION },
  };
}

/** The world (its supervisor, the one the page serves) is the stage's; runDemo starts and stops it. */
export const decideWithArgus: DemoAct = async (stage) => decide(stage, stage.world);

async function decide(stage: DemoStage, world: DecisionWorld): Promise<void> {
  const { io, sim } = stage;
  const { supervisor, argusHome } = world;
  io.out('Argus decides one campaign (SIMULATED Argus: simulator/argus, a scripted Manager, daemon and Reviewer; no model runs; SIMULATED Foreman: simulator/foreman/fake_foreman.py, a deterministic python shim):');
  const [taskId] = sim.createTasks(1, 'training');
  const id = await freshCampaignId(supervisor, 'demo-decision');
  const act = async (body: Record<string, unknown>) => {
    const r = await supervisor.campaignAction({ campaign_id: id, ...body });
    if (!r.ok) throw new DemoFailure(`${String(body.action)} on ${id} refused: ${r.error.message}`);
    return r.value as Record<string, unknown>;
  };
  writeFakeScript(argusHome, argusScript(taskId!));
  const created = await supervisor.campaigns({ action: 'create', campaign_id: id, objective: OBJECTIVE, remote_task_id: taskId });
  if (!created.ok) throw new DemoFailure(`could not create ${id}: ${created.error.message}`);
  const projectId = ((await act({ action: 'mission' })).mission as { project_id: string }).project_id;
  await act({ action: 'observe' });
  let view = await decisionView(supervisor, id);
  io.out(`  ${id.padEnd(15)} -> ${taskId}: ${view.state}, mission bound to Argus project ${projectId} (binding ${view.decisions.mission.binding})`);
  const epoch = ((await act({ action: 'claim' })).lease as { epoch: number }).epoch;
  io.out(`  operator claims: ${(await decisionView(supervisor, id)).state} with epoch ${epoch}`);

  // Heartbeat sweeps; only the campaign's public events are printed.
  let sweeps = 0;
  let seen = (await documentOf(supervisor, id)).outbox.nextSeq - 1;
  const printed = new Set<string>();
  const printFresh = async () => {
    const fresh = await publicEventsSince(supervisor, id, seen);
    seen = fresh.seen;
    for (const e of fresh.events) printed.add(e.kind);
    for (const e of fresh.events) io.out(`  sweep ${String(sweeps).padEnd(3)} ${e.kind.padEnd(18)} ${id.padEnd(15)} ${e.summary}`);
  };
  const sweepUntil = async (what: string, done: (v: DecisionView) => boolean | Promise<boolean>) => {
    for (view = await decisionView(supervisor, id); !(await done(view)); view = await decisionView(supervisor, id)) {
      if (sweeps >= MAX_SWEEPS) throw new DemoFailure(`${id}: ${what} did not happen within ${MAX_SWEEPS} sweeps`);
      await supervisor.sweep();
      sweeps++;
      // The decision effects (a turn, a status poll) run beside the heartbeat: let them answer.
      await new Promise((r) => setTimeout(r, 10));
      await printFresh();
    }
    // A decision effect that settled between sweeps may have published already (Argus's question).
    await printFresh();
  };

  const remoteBefore = remoteCounters(sim);
  const foremanBefore = foremanRunsOf(world.foremanRecord).length;
  const foremanSince = () => foremanRunsOf(world.foremanRecord).length - foremanBefore;
  await sweepUntil('the first decision', (v) => v.decisions.last !== null);
  const first = view.decisions.last!;
  if (first.outcome !== 'relayed' || first.decision_id === null) throw new DemoFailure(`${id}: the first decision settled as ${first.outcome}`);
  // 'relayed' is the decision handed to the authority path; the journal settles it (lease, epoch, send, outcome).
  const settledIntent = async () => (await documentOf(supervisor, id)).intents.some((i) => i.decisionId === first.decision_id && i.outcome !== null);
  await sweepUntil('the relay settled in the journal', settledIntent);
  const turns = argusMessages(argusHome, projectId);
  narrateFact(
    stage,
    { claim: 'completion_woke_argus_once', holds: turns.length === 1 && eventKeyOf(turns[0]!) === first.event_key, measured: { argus_messages: turns.length, event_key: first.event_key } },
    `  Argus woken once (argus_message calls: ${turns.length}) with EVENT_KEY ${first.event_key}; the mission was then polled with argus_status only`,
    `  Argus was sent ${turns.length} messages for ${first.event_key}`,
  );

  // Foreman ran before the turn; its directive travels only as a hint inside the untrusted block.
  const hint = turns[0] ? /^foreman_hint: (.+)$/m.exec(turns[0].text)?.[1] ?? null : null;
  narrateFact(
    stage,
    { claim: 'foreman_hint_only', holds: foremanSince() === 1 && hint !== null && hint !== '(none)', measured: { foreman_runs: foremanSince(), hint } },
    `  SIMULATED Foreman assessed attempt 1 first (1 run); Argus got its directive as a hint in the untrusted block: "${hint}"; Foreman decides and sends nothing`,
    `  Foreman runs before the first turn: ${foremanSince()}, hint in the envelope: ${hint ?? 'none'}`,
  );
  const proposal = await world.decisions.readProposal(id, first.event_key);
  const found = proposal.status === 'found' ? proposal.proposal : null;
  const verdicts = argusProject(argusHome, projectId).journal.filter((j) => j.kind === 'mission_complete' && j.extra.event_key === first.event_key);
  io.out(`  Argus proposal (its mission wrote decisions/<EVENT_KEY>.json): ${proposal.status === 'found' ? `${found?.kind} ${found?.decision_id} "${found?.text}"` : proposal.status}`);
  narrateFact(
    stage,
    {
      claim: 'proposal_approved_by_its_own_reviewer',
      holds: found?.kind === 'submit' && found.decision_id === first.decision_id && verdicts.length === 1 && first.kind === 'submit' && view.decisions.reviewer_verdict === 'approved',
      measured: { proposal: proposal.status, kind: found?.kind ?? null, decision_id: found?.decision_id ?? null, mission_complete_for_event: verdicts.length },
    },
    `  Reviewer verdict: mission_complete for item ${verdicts[0]?.id}, the item dispatched for this event -> ${view.decisions.reviewer_verdict}`,
    `  proposal ${proposal.status} (${found?.kind ?? '-'} ${found?.decision_id ?? '-'}), mission_complete verdicts for the event: ${verdicts.length}`,
  );

  const doc = await documentOf(supervisor, id);
  const intents = doc.intents.filter((i) => i.decisionId === first.decision_id);
  const intent = intents[0];
  const received = mutationRequestsSince(sim, remoteBefore).filter((e) => ACTIONS.has(e.action));
  const applied = received.filter((e) => e.requestId === intent?.requestId && e.disposition === 'applied');
  const consumed = doc.consumedDecisions.filter((d) => d === first.decision_id).length;
  narrateFact(
    stage,
    {
      claim: 'approved_decision_relayed_once',
      holds: intents.length === 1 && intent!.action === 'submit' && intent!.epoch === epoch && intent!.outcome?.status === 'applied' && received.length === 1 && applied.length === 1 && consumed === 1,
      measured: { journal_entries: intents.length, journal_outcome: intent?.outcome?.status ?? null, epoch: intent?.epoch ?? null, remote_received: received.length, remote_applied: applied.length, consumed },
    },
    `  relayed: journal {request ${intent?.requestId.slice(0, 8)}…, ${intent?.action}, epoch ${intent?.epoch}, decision ${intent?.decisionId}} -> ${intent?.outcome?.status}; ` +
      `the simulator received it once (ledger #${applied[0]?.seq} ${applied[0]?.action} ${applied[0]?.disposition}); decision consumed ${consumed}x; attempt 2 is ${view.remote.task_id}`,
    `  the relay: journal entries ${intents.length} (${intent?.outcome?.status ?? 'none'}), remote received ${received.length}, applied ${applied.length}, consumed ${consumed}`,
  );

  // The view shows the question as soon as the actor holds it; its NEEDS_YOU is told once its save is durable.
  await sweepUntil("Argus's question", (v) => v.pending_question !== null && printed.has('NEEDS_YOU'));
  const question = view.pending_question!;
  if (question.source !== 'argus') throw new DemoFailure(`${id}: the NEEDS_YOU came from ${question.source}, not Argus`);
  io.out(`  NEEDS_YOU (asked by Argus, key ${question.key}): "${question.text}"`);
  io.out(`  operator answers ${question.key}: "${OPERATOR_ANSWER}"`);
  const answerBefore = remoteCounters(sim);
  const asked = argusProject(argusHome, projectId).items.find((i) => question.key.startsWith(`argus-${i.id}-`));
  await act({ action: 'answer', text: OPERATOR_ANSWER, question_key: question.key });
  await sweepUntil("Argus's answer settled", (v) => v.decisions.last?.event_key.startsWith('answer:') === true && v.attention === 'idle');
  const delivered = argusMessages(argusHome, projectId).filter((m) => asked !== undefined && m.text.startsWith(`OPERATOR_ANSWER_FOR: ${asked.id}`));
  const resolved = argusProject(argusHome, projectId).items.find((i) => i.id === asked?.id);
  const sentRemote = mutationRequestsSince(sim, answerBefore).filter((e) => ACTIONS.has(e.action)).length;
  narrateFact(
    stage,
    {
      claim: 'answer_reached_argus',
      holds: delivered.length === 1 && delivered[0]!.text.includes(OPERATOR_ANSWER) && resolved?.operator_decision.status === 'resolved' && view.pending_question === null && sentRemote === 0,
      measured: { answer_messages: delivered.length, item_status: resolved?.operator_decision.status === 'resolved' ? 'resolved' : (resolved?.status ?? null), remote_actions: sentRemote, last: view.decisions.last?.outcome ?? null },
    },
    `  the answer reached Argus once (argus_message marked OPERATOR_ANSWER_FOR ${asked?.id}; the item is resolved), nothing went to the remote (actions: ${sentRemote}); ` +
      `its continuation settled: ${view.decisions.last?.outcome} ${view.decisions.last?.kind}`,
    `  the answer: ${delivered.length} messages to Argus, item ${resolved?.status ?? 'missing'}, remote actions ${sentRemote}`,
  );

  for (let i = 0; i < QUIET_SWEEPS; i++) await supervisor.sweep();
  const wakes = (await documentOf(supervisor, id)).wake.requests.filter((w) => w.target === 'argus');
  const calls = await modelCalls(world.metrics);
  const settled = wakes.map((w) => w.settled?.outcome ?? 'open');
  // Foreman assesses each completed attempt before Argus is woken for it: one run per completion.
  const completions = (await documentOf(supervisor, id)).outbox.events.filter((e) => e.kind === 'ATTEMPT_COMPLETED').length;
  const foremanRuns = foremanSince();
  narrateFact(
    stage,
    {
      claim: 'model_calls_equal_decision_events',
      holds: wakes.length > 0 && calls.argus === wakes.length && wakes.every((w) => w.settled) && calls.foreman === foremanRuns && foremanRuns === completions,
      measured: {
        decision_worthy_events: wakes.length,
        model_calls: calls.argus + calls.foreman,
        argus_calls: calls.argus,
        foreman_calls: calls.foreman,
        foreman_runs: foremanRuns,
        completed_attempts: completions,
        settled: settled.join(','),
      },
    },
    `  decision-worthy events: ${wakes.length} (Argus wakes in the wake log, settled ${settled.join(', ')}); ` +
      `model calls: ${calls.argus + calls.foreman} = ${calls.argus} Argus turns + ${calls.foreman} SIMULATED Foreman runs, one per completed attempt (${completions}) ` +
      `(argus_supervisor_model_calls_total, after ${sweeps + QUIET_SWEEPS} sweeps)`,
    `  decision-worthy events ${wakes.length} (${settled.join(', ')}) but model calls argus ${calls.argus}, foreman ${calls.foreman} (runs ${foremanRuns}, completed attempts ${completions})`,
  );
  // Released and closed: a later run on a kept state root sweeps only its own campaign.
  await act({ action: 'release', epoch });
  const released = (await decisionView(supervisor, id)).state;
  await act({ action: 'close' });
  io.out(`  operator releases (${released}) and closes ${id} (${(await decisionView(supervisor, id)).state})`);
}
