/**
 * The configured remote URL and the URLs derived from it. Credentials travel only in
 * headers, so a URL that could carry one is refused before any request is made.
 * @module
 */
import { err, ok, remoteError, type Result } from './errors.js';

/** Query parameter names that usually carry a credential. */
const TOKEN_LIKE_PARAM = /(token|key|secret|passw|auth|sig|cred|session)/i;

/** A validated base URL: origin plus a path without a trailing slash ('' for the root). */
export interface BaseUrl {
  readonly origin: string;
  readonly path: string;
}

const rejected = (sentence: string) => err(remoteError('remote_url_rejected', sentence, 'not_sent'));

/** Canonical UUIDs are identifiers (agent ids, tenants), not credentials, so they pass. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Prefixes of well-known credential formats (OpenAI-style `sk-`, GitHub `ghp_`, Slack `xoxb-`, GitLab `glpat-`). */
const KNOWN_TOKEN_PREFIX = /^(?:sk|pk|rk)[-_]|^gh[pousr]_|^github_pat_|^xox[abprs]-|^glpat-/i;

/**
 * A path segment that looks like a secret: a long hex string; a long run of token characters
 * in mixed case with digits (base64url-style keys); one with many digits and letters in no
 * word pattern (a lower-case key); or a well-known credential prefix. Words, versions, dated
 * names (`run-2024-11`) and UUIDs pass.
 */
function tokenShaped(segment: string): boolean {
  if (UUID.test(segment)) return false;
  if (/^[0-9a-f]{32,}$/i.test(segment)) return true;
  if (segment.length >= 16 && KNOWN_TOKEN_PREFIX.test(segment)) return true;
  if (segment.length < 20 || !/^[A-Za-z0-9_\-.~+=]+$/.test(segment)) return false;
  const digits = segment.replace(/[^0-9]/g, '').length;
  const letters = segment.replace(/[^A-Za-z]/g, '').length;
  // Many digits and letters with no word separators: a lower-case key, not a dated name.
  if (digits >= 6 && letters >= 6 && !/[-.~]/.test(segment)) return true;
  return segment.length >= 24 && /[a-z]/.test(segment) && /[A-Z]/.test(segment) && digits > 0;
}

/**
 * Why a URL could carry a credential, as one sentence, or null. The one predicate used both
 * at start-up (services/runtime/config.ts) and before the first request: credentials travel only in
 * headers, never in userinfo, a query, a fragment or a path segment.
 */
export function urlCredentialProblem(url: URL, raw: string, token?: string): string | null {
  if (token && token.length >= 4 && raw.includes(token)) {
    return 'the A2A base URL embeds the access token; pass it as OPENTRAINING_A2A_TOKEN instead';
  }
  if (url.username || url.password) return 'the A2A base URL must not contain user info; credentials travel only in headers';
  for (const name of url.searchParams.keys()) {
    if (TOKEN_LIKE_PARAM.test(name)) {
      return 'the A2A base URL carries a credential-like query parameter; credentials travel only in headers';
    }
  }
  if (url.search || raw.includes('?')) return 'the A2A base URL must not carry a query string';
  if (url.hash || raw.includes('#')) return 'the A2A base URL must not carry a fragment';
  // A matrix parameter (`;token=…`) is a query by another name.
  if (url.pathname.includes(';')) return 'the A2A base URL must not carry path parameters (;…)';
  // Decoded, then split again: `%2F` hides a segment boundary, `%3F`/`%23` a query or fragment.
  const segments = url.pathname
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .flatMap((segment) => segment.split('/'));
  if (segments.some((segment) => /[?#;\s]/.test(segment))) {
    return 'the A2A base URL hides a query, fragment, parameter or space in its path; credentials travel only in headers';
  }
  if (segments.some((segment) => /^(?:bearer|basic)$/i.test(segment))) {
    return 'the A2A base URL names an authorization scheme in its path; credentials travel only in headers';
  }
  // Agent Zero's proxy accepts `/t-<token>/` path segments; a credential never travels in a path.
  if (segments.some((segment) => /^t-./i.test(segment))) {
    return 'the A2A base URL carries a path token (/t-…/); credentials travel only in headers';
  }
  if (segments.some(tokenShaped)) return 'the A2A base URL carries a token-shaped path segment; credentials travel only in headers';
  return null;
}

/**
 * Validates the operator's base URL. Never echoes the URL back: a rejected URL may hold a secret.
 * @example parseBaseUrl('http://127.0.0.1:8080/a2a') // ok({origin: 'http://127.0.0.1:8080', path: '/a2a'})
 */
export function parseBaseUrl(raw: string, token?: string): Result<BaseUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return rejected('the A2A base URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return rejected('the A2A base URL must use http or https');
  }
  const problem = urlCredentialProblem(url, raw, token);
  if (problem) return rejected(problem);
  return ok({ origin: url.origin, path: url.pathname.replace(/\/+$/, '') });
}

/** Agent-card locations in the order tried: under the base path first, then at the origin root. */
export function cardCandidates(base: BaseUrl): string[] {
  const names = ['/.well-known/agent-card.json', '/.well-known/agent.json'];
  const underBase = names.map((name) => `${base.path}${name}`);
  return base.path === '' ? underBase : [...underBase, ...names];
}

/** The canonical trailing-slash mount root, where a card that names no endpoint is served. */
export const mountRoot = (base: BaseUrl): string => `${base.path}/`;

/**
 * Chooses the JSON-RPC path on the operator's origin from the URL the card advertises.
 * A card URL on another origin is only a path hint: credentials never travel to a host the
 * operator did not configure (cards often name `localhost` behind a proxy). A URL equal to
 * the mount root gets its trailing slash, which frameworks that mount sub-apps require.
 */
export function resolveRpcPath(base: BaseUrl, advertised: string | undefined): string {
  if (!advertised) return mountRoot(base);
  let url: URL;
  try {
    url = new URL(advertised, `${base.origin}${mountRoot(base)}`);
  } catch {
    return mountRoot(base);
  }
  if (url.username || url.password || url.search) return mountRoot(base);
  const path = url.pathname;
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === base.path) return mountRoot(base);
  if (url.origin === base.origin) return path;
  return trimmed.startsWith(`${base.path}/`) ? path : mountRoot(base);
}
