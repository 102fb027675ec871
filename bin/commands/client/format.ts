/**
 * What the CLI client prints for people: aligned tables and short key/value blocks. Remote text
 * (a question, a stage name) is data, and a terminal interprets control characters, so every
 * cell has them replaced and is bounded before it is printed.
 * @module
 */

type View = Record<string, any>;

/** One line, no control characters (ANSI escapes, carriage returns), at most `max` characters. */
export function cell(value: unknown, max = 60): string {
  if (value === null || value === undefined || value === '') return '-';
  const text = String(value).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Whole output, last line of defence: every control character but newline and tab becomes a
 * space. Cells are already clean; this catches what is not a cell (a health field, an error line).
 */
export function terminalSafe(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but leaves DEL, C1 (U+009B is a CSI)
 * and the line separators raw. They only occur inside strings, so escaping them keeps the value.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Colours a cell's text (already padded to its column): `column` is its index. */
export type Paint = (column: number, text: string) => string;

export function table(headers: string[], rows: string[][], paint?: Paint): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  // Widths are measured on the plain text; colour wraps the padded cell, so columns stay aligned.
  const line = (r: string[], colour: boolean) =>
    r
      .map((c, i) => {
        const padded = i === r.length - 1 ? c : c.padEnd(widths[i]!);
        return colour && paint ? paint(i, padded) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(headers, false), ...rows.map((r) => line(r, true))].join('\n');
}

/** `controller-id e3 until 09:14:20Z`, or `-` for an observer. */
export function lease(c: View, controllerId: string | null): string {
  if (c.lease?.mode !== 'controller') return '-';
  const until = typeof c.lease.expires_at === 'string' ? ` until ${c.lease.expires_at.replace(/\.\d+Z$/, 'Z')}` : '';
  return `${controllerId ?? 'this supervisor'} e${c.lease.epoch ?? '?'}${until}`;
}

export function pending(c: View): string {
  if (c.pending_question) return `question (${c.pending_question.source}): ${c.pending_question.text}`;
  if (c.open_intent) return `intent in doubt: ${c.open_intent.action}`;
  return '-';
}

export const CAMPAIGN_HEADERS = ['CAMPAIGN', 'STATE', 'ATTENTION', 'HEALTH', 'STAGE', 'LEASE', 'PENDING'];
/** The default table fits 80 columns (18+16+15+8+8+5 and five gaps of 2 = 80); `--wide` has the rest. */
export const NARROW_HEADERS = ['CAMPAIGN', 'STATE', 'ATTENTION', 'HEALTH', 'STAGE', 'LEASE'];
export const TERMINAL_WIDTH = 80;

export interface TableStyle {
  /** Every column (holder and expiry of the lease, the pending question), however wide. */
  wide?: boolean | undefined;
  /** ANSI colour for state and attention (a terminal only; the word is always there too). */
  colour?: boolean | undefined;
}

const stageText = (c: View): string | null => (c.remote?.stage ? `${c.remote.stage}${c.remote.attempt ? ` #${c.remote.attempt}` : ''}` : null);

export function campaignRow(c: View, controllerId: string | null): string[] {
  const state = c.paused && c.state !== 'paused' ? `${c.state} (paused)` : c.state;
  return [cell(c.campaign_id, 128), cell(state, 20), cell(c.attention, 16), cell(c.health, 8), cell(stageText(c), 24), cell(lease(c, controllerId), 48), cell(pending(c), 60)];
}

/** The 80-column row: the lease as its epoch only (`e3`), no pending text (see `campaigns get`). */
export function narrowRow(c: View): string[] {
  const epoch = c.lease?.mode === 'controller' ? `e${c.lease.epoch ?? '?'}` : '-';
  return [cell(c.campaign_id, 18), cell(c.state, 16), cell(c.attention, 15), cell(c.health, 8), cell(stageText(c), 8), cell(epoch, 5)];
}

const SGR = { red: '\u001b[31;1m', yellow: '\u001b[33m', green: '\u001b[32m', dim: '\u001b[2m', reset: '\u001b[0m' };
const STATE_COLOUR: Record<string, keyof typeof SGR> = { controlling: 'green', 'control-lost': 'red', 'ambiguous-intent': 'red', corrupt: 'red', paused: 'dim', closed: 'dim' };
const ATTENTION_COLOUR: Record<string, keyof typeof SGR> = { 'needs-you': 'red', 'awaiting-review': 'yellow', assessing: 'yellow' };
const HEALTH_COLOUR: Record<string, keyof typeof SGR> = { failed: 'red', critical: 'red', degraded: 'yellow', ok: 'green', done: 'dim' };
const COLUMN_COLOURS = [undefined, STATE_COLOUR, ATTENTION_COLOUR, HEALTH_COLOUR];

/** Colours the state (column 1), attention (column 2) and health (column 3) by their word, which stays. */
export const paintCampaign: Paint = (column, text) => {
  const word = text.trim().split(' ')[0] ?? '';
  const colour = COLUMN_COLOURS[column]?.[word];
  return colour ? `${SGR[colour]}${text}${SGR.reset}` : text;
};

export function campaignsTable(campaigns: View[], controllerId: string | null, style: TableStyle = {}): string {
  if (campaigns.length === 0) return 'No campaigns.';
  const paint = style.colour ? paintCampaign : undefined;
  if (style.wide) return table(CAMPAIGN_HEADERS, campaigns.map((c) => campaignRow(c, controllerId)), paint);
  return table(NARROW_HEADERS, campaigns.map(narrowRow), paint);
}

/** The leaves of the active chart states: `authority.controlling.ready` of `campaign.active.authority.controlling.ready`. */
export function leafStates(active: string[]): string[] {
  return active.filter((id) => !active.some((other) => other !== id && other.startsWith(`${id}.`))).map((id) => id.replace(/^campaign\.(active\.)?/, ''));
}

export function campaignDetail(c: View, events: View[], active: string[], controllerId: string | null): string {
  const rows: [string, unknown][] = [
    ['campaign', c.campaign_id],
    ['objective', cell(c.objective, 200)],
    ['state', c.paused ? `${c.state} (paused)` : c.state],
    ['attention', c.attention],
    ['health', `${cell(c.health)}  read failures ${c.consecutive_read_failures ?? 0}`],
    ['last error', c.last_error ? `${cell(c.last_error.code, 40)}: ${cell(c.last_error.sentence, 200)}${c.last_error.at ? ` at ${cell(c.last_error.at)}` : ''}` : null],
    ['remote says', c.remote?.status_message ? `(untrusted) ${cell(c.remote.status_message, 300)}` : null],
    ['remote', `task ${cell(c.remote?.task_id)}  context ${cell(c.remote?.context_id)}  ${cell(c.remote?.state)}  stage ${cell(c.remote?.stage)}  attempt ${cell(c.remote?.attempt)}`],
    ['last read', c.remote?.last_read_at],
    ['last change', c.remote?.observed_at],
    ['lease', lease(c, controllerId)],
    ['pending', cell(pending(c), 300)],
    ['question key', c.pending_question?.key],
    ['attempts', `${c.attempts_submitted ?? 0} of ${c.max_attempts ?? '?'}`],
    ['decision', c.decisions?.last ? `${c.decisions.last.outcome}${c.decisions.last.code ? ` (${c.decisions.last.code})` : ''} at ${c.decisions.last.at}` : null],
    ['verdict', c.decisions?.reviewer_verdict],
    ['allowed', (c.allowed_actions ?? []).join(', ')],
    ['chart', leafStates(active).join(', ')],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const block = rows.map(([k, v]) => `${k.padEnd(width)}  ${cell(v, 300)}`).join('\n');
  const recent = events.slice(-10).map((e) => `  ${cell(e.at)}  ${cell(e.kind, 20)}  ${cell(e.summary, 120)}`);
  return recent.length ? `${block}\n\nrecent events:\n${recent.join('\n')}` : block;
}

export function eventLine(e: View): string {
  return `${cell(e.at)}  ${cell(e.campaign_id, 40)}  ${cell(e.kind, 20)}  ${cell(e.summary, 120)}`;
}
