/**
 * Campaign ids become file names, so they are checked before any path is built: a safe
 * charset, bounded length, and no leading dot (temp files and `.`/`..` start with one).
 * @module
 */

const CAMPAIGN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export const isValidCampaignId = (id: unknown): id is string => typeof id === 'string' && CAMPAIGN_ID.test(id);

/** Document file name for a campaign id, and its inverse for directory listings. */
export const documentFileName = (id: string): string => `${id}.json`;

export function campaignIdFromFileName(name: string): string | null {
  if (!name.endsWith('.json')) return null;
  const id = name.slice(0, -'.json'.length);
  return isValidCampaignId(id) ? id : null;
}
