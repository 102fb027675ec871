/**
 * `demo --keep`: after the story, one campaign is left for the person on the served
 * supervisor. It is attached to a fresh `blocker` task and claimed, so the page shows a
 * controlling campaign whose statechart moves live, and within a few heartbeats the remote
 * asks its question: the NEEDS_YOU card takes the answer (or the CLI client's `act … answer`).
 * @module
 */
import { DemoFailure, freshCampaignId, type DemoStage } from './demo-stage.js';

export async function leaveRunning(stage: DemoStage): Promise<void> {
  const { io, sim, world, page } = stage;
  const supervisor = world.supervisor;
  const [taskId] = sim.createTasks(1, 'blocker');
  const id = await freshCampaignId(supervisor, 'demo-live');
  const created = await supervisor.campaigns({ action: 'create', campaign_id: id, objective: 'Train until the remote asks; answer it on the page', remote_task_id: taskId });
  if (!created.ok) throw new DemoFailure(`could not create ${id}: ${created.error.message}`);
  const claimed = await supervisor.campaignAction({ campaign_id: id, action: 'claim' });
  if (!claimed.ok) throw new DemoFailure(`could not claim ${id}: ${claimed.error.message}`);
  const epoch = (claimed.value as { lease: { epoch: number } }).lease.epoch;
  const cli = `ARGUS_SUPERVISOR_URL=${page.url} ARGUS_SUPERVISOR_STATE_ROOT=${page.stateRoot} npx argus-supervisor`;
  io.out('');
  io.out('Left running for you (Ctrl-C stops the demo and removes its temp state):');
  io.out(`  ${id.padEnd(15)} -> ${taskId} (blocker scenario): controlling with epoch ${epoch}; a heartbeat every 2 s, and the remote asks a question after about 7 reads`);
  io.out(`  page: ${page.url}/ (the key is in ${page.keyFile}): select ${id}, watch its statechart, answer the NEEDS_YOU card`);
  io.out(`  CLI:  ${cli} campaigns list`);
  io.out(`        ${cli} events --follow`);
  io.out(`        ${cli} act ${id} answer --question-key <key from campaigns get> --text "Lower the learning rate and resume."`);
}
