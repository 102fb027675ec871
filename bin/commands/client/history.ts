/**
 * `argus-supervisor campaigns history <campaign>`: the campaign's state changes (authority and
 * attention, with when and why: operator, remote, lease, argus, supervisor), oldest first,
 * and how long it has been in its current state. The default table fits 80 columns; `--wide`
 * prints the detail whole; `--json` the API's answer as is.
 * @module
 */
import type { Command } from 'commander';
import { cell, table, TERMINAL_WIDTH } from './format.js';
import { clientCommand, connectionOptions, positiveInt, printJson, runClient, type OutputOptions } from './run.js';

type View = Record<string, any>;

export const HISTORY_HEADERS = ['AT', 'CAUSE', 'CHANGE', 'DETAIL'];

/** `45s`, `12m`, `3h 5m`, `2d 4h`: a duration as a person reads it. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** To the second, with its zone (`Z`): the table's times are UTC. */
const stamp = (at: unknown): string => (typeof at === 'string' ? at.replace(/\.\d+Z$/, 'Z') : '-');

/** What moved: the authority (`controlling → control-lost`), the attention, or both (`a → b; c → d`). */
export function changeText(e: View): string {
  if (!e.from) return `created ${e.to.state} · ${e.to.attention}`;
  const parts: string[] = [];
  if (e.from.state !== e.to.state) parts.push(`${e.from.state} → ${e.to.state}`);
  if (e.from.attention !== e.to.attention) parts.push(`${e.from.attention} → ${e.to.attention}`);
  return parts.join('; ');
}

/** The current state and the time in it, then one row per change, in 80 columns unless `wide`. */
export function historyText(answer: View, nowMs: number, wide: boolean): string {
  const c = answer.current ?? {};
  const since = c.since ? `${stamp(c.since)} (${duration(nowMs - Date.parse(c.since))} in this state)` : 'unknown (before its history was kept)';
  const head = [`campaign  ${cell(answer.campaign_id, wide ? 128 : 60)}`, `state     ${cell(c.state, 20)} · ${cell(c.attention, 16)}`, `since     ${since}`].join('\n');
  const entries = (answer.history ?? []) as View[];
  if (entries.length === 0) return `${head}\n\nNo state changes recorded.`;
  if (wide) return `${head}\n\n${table(HISTORY_HEADERS, entries.map((e) => [stamp(e.at), cell(e.cause, 10), cell(changeText(e), 80), cell(e.detail, 80)]))}`;
  const rows = entries.map((e) => [stamp(e.at), cell(e.cause, 10), cell(changeText(e), 28)]);
  // The detail gets what the other columns leave of 80 (at least 14: 20+10+28+14 and three gaps of 2 = 78).
  const used = 20 + 2 + Math.max(5, ...rows.map((r) => r[1]!.length)) + 2 + Math.max(6, ...rows.map((r) => r[2]!.length)) + 2;
  rows.forEach((r, i) => r.push(cell(entries[i]!.detail, Math.max(14, TERMINAL_WIDTH - used))));
  return `${head}\n\n${table(HISTORY_HEADERS, rows)}`;
}

export function registerHistory(campaigns: Command): void {
  connectionOptions(clientCommand(campaigns.command('history').description('One campaign’s state changes, oldest first, with time and cause, and the time in its current state.')))
    .argument('<campaign>', 'campaign id')
    .option('--limit <n>', 'only the newest n changes')
    .option('--wide', 'the change and detail whole, however wide the lines get')
    .option('--json', 'print the API answer as JSON (limited like the table)')
    .action((id: string, opts: OutputOptions & { limit?: string }) =>
      runClient(async (open) => {
        const limit = positiveInt('--limit', opts.limit, 1);
        const conn = await open();
        const answer = await conn.post('campaigns', { action: 'history', campaign_id: id });
        const history = (answer.history ?? []) as View[];
        const shown = { ...answer, history: limit === undefined ? history : history.slice(-limit) };
        if (opts.json) return printJson(shown);
        return historyText(shown, Date.now(), opts.wide === true);
      }, opts),
    );
}
