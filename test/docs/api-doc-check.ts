/**
 * Compares docs/api.md with what the code says the API is, and returns one instruction per
 * gap, phrased as the exact edit that closes it. Pure: the test feeds it the real doc, and a
 * doc with a row removed to prove it can fail.
 * @module
 */
import type { Route } from './api-doc-extract.js';

export interface ApiFacts {
  routes: Route[];
  /** code → HTTP status when the status map has it, else null. */
  errorCodes: Map<string, number | null>;
  refusalRules: readonly string[];
  remoteCodes: readonly string[];
  authorityStates: string[];
  attentionValues: string[];
  campaignsActions: string[];
  campaignActions: string[];
}

/** `## Title` → the text up to the next `## `. */
export function sections(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of md.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    out.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return out;
}

/** First-column keys of the section's table rows (`| \`key\` | …`) with their second column. */
export function tableRows(body: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of body.matchAll(/^\|\s*`([^`]+)`\s*\|([^|\n]*)\|/gm)) rows.set(m[1]!, m[2]!.trim());
  return rows;
}

/** Returns [] when the doc covers everything, else one instruction per missing item. */
export function missingFromDoc(md: string, facts: ApiFacts): string[] {
  const doc = sections(md);
  const problems: string[] = [];
  const section = (title: string) => {
    const body = doc.get(title);
    if (body === undefined) problems.push(`Add a section "## ${title}" to docs/api.md.`);
    return body ?? '';
  };
  const routes = section('Routes');
  const headings = new Set([...routes.matchAll(/^### `([A-Z]+ [^`]+)`/gm)].map((m) => m[1]!));
  for (const { method, url } of facts.routes) {
    if (!headings.has(`${method} ${url}`)) {
      problems.push(`Add under "## Routes" a heading "### \`${method} ${url}\`" with its body fields and its answer.`);
    }
  }

  const errors = tableRows(section('Error codes'));
  for (const [code, status] of facts.errorCodes) {
    const documented = errors.get(code);
    const http = status === null ? '<HTTP status>' : String(status);
    if (documented === undefined) problems.push(`Add a row to the table under "## Error codes": | \`${code}\` | ${http} | <when it happens> |`);
    else if (status !== null && documented !== String(status)) {
      problems.push(`Change the HTTP column of \`${code}\` under "## Error codes" from ${documented} to ${status} (API_ERROR_STATUS in services/contract/api-errors.ts).`);
    }
  }

  const tables: [string, readonly string[], string][] = [
    ['Refusal rules', facts.refusalRules, '| `%` | <API code from services/api/refusals.ts> | <meaning> |'],
    ['Remote error codes', facts.remoteCodes, '| `%` | <meaning> |'],
    ['Authority states', facts.authorityStates, '| `%` | <what it means for an operator> |'],
    ['Attention values', facts.attentionValues, '| `%` | <what it means for an operator> |'],
    ['Actions', facts.campaignActions, '| `%` | <fields> | <allowed when> | <answer> |'],
  ];
  for (const [title, keys, row] of tables) {
    const rows = tableRows(section(title));
    for (const key of keys) if (!rows.has(key)) problems.push(`Add a row to the table under "## ${title}": ${row.replace('%', key)}`);
  }
  const campaignsRows = tableRows(routes);
  for (const action of facts.campaignsActions) {
    if (!campaignsRows.has(action)) problems.push(`Add a row to the campaigns action table under "## Routes": | \`${action}\` | <fields> | <answer> |`);
  }
  return [...new Set(problems)];
}
