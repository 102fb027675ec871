/**
 * The demo's authority acts: the answer to the remote's own question (refused without a lease,
 * then relayed once under one), an explicit claim, a stale epoch refused before any I/O, a
 * fenced submit journaled before it is sent, and a release. Every sentence carries its counters.
 * @module
 */
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { journalOf, methodDelta, mutationRequestsSince, remoteCounters, watchJournalAtArrival } from './demo-facts.js';
import { DemoFailure, narrateFact, poll, requireCampaign, summaryOf, type DemoAct } from './demo-stage.js';

const ANSWER = 'Yes: lower the learning rate to 1e-4 and resume from the last good checkpoint.';

/**
 * The blocker's NEEDS_YOU is the remote's own question: answering it sends a message to that
 * task, a fenced mutation. Without the lease it is refused before any I/O; with it, it is
 * journaled and relayed once, and the question clears for good.
 */
export const answerBlocker: DemoAct = async (stage) => {
  const { io, sim, supervisor } = stage;
  const blocker = requireCampaign(stage, 'blocker');
  const act = async (body: Record<string, unknown>) => supervisor.campaignAction({ campaign_id: blocker.id, ...body });
  const before = await summaryOf(supervisor, blocker.id);
  const questionKey = before.pending_question?.key;
  io.out(`Answering ${blocker.id}: "${ANSWER}"`);
  let remoteBefore = remoteCounters(sim);
  const unleased = await act({ action: 'answer', text: ANSWER, question_key: questionKey });
  const sent = mutationRequestsSince(sim, remoteBefore).length;
  const code = unleased.ok ? null : unleased.error.code;
  narrateFact(
    stage,
    { claim: 'answer_not_sent_without_lease', holds: code === 'lease_required' && sent === 0, measured: { refused: !unleased.ok, code, mutation_requests: sent } },
    `  without the lease: refused (${code}); nothing went to the remote (mutation requests: ${sent})`,
    `  without the lease the answer was ${unleased.ok ? 'ACCEPTED' : `refused (${code})`} and sent ${sent} mutation requests`,
  );

  const claimed = await act({ action: 'claim' });
  if (!claimed.ok) throw new DemoFailure(`claim refused: ${claimed.error.message}`);
  const epoch = (claimed.value as { lease: { epoch: number } }).lease.epoch;
  remoteBefore = remoteCounters(sim);
  const answered = await act({ action: 'answer', text: ANSWER, question_key: questionKey });
  if (!answered.ok) throw new DemoFailure(`the answer was refused: ${answered.error.message}`);
  const requestId = (answered.value as { request_id?: string }).request_id ?? null;
  const arrivals = mutationRequestsSince(sim, remoteBefore).filter((e) => e.action === 'answer');
  const applied = arrivals.filter((e) => e.disposition === 'applied' && e.requestId === requestId).length;
  const recorded = (await journalOf(supervisor.store, blocker.id)).filter((i) => i.action === 'answer');
  narrateFact(
    stage,
    {
      claim: 'answer_relayed_once_under_lease',
      holds: arrivals.length === 1 && applied === 1 && recorded.length === 1 && recorded[0]!.outcome?.status === 'applied',
      measured: { arrivals: arrivals.length, applied_at_remote: applied, journal_entries: recorded.length, journal_outcome: recorded[0]?.outcome?.status ?? null },
    },
    `  claimed, answered again: journaled as ${String(requestId).slice(0, 8)}… and sent to the task once (received ${arrivals.length}, applied ${applied}; journal: ${recorded[0]?.outcome?.status})`,
    `  the answer under the lease: received ${arrivals.length}, applied ${applied}, journal entries ${recorded.length}`,
  );
  // Re-read the remote once: the NEEDS_YOU must not come back (it is deduplicated durably).
  const again = await poll(stage, blocker);
  const after = await summaryOf(supervisor, blocker.id);
  if (after.pending_question !== null || again.some((e) => e.kind === 'NEEDS_YOU')) throw new DemoFailure('the NEEDS_YOU did not clear');
  const released = await act({ action: 'release', epoch });
  if (!released.ok) throw new DemoFailure(`release refused: ${released.error.message}`);
  io.out(`  NEEDS_YOU cleared: attention ${before.attention} -> ${after.attention}, no pending question; a re-read stays quiet; lease released`);
};

/** Explicit authority: claim the lease, submit the next attempt with its epoch, then release. */
export const claimAndSubmit: DemoAct = async (stage) => {
  const { io, sim, supervisor } = stage;
  const training = requireCampaign(stage, 'training');
  const act = async (body: Record<string, unknown>) => supervisor.campaignAction({ campaign_id: training.id, ...body });
  const journal = () => journalOf(supervisor.store, training.id);
  io.out(`Operator claims ${training.id} (explicitly; never at start-up):`);
  let before = remoteCounters(sim);
  const claimed = await act({ action: 'claim' });
  if (!claimed.ok) throw new DemoFailure(`claim refused: ${claimed.error.message}`);
  const epoch = (claimed.value as { lease: { epoch: number } }).lease.epoch;
  let after = remoteCounters(sim);
  const claims = mutationRequestsSince(sim, before).filter((e) => e.action === 'claim' && e.disposition === 'applied').length;
  const readbacks = methodDelta(before, after, CONTROL_METHODS.leaseGet);
  narrateFact(
    stage,
    { claim: 'claim_confirmed_by_readback', holds: claims === 1 && readbacks >= 1, measured: { claims_applied: claims, lease_reads: readbacks, epoch } },
    `  controlling with epoch ${epoch}, confirmed by the remote's readback (claims applied ${claims}, lease reads ${readbacks})`,
    `  the claim was not read back (claims applied ${claims}, lease reads ${readbacks})`,
  );

  before = remoteCounters(sim);
  const intentsBefore = (await journal()).length;
  const stale = await act({ action: 'submit', epoch: epoch - 1, text: 'Attempt 2' });
  after = remoteCounters(sim);
  const intentsAfter = (await journal()).length;
  const refused = !stale.ok;
  narrateFact(
    stage,
    {
      claim: 'stale_epoch_refused_before_io',
      holds: refused && after.requests === before.requests && intentsAfter === intentsBefore,
      measured: { refused, code: stale.ok ? null : stale.error.code, requests_before: before.requests, requests_after: after.requests, intents_before: intentsBefore, intents_after: intentsAfter },
    },
    `  submit with epoch ${epoch - 1}: refused before any I/O (${stale.ok ? 'accepted' : stale.error.code}; remote requests before ${before.requests}, after ${after.requests}; journal entries before ${intentsBefore}, after ${intentsAfter})`,
    `  submit with epoch ${epoch - 1}: ${refused ? 'refused' : 'ACCEPTED'}, but not before I/O: remote requests before ${before.requests}, after ${after.requests}; journal entries before ${intentsBefore}, after ${intentsAfter}`,
  );

  before = remoteCounters(sim);
  const watch = watchJournalAtArrival(sim, supervisor.store, training.id);
  const submitted = await act({ action: 'submit', epoch, text: 'Attempt 2: warm up the learning rate over 500 steps' }).finally(watch.stop);
  if (!submitted.ok) throw new DemoFailure(`submit refused: ${submitted.error.message}`);
  const { task_id: taskId, request_id: requestId } = submitted.value as { task_id: string; request_id: string };
  const arrivals = mutationRequestsSince(sim, before).filter((e) => e.requestId === requestId);
  const appliedAtRemote = arrivals.filter((e) => e.disposition === 'applied').length;
  const onDisk = watch.journaledAtArrival(requestId);
  const recorded = (await journal()).find((i) => i.requestId === requestId)?.outcome?.status ?? null;
  narrateFact(
    stage,
    {
      claim: 'submit_journaled_then_sent',
      holds: onDisk === true && arrivals.length === 1 && appliedAtRemote === 1 && recorded === 'applied',
      measured: { journaled_at_arrival: onDisk, arrivals: arrivals.length, applied_at_remote: appliedAtRemote, journal_outcome: recorded },
    },
    `  submit with epoch ${epoch}: journaled as ${requestId.slice(0, 8)}…, then sent (on disk when the remote received it: ${onDisk ? 'yes' : 'no'}; ` +
      `received ${arrivals.length}, applied ${appliedAtRemote}; journal: ${recorded}); attempt 2 is ${taskId}`,
    `  submit ${requestId.slice(0, 8)}…: on disk when the remote received it: ${onDisk}; received ${arrivals.length}, applied ${appliedAtRemote}; journal: ${recorded}`,
  );

  before = remoteCounters(sim);
  const released = await act({ action: 'release', epoch });
  if (!released.ok) throw new DemoFailure(`release refused: ${released.error.message}`);
  const releases = mutationRequestsSince(sim, before).filter((e) => e.action === 'release' && e.disposition === 'applied').length;
  const mode = (await summaryOf(supervisor, training.id)).lease.mode;
  narrateFact(
    stage,
    { claim: 'release_returns_to_observer', holds: releases === 1 && mode === 'observer', measured: { releases_applied: releases, mode } },
    `  released (releases applied at the remote ${releases}): back to ${mode} mode`,
    `  release: applied at the remote ${releases} times, mode ${mode}`,
  );
};
