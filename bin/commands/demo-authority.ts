/**
 * The demo's authority act: an explicit claim, a stale epoch refused before any I/O, a fenced
 * submit journaled before it is sent, and a release. Every sentence carries its counters.
 * @module
 */
import { CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';
import { journalOf, methodDelta, mutationRequestsSince, remoteCounters, watchJournalAtArrival } from './demo-facts.js';
import { DemoFailure, narrateFact, requireCampaign, summaryOf, type DemoAct } from './demo-stage.js';

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
