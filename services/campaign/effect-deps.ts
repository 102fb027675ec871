/**
 * What the campaign's invoked effects need from the world, and nothing else: the remote client,
 * the clock, the durable journal write, the published dedupe keys and the decision runtimes.
 * The host builds one of these per supervisor; `createCampaignEffects` turns it into the actors once.
 * @module
 */
import type { DecisionRuntime } from '../decisions/decision-runtime.js';
import type { AuthorityPorts } from '../authority/authority-ports.js';
import type { FleetAnswers } from './fleet-read.js';

export { JournalRefusedError, REMOTE_NOT_CONFIGURED, type JournalIntentRecord } from '../authority/authority-ports.js';

/** Every effect's ports: the authority effects' (narrow, authority-ports.ts) and the read's and decisions' own. */
export interface EffectDeps extends AuthorityPorts {
  /** Published dedupe keys of the campaign (read from its document: only on a material read). */
  publishedKeys(campaignId: string): Promise<ReadonlySet<string>>;
  /**
   * How many status reads may be in flight at once, all campaigns together (default 64): the
   * heartbeat hands every TICK out at once, so reads queue here, and only reads do (renewals and
   * mutations never wait behind them).
   */
  readConcurrency?: number;
  /**
   * The beat's fleet listing (services/campaign/fleet-read.ts): a read whose task was listed
   * takes that answer instead of sending GetTask. Absent: every read sends GetTask.
   */
  fleet?: FleetAnswers;
  /** The Argus bridge and Foreman runner the decision effects use (none: no decision runs). */
  decisions?: DecisionRuntime;
  /** The campaign's objective (the envelope carries it, sanitized and capped). */
  objectiveOf?(campaignId: string): string;
  /** This Argus decision id was consumed already (the document's consumed decisions). */
  decisionConsumed?(campaignId: string, decisionId: string): boolean;
}
