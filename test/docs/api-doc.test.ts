/**
 * docs/api.md covers the API the code serves: every route, every error code the API can
 * answer (with the status the server maps it to), every refusal rule, remote error code,
 * authority state, attention value and action. A failure lists the exact rows to add.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { missingFromDoc, sections, tableRows, type ApiFacts } from './api-doc-check.js';
import {
  API_ERROR_STATUS,
  REFUSAL_CODES,
  REMOTE_ERROR_CODES,
  actionNames,
  apiErrorCodes,
  campaignStates,
  routesAtRuntime,
  routesFromSource,
  type Route,
} from './api-doc-extract.js';

const API_MD = readFileSync(path.join(REPO_ROOT, 'docs/api.md'), 'utf8');
const key = (r: Route) => `${r.method} ${r.url}`;

let facts: ApiFacts;
let runtimeRoutes: Route[];

beforeAll(async () => {
  runtimeRoutes = await routesAtRuntime();
  const statuses = API_ERROR_STATUS as Record<string, number>;
  const { authority, attention } = campaignStates();
  const actions = actionNames();
  const routes = new Map([...routesFromSource(), ...runtimeRoutes].map((r) => [key(r), r]));
  facts = {
    routes: [...routes.values()],
    errorCodes: new Map([...apiErrorCodes().keys()].map((code) => [code, statuses[code] ?? null])),
    refusalRules: REFUSAL_CODES,
    remoteCodes: REMOTE_ERROR_CODES,
    authorityStates: authority,
    attentionValues: attention,
    campaignsActions: actions.campaigns,
    campaignActions: actions.campaignAction,
  };
});

describe('docs/api.md', () => {
  it('the extraction reads the real code (so an empty list cannot pass for coverage)', () => {
    // Reading server/*.ts finds exactly what Fastify registers: a registration the regex
    // cannot parse shows up here instead of silently escaping the doc check.
    expect(routesFromSource().map(key).sort()).toEqual(runtimeRoutes.map(key).sort());
    expect(runtimeRoutes.map(key)).toContain('POST /api/plugins/argus_supervisor/campaign_action');
    const codes = apiErrorCodes();
    // Codes that live outside the status map are found in the server's source.
    expect(codes.get('not_found')).toEqual(['server/http-server.ts']);
    expect(codes.get('request_too_large')).toEqual(['server/http-server.ts']);
    expect(codes.get('lease_required')).toEqual(expect.arrayContaining(['API_ERROR_STATUS', "refusalResult('lease_required')"]));
    expect(facts.authorityStates).toEqual(expect.arrayContaining(['observing', 'controlling', 'control-lost', 'ambiguous-intent', 'paused', 'closed', 'corrupt']));
    expect(facts.attentionValues.sort()).toEqual(['assessing', 'awaiting-review', 'binding', 'idle', 'needs-you']);
    expect(facts.campaignActions).toEqual(expect.arrayContaining(['observe', 'claim', 'submit', 'answer', 'mission', 'resolve_intent']));
  });

  it('documents every route, error code, refusal rule, remote code, state, attention value and action', () => {
    const problems = missingFromDoc(API_MD, facts);
    expect(problems, `docs/api.md is missing ${problems.length} item(s). Make these edits:\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('names exactly what to add when an error code or a route is missing (the check can fail)', () => {
    const errors = tableRows(sections(API_MD).get('Error codes')!);
    expect(errors.get('lease_stale_epoch')).toBe('409');
    const withoutRow = API_MD.replace(/^\| `lease_stale_epoch` \| 409 \|.*\n/m, '');
    expect(withoutRow).not.toBe(API_MD);
    expect(missingFromDoc(withoutRow, facts)).toEqual([
      'Add a row to the table under "## Error codes": | `lease_stale_epoch` | 409 | <when it happens> |',
    ]);

    const wrongStatus = API_MD.replace(/^\| `campaign_not_found` \| 404 \|/m, '| `campaign_not_found` | 400 |');
    expect(missingFromDoc(wrongStatus, facts)).toEqual([
      'Change the HTTP column of `campaign_not_found` under "## Error codes" from 400 to 404 (API_ERROR_STATUS in services/contract/api-errors.ts).',
    ]);

    const withoutRoute = API_MD.replace('### `GET /metrics`', '### metrics');
    expect(missingFromDoc(withoutRoute, facts)).toEqual([
      'Add under "## Routes" a heading "### `GET /metrics`" with its body fields and its answer.',
    ]);

    const withoutState = API_MD.replace(/^\| `control-lost` \|.*\n/m, '');
    expect(missingFromDoc(withoutState, facts)).toEqual([
      'Add a row to the table under "## Authority states": | `control-lost` | <what it means for an operator> |',
    ]);
  });
});
