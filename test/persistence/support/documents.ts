/** Document builders shared by the persistence tests. */
import { newCampaignDocument, type CampaignDocument } from '../../../persistence/campaign-document.js';
import { digestPayload } from '../../../persistence/payload-digest.js';

export const T0 = '2025-01-01T00:00:00.000Z';
export const at = (minutes: number): string => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

export const makeDoc = (campaignId = 'c1', overrides: Partial<CampaignDocument> = {}): CampaignDocument => ({
  ...newCampaignDocument({ campaignId, objective: 'fine-tune the model', createdAt: T0 }),
  ...overrides,
});

export const intentDraft = (requestId: string, action: 'submit' | 'renew' | 'cancel' = 'submit') => ({
  requestId,
  action,
  epoch: 3,
  payloadDigest: digestPayload({ requestId, action }),
  createdAt: T0,
});
