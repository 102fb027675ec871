/**
 * What the host keeps of a campaign beside its live actor: the snapshot's type, and the few
 * document fields the views and the decision effects read (never the whole document).
 * @module
 */
import type { SnapshotFrom } from 'xstate';
import type { CampaignMachine } from '../../machines/campaign.machine.js';
import type { CampaignDocument } from '../../persistence/campaign-document.js';

export type CampaignSnapshot = SnapshotFrom<CampaignMachine>;

/** What the view needs of the document: a few fields, kept by the host (never the whole document). */
export interface CampaignFacts {
  campaignId: string;
  objective: string;
  binding: { taskId: string | null; contextId: string | null; attached: boolean };
  /** The journal's unresolved intent (open or ambiguous), if any. */
  openIntent: { requestId: string; action: string; outcomeRecorded: boolean } | null;
  /** Argus decision ids applied (or in doubt) already: none is ever applied twice. */
  consumedDecisions: readonly string[];
}

export function factsOf(doc: CampaignDocument): CampaignFacts {
  const open = doc.intents.find((i) => i.outcome === null || i.outcome.status === 'ambiguous') ?? null;
  return {
    campaignId: doc.campaignId,
    objective: doc.objective,
    binding: { taskId: doc.remote.taskId, contextId: doc.remote.contextId, attached: doc.remote.attached },
    openIntent: open ? { requestId: open.requestId, action: open.action, outcomeRecorded: open.outcome !== null } : null,
    consumedDecisions: doc.consumedDecisions,
  };
}
