/** Document builders shared by the persistence tests. */
import { NO_ENVIRONMENT, type CampaignContext } from '../../../machines/campaign.types.js';
import { CAMPAIGN_MACHINE_VERSION } from '../../../machines/campaign.version.js';
import { newCampaignDocument, type CampaignDocument } from '../../../persistence/campaign-document.js';
import { digestPayload } from '../../../persistence/payload-digest.js';
import { initialArgusMemory } from '../../../machines/campaign.argus.js';

export const T0 = '2025-01-01T00:00:00.000Z';
export const at = (minutes: number): string => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

/**
 * A persisted snapshot as the chart writes one for a new campaign (plain data: persistence
 * keeps it opaque, and these tests must not depend on the chart's behaviour).
 */
export function initialSnapshot(campaignId: string, context: Partial<CampaignContext> = {}) {
  const full: CampaignContext = {
    campaignId,
    controllerId: 'argus-openoperator',
    createdAt: T0,
    maxAttempts: 3,
    attemptsSubmitted: 0,
    lease: null,
    lastEpoch: null,
    lastHeldSince: null,
    pendingIntent: null,
    pendingQuestion: null,
    lastErrorCode: null,
    remote: null,
    readFailures: { consecutive: 0, nextReadAt: null, criticalRaised: false },
    wakes: { lastArgusEventKey: null },
    // No task bound (the document's remote binding is its copy); the environment as first hosted.
    binding: { taskId: null, contextId: null },
    environment: NO_ENVIRONMENT,
    argus: initialArgusMemory(),
    ...context,
  };
  return {
    version: CAMPAIGN_MACHINE_VERSION,
    snapshot: {
      status: 'active',
      value: { active: { authority: 'observing', attention: { idle: 'quiet' }, heartbeat: 'idle' } },
      historyValue: {},
      context: full,
      children: {},
    },
  };
}

export const makeDoc = (campaignId = 'c1', overrides: Partial<CampaignDocument> = {}): CampaignDocument => ({
  ...newCampaignDocument({ campaignId, objective: 'fine-tune the model', createdAt: T0, machine: initialSnapshot(campaignId) }),
  ...overrides,
});

/** The snapshot's context (where v2 keeps attempts, lease, question, read failures). */
export const contextOf = (doc: CampaignDocument): CampaignContext => (doc.machine.snapshot as { context: CampaignContext }).context;

/** The same document with its snapshot's context patched. */
export const withContext = (doc: CampaignDocument, patch: Partial<CampaignContext>): CampaignDocument => {
  const snapshot = doc.machine.snapshot as { context: CampaignContext };
  return { ...doc, machine: { ...doc.machine, snapshot: { ...snapshot, context: { ...snapshot.context, ...patch } } } };
};

export const intentDraft = (requestId: string, action: 'submit' | 'renew' | 'cancel' = 'submit') => ({
  requestId,
  action,
  epoch: 3,
  payloadDigest: digestPayload({ requestId, action }),
  createdAt: T0,
});
