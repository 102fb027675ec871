/**
 * The `history` answer of the `campaigns` route (and `GET …/history`): a campaign's state changes
 * as the document holds them, in the API's own words (`state` is the authority, as in the view),
 * and how long the campaign has been in its current state.
 * @module
 */
import type { CampaignDocument } from '../../persistence/campaign-document.js';
import type { HistoryEntry } from '../../persistence/state-history.js';
import type { CampaignSummary } from './read-model.js';

export interface StatePairView {
  state: string;
  attention: string;
}

export interface HistoryEntryView {
  at: string;
  from: StatePairView | null;
  to: StatePairView;
  cause: HistoryEntry['cause'];
  detail: string;
}

export interface HistoryView {
  campaign_id: string;
  created_at: string;
  /**
   * The live state (as the view shows it) and since when: the last entry's time when that entry
   * entered it; null when no entry says (a document from before the history, or a lease that
   * lapsed after the last write).
   */
  current: StatePairView & { since: string | null };
  history: HistoryEntryView[];
}

const pair = (p: { authority: string; attention: string }): StatePairView => ({ state: p.authority, attention: p.attention });

export function historyView(doc: CampaignDocument, live: Pick<CampaignSummary, 'state' | 'attention'>): HistoryView {
  const history = (doc.history ?? []).map((e) => ({ at: e.at, from: e.from ? pair(e.from) : null, to: pair(e.to), cause: e.cause, detail: e.detail }));
  const last = history[history.length - 1];
  const since = last && last.to.state === live.state && last.to.attention === live.attention ? last.at : null;
  return { campaign_id: doc.campaignId, created_at: doc.createdAt, current: { state: live.state, attention: live.attention, since }, history };
}
