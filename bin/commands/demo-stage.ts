/**
 * What the demo's acts share: the stage, the failure they throw, and `state`, which prints a
 * claim only with the measured fact behind it.
 * @module
 */
import type { PublicEventView } from '../../services/api/read-model.js';
import type { ScenarioName, RunningSimulator } from '../../simulator/index.js';
import type { Supervisor } from '../../services/runtime/supervisor.js';
import type { DecisionWorld } from './demo-decisions-io.js';
import type { DemoFact } from './demo-facts.js';
import { DemoFailure } from './demo-failure.js';
import type { ServedPage } from './demo-page.js';

export interface DemoIo {
  /** One line of narration (no trailing newline). */
  out(line: string): void;
  /** One line of failure (no trailing newline). */
  err(line: string): void;
}

export interface DemoTally {
  /** `observe` reads made. */
  polls: number;
  /** Reads where the remote had moved (new revision) and nothing public was said. */
  routineSuppressed: number;
  publicEvents: number;
  storeWrites: number;
  modelCalls: number;
  wakeRequests: number;
}

export interface DemoResult {
  exitCode: 0 | 1;
  tally: DemoTally;
  /** Every claim the demo made about authority, with the counters that back it. */
  facts: DemoFact[];
}

/** One campaign the demo supervises. */
export interface DemoCampaign {
  id: string;
  taskId: string;
  scenario: ScenarioName;
  /** Read counter for this campaign (the poll number printed with each event). */
  polls: number;
}

/** Everything the acts share. */
export interface DemoStage {
  readonly io: DemoIo;
  readonly sim: RunningSimulator;
  readonly supervisor: Supervisor;
  readonly stateRoot: string;
  readonly maxPolls: number;
  /** Filled by `attachCampaigns`, by scenario. */
  readonly campaigns: Map<'training' | 'blocker', DemoCampaign>;
  readonly tally: Pick<DemoTally, 'polls' | 'routineSuppressed'>;
  readonly facts: DemoFact[];
  /** The decided campaign's own supervisor (SIMULATED Argus and Foreman), the one the page serves. */
  readonly world: DecisionWorld;
  readonly page: ServedPage;
}

/** One act of the demo; a failure is thrown as a DemoFailure and ends the run with exit 1. */
export type DemoAct = (stage: DemoStage) => Promise<void>;

export { DemoFailure };

export function requireCampaign(stage: DemoStage, scenario: 'training' | 'blocker'): DemoCampaign {
  const campaign = stage.campaigns.get(scenario);
  if (!campaign) throw new DemoFailure(`no ${scenario} campaign is attached`);
  return campaign;
}

export type Summary = { attention: string; pending_question: { key: string; text: string } | null; remote: { state: string | null }; lease: { mode: string } };

/** Records a measured fact and prints `line`; when it does not hold, prints `contradiction` and fails. */
export function narrateFact(stage: DemoStage, fact: DemoFact, line: string, contradiction: string): void {
  stage.facts.push(fact);
  if (fact.holds) {
    stage.io.out(line);
    return;
  }
  stage.io.out(`${contradiction} (this contradicts what the demo is meant to show)`);
  throw new DemoFailure(`${fact.claim} did not hold: ${JSON.stringify(fact.measured)}`);
}

export async function summaryOf(supervisor: Supervisor, campaignId: string): Promise<Summary> {
  const got = await supervisor.campaigns({ action: 'get', campaign_id: campaignId });
  if (!got.ok) throw new DemoFailure(`${campaignId}: ${got.error.message}`);
  return (got.value as { campaign: Summary }).campaign;
}


/** One `observe`; returns the public events it appended and tallies a silent routine change. */
export async function poll(stage: DemoStage, campaign: DemoCampaign): Promise<PublicEventView[]> {
  const revision = stage.sim.task(campaign.taskId)?.revision;
  const result = await stage.supervisor.campaignAction({ campaign_id: campaign.id, action: 'observe' });
  if (!result.ok && result.error.code === 'read_failed') throw new DemoFailure(`reading ${campaign.taskId} failed: ${result.error.read_code ?? 'unknown'}`);
  if (!result.ok) throw new DemoFailure(`observing ${campaign.id} failed: ${result.error.message}`);
  campaign.polls++;
  stage.tally.polls++;
  const value = result.value as { events: PublicEventView[] };
  const moved = stage.sim.task(campaign.taskId)?.revision !== revision;
  if (moved && value.events.length === 0) stage.tally.routineSuppressed++;
  return value.events;
}

/** `base`, or `base-2`, `base-3`... when a kept state root already has one from an earlier run. */
export async function freshCampaignId(supervisor: Supervisor, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!(await supervisor.campaigns({ action: 'get', campaign_id: id })).ok) return id;
  }
}
