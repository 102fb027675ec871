/**
 * `campaigns list --state/--attention/--health/--limit`: the filters, applied by the client to the list
 * the API answers (the API lists every campaign). A value that names no state is a usage error
 * (exit 2), so a typo never reads as "no campaign matches".
 * @module
 */
import { usage } from './run.js';

/** The values the views carry (machines/campaign.projection.ts, plus `corrupt` for an unreadable file). */
export const STATES = ['observing', 'claiming', 'controlling', 'control-lost', 'ambiguous-intent', 'paused', 'closed', 'corrupt'] as const;
export const ATTENTIONS = ['idle', 'binding', 'assessing', 'awaiting-review', 'needs-you'] as const;
/** Worst first: the list's default order (services/api/campaign-health.ts). */
export const HEALTHS = ['failed', 'critical', 'degraded', 'ok', 'done'] as const;

export interface ListFilter {
  states: string[] | null;
  attentions: string[] | null;
  healths: string[] | null;
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

export function parseListFilter(opts: { state?: string; attention?: string; health?: string; limit?: string }): ListFilter {
  let limit: number | null = null;
  if (opts.limit !== undefined) {
    if (!/^\d+$/.test(opts.limit) || Number(opts.limit) < 1 || !Number.isSafeInteger(Number(opts.limit))) usage('--limit must be a whole number of at least 1');
    limit = Number(opts.limit);
  }
  return {
    states: parseChoices('--state', opts.state, STATES),
    attentions: parseChoices('--attention', opts.attention, ATTENTIONS),
    healths: parseChoices('--health', opts.health, HEALTHS),
    limit,
  };
}

type View = Record<string, any>;

const healthRank = (c: View): number => {
  const rank = (HEALTHS as readonly string[]).indexOf(String(c.health));
  return rank === -1 ? HEALTHS.indexOf('ok') : rank;
};

/** The campaigns that pass the filter, worst health first, then by id (before the limit: `shown` is after it). */
export function applyListFilter(campaigns: View[], filter: ListFilter): { shown: View[]; matched: number } {
  const passes = (values: string[] | null, value: unknown) => values === null || values.includes(String(value));
  const kept = campaigns
    .filter((c) => passes(filter.states, c.state) && passes(filter.attentions, c.attention) && passes(filter.healths, c.health))
    .sort((a, b) => healthRank(a) - healthRank(b) || (String(a.campaign_id) < String(b.campaign_id) ? -1 : String(a.campaign_id) > String(b.campaign_id) ? 1 : 0));
  return { shown: filter.limit === null ? kept : kept.slice(0, filter.limit), matched: kept.length };
}

/** "3 of 12 matching campaigns shown" when the limit left some out, else null. */
export function limitNote(shown: number, matched: number): string | null {
  return shown < matched ? `${shown} of ${matched} matching campaigns shown (--limit).` : null;
}
