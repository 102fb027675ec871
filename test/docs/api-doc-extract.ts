/**
 * What docs/api.md must cover, read from the code itself, and the check that names what is
 * missing. Sources (each kept as close to the code as possible, so a new code cannot hide):
 *
 * - routes: every `.get/.post/.put/.patch/.delete/.all('…')` and `.route({method, url})` in
 *   server/*.ts (template constants such as `${API_PREFIX}` resolved from the same files),
 *   and, as a cross-check, the routes the real Fastify app registers (`printRoutes`);
 * - API error codes: the keys of `API_ERROR_STATUS` (services/contract/api-errors.ts, with their HTTP
 *   status); every string literal passed first to `apiError(` or `fail(` in services/,
 *   server/, bin/ and persistence/; every literal assigned to `code` in server/*.ts (the
 *   server's own 401/404/413/500 answers); the API code `refusalResult` gives for every machine
 *   refusal code; and what `remoteRefusalCode` maps each remote code to;
 * - machine refusal rules: `REFUSAL_CODES` (machines/campaign.refusals.ts);
 * - remote error codes that surface in answers: `REMOTE_ERROR_CODES` (adapters/a2a/errors.ts);
 * - authority states and attention values: the campaign machine's regions, plus the
 *   summary-only `corrupt`; actions: the discriminants of the zod body schemas.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REMOTE_ERROR_CODES } from '../../adapters/a2a/errors.js';
import { silentLogger } from '../../adapters/logger.js';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { REFUSAL_CODES } from '../../machines/campaign.rules.js';
import { createHttpServer } from '../../server/http-server.js';
import { API_ERROR_STATUS } from '../../services/contract/api-errors.js';
import { campaignActionSchema, campaignsBodySchema } from '../../services/api/api-schemas.js';
import { corruptSummary } from '../../services/api/campaign-projection.js';
import { createMetrics } from '../../services/metrics/metrics.js';
import { remoteRefusalCode } from '../../services/authority/mutation-wire.js';
import { createReadModel } from '../../services/api/read-model.js';
import { refusalResult } from '../../services/api/refusals.js';
import type { SupervisorApi } from '../../services/api/supervisor-api.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';

export interface Route {
  method: string;
  url: string;
}

const tsFiles = (dir: string): { file: string; text: string }[] =>
  (readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => ({ file: `${dir}/${f}`, text: readFileSync(path.join(REPO_ROOT, dir, f), 'utf8') }));

const literals = (text: string): string[] => [...text.matchAll(/['"`]([a-z][a-z0-9_]*)['"`]/g)].map((m) => m[1]!);

/** Route registrations found by reading server/*.ts. */
export function routesFromSource(): Route[] {
  const files = tsFiles('server');
  const constants = new Map<string, string>();
  for (const { text } of files) {
    for (const m of text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*(['"`])([^'"`$]*)\2/g)) constants.set(m[1]!, m[3]!);
  }
  const resolve = (url: string) => url.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name: string) => constants.get(name) ?? whole);
  const routes: Route[] = [];
  for (const { text } of files) {
    for (const m of text.matchAll(/\.(get|post|put|patch|delete|head|options|all)\(\s*(['"`])((?:\/|\$\{)[^'"`]*)\2/g)) {
      routes.push({ method: m[1]!.toUpperCase(), url: resolve(m[3]!) });
    }
    for (const m of text.matchAll(/\.route\(\s*\{([\s\S]*?)\}\s*\)/g)) {
      const body = m[1]!;
      const url = /\burl\s*:\s*(['"`])([^'"`]*)\1/.exec(body)?.[2];
      const methods = /\bmethod\s*:\s*([^,\n]+)/.exec(body)?.[1] ?? '';
      for (const method of methods.match(/[A-Za-z]+/g) ?? []) if (url) routes.push({ method: method.toUpperCase(), url: resolve(url) });
    }
  }
  return routes;
}

/** The routes the real app registers (HEAD, which Fastify adds to every GET, left out). */
export async function routesAtRuntime(): Promise<Route[]> {
  const unused = () => {
    throw new Error('not called while listing routes');
  };
  const supervisor: SupervisorApi = {
    readModel: createReadModel(),
    metrics: createMetrics({ defaultMetrics: false }),
    health: unused,
    status: unused,
    campaigns: unused,
    campaignAction: unused,
    activeStates: unused,
  };
  const app = createHttpServer({ supervisor, apiKey: null, logger: silentLogger() });
  await app.ready();
  const printed = app.printRoutes({ commonPrefix: false });
  await app.close();
  const routes: Route[] = [];
  // A tree: each node's text continues its parent's path (with a `GET /` route, the children of
  // `/` print without their leading slash), so the full path is rebuilt from the indentation.
  const stack: string[] = [];
  for (const line of printed.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const url = (stack[depth - 1] ?? '') + m[2]!;
    stack.push(url);
    for (const method of m[3]?.split(/,\s*/) ?? []) if (method !== 'HEAD') routes.push({ method, url });
  }
  return routes;
}

/** Every code the API can answer in `error.code`, with where it was found. */
export function apiErrorCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (code: string, source: string) => found.set(code, [...(found.get(code) ?? []), source]);
  for (const code of Object.keys(API_ERROR_STATUS)) add(code, 'API_ERROR_STATUS');
  for (const dir of ['services', 'server', 'bin', 'persistence']) {
    for (const { file, text } of tsFiles(dir)) {
      for (const m of text.matchAll(/\b(?:apiError|fail)\(\s*['"`]([a-z][a-z0-9_]*)['"`]/g)) add(m[1]!, file);
    }
  }
  for (const { file, text } of tsFiles('server')) {
    // A `code` inside a log call (`logger.warn({ code: … })`) names a log line, not an answer.
    const answers = text.split('\n').filter((line) => !/\blogger\.(?:trace|debug|info|warn|error|fatal)\(/.test(line)).join('\n');
    for (const m of answers.matchAll(/\bcode\s*[:=]\s*([^,;}]+)/g)) for (const code of literals(m[1]!)) add(code, file);
  }
  for (const rule of REFUSAL_CODES) {
    const result = refusalResult(rule);
    if (!result.ok) add(result.error.code, `refusalResult('${rule}')`);
  }
  for (const code of [...REMOTE_ERROR_CODES, undefined]) add(remoteRefusalCode(code), `remoteRefusalCode('${code}')`);
  return found;
}

/** Authority states a view can show (and the chart's own), and attention values. */
export function campaignStates(): { authority: string[]; attention: string[] } {
  const active = campaignMachine.root.states['active']!;
  const authority = Object.keys(active.states['authority']!.states);
  const topLevel = Object.keys(campaignMachine.root.states).filter((s) => s !== 'active');
  const attention = Object.values(active.states['attention']!.states)
    .filter((node) => node.type !== 'history')
    .map((node) => node.key);
  return { authority: [...authority, ...topLevel, corruptSummary('x').state], attention };
}

export function actionNames(): { campaigns: string[]; campaignAction: string[] } {
  const discriminants = (options: readonly { shape: { action: { value: unknown } } }[]) => options.map((o) => String(o.shape.action.value));
  return { campaigns: discriminants(campaignsBodySchema.options), campaignAction: discriminants(campaignActionSchema.options) };
}

export { API_ERROR_STATUS, REFUSAL_CODES, REMOTE_ERROR_CODES };
