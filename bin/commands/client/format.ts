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

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
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

export const CAMPAIGN_HEADERS = ['CAMPAIGN', 'STATE', 'ATTENTION', 'STAGE', 'LEASE', 'PENDING'];

export function campaignRow(c: View, controllerId: string | null): string[] {
  const state = c.paused && c.state !== 'paused' ? `${c.state} (paused)` : c.state;
  const stage = c.remote?.stage ? `${c.remote.stage}${c.remote.attempt ? ` #${c.remote.attempt}` : ''}` : null;
  return [cell(c.campaign_id, 40), cell(state, 20), cell(c.attention, 16), cell(stage, 24), cell(lease(c, controllerId), 48), cell(pending(c), 60)];
}

export function campaignsTable(campaigns: View[], controllerId: string | null): string {
  if (campaigns.length === 0) return 'No campaigns.';
  return table(CAMPAIGN_HEADERS, campaigns.map((c) => campaignRow(c, controllerId)));
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
