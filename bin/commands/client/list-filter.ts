/**
 * `campaigns list --state/--attention/--limit`: the filters, applied by the client to the list
 * the API answers (the API lists every campaign). A value that names no state is a usage error
 * (exit 2), so a typo never reads as "no campaign matches".
 * @module
 */
import { usage } from './run.js';

/** The values the views carry (machines/campaign.projection.ts, plus `corrupt` for an unreadable file). */
export const STATES = ['observing', 'claiming', 'controlling', 'control-lost', 'ambiguous-intent', 'paused', 'closed', 'corrupt'] as const;
export const ATTENTIONS = ['idle', 'binding', 'assessing', 'awaiting-review', 'needs-you'] as const;

export interface ListFilter {
  states: string[] | null;
  attentions: string[] | null;
  limit: number | null;
}

/** `a,b` → ['a', 'b'], each checked against `known`. */
export function parseChoices(flag: string, raw: string | undefined, known: readonly string[]): string[] | null {
  if (raw === undefined) return null;
  const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) usage(`${flag} needs a value: one or more of ${known.join(', ')}, comma-separated`);
  const unknown = values.find((v) => !known.includes(v));
  if (unknown !== undefined) usage(`${flag} ${unknown.slice(0, 40)} is not one of ${known.join(', ')}`);
  return values;
}

export function parseListFilter(opts: { state?: string; attention?: string; limit?: string }): ListFilter {
  let limit: number | null = null;
  if (opts.limit !== undefined) {
    if (!/^\d+$/.test(opts.limit) || Number(opts.limit) < 1 || !Number.isSafeInteger(Number(opts.limit))) usage('--limit must be a whole number of at least 1');
    limit = Number(opts.limit);
  }
  return { states: parseChoices('--state', opts.state, STATES), attentions: parseChoices('--attention', opts.attention, ATTENTIONS), limit };
}

type View = Record<string, any>;

/** The campaigns that pass the filter, by id (before the limit: `shown` is after it). */
export function applyListFilter(campaigns: View[], filter: ListFilter): { shown: View[]; matched: number } {
  const kept = campaigns
    .filter((c) => (filter.states === null || filter.states.includes(String(c.state))) && (filter.attentions === null || filter.attentions.includes(String(c.attention))))
    .sort((a, b) => (String(a.campaign_id) < String(b.campaign_id) ? -1 : String(a.campaign_id) > String(b.campaign_id) ? 1 : 0));
  return { shown: filter.limit === null ? kept : kept.slice(0, filter.limit), matched: kept.length };
}

/** "3 of 12 matching campaigns shown" when the limit left some out, else null. */
export function limitNote(shown: number, matched: number): string | null {
  return shown < matched ? `${shown} of ${matched} matching campaigns shown (--limit).` : null;
}
