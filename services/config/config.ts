/**
 * Configuration from the environment, validated once at start-up with zod. A bad value
 * fails with one line per problem, each with a stable code (`code: sentence`), and never
 * echoes a value back. Weak settings are refused here, not discovered later: a short or
 * blank API key, no key on a network address, ENABLED with no URL, a URL that could carry a
 * credential. Names follow the original plugin (docs/configuration.md lists them all).
 * @module
 */
import { isIP } from 'node:net';
import { resolve, relative, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { urlCredentialProblem } from '../../adapters/a2a/base-url.js';
import { BACKEND_VARIABLES } from '../../adapters/argus/argus-env.js';

/** Values that turn a flag on; `0 false no off ''` (or unset) turn it off; anything else is refused. */
export const FLAG_ON_VALUES = ['1', 'true', 'yes', 'on'] as const;
const FLAG_OFF_VALUES = ['0', 'false', 'no', 'off', ''] as const;
const flag = z
  .enum([...FLAG_ON_VALUES, ...FLAG_OFF_VALUES], { message: `must be one of ${FLAG_ON_VALUES.join(', ')} (on) or ${FLAG_OFF_VALUES.slice(0, -1).join(', ')} (off)` })
  .default('0')
  .transform((v) => (FLAG_ON_VALUES as readonly string[]).includes(v));

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Shortest API key accepted: 16 characters is 96 bits of base64, out of reach of guessing online. */
export const MIN_API_KEY_LENGTH = 16;

const boundedInt = (name: string, min: number, max: number, dflt: number) =>
  z
    .string()
    .default(String(dflt))
    .transform((v, ctx) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const envSchema = z.object({
  ARGUS_SUPERVISOR_ENABLED: flag,
  OPENTRAINING_A2A_URL: z.string().optional(),
  OPENTRAINING_A2A_TOKEN: z.string().optional(),
  // A path, read once by `serve` at start (services/runtime/credential-files.ts): the token never in an environment.
  OPENTRAINING_A2A_TOKEN_FILE: z.string().optional(),
  OPENTRAINING_A2A_PROJECT: z.string().max(200).optional(),
  ARGUS_SUPERVISOR_CONTROLLER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'ARGUS_SUPERVISOR_CONTROLLER_ID may use letters, digits and . _ : - (1-128)')
    .default('argus-openoperator'),
  ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: boundedInt('ARGUS_SUPERVISOR_HEARTBEAT_SECONDS', 60, 86_400, 120),
  ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: boundedInt('ARGUS_SUPERVISOR_LEASE_TTL_SECONDS', 60, 3600, 600),
  // The overall deadline of one remote call (connect + headers + body).
  ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS: boundedInt('ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS', 1, 300, 30),
  ARGUS_SUPERVISOR_STATE_ROOT: z.string().min(1).default('./.argus-supervisor'),
  ARGUS_SUPERVISOR_ARGUS_HOME: z.string().optional(),
  ARGUS_SUPERVISOR_ARGUS_PYTHON: z.string().optional(),
  ARGUS_SUPERVISOR_BACKEND: z.string().optional(),
  // The decision budget bounds one Argus call (child start included); the mission deadline
  // bounds how long a dispatched mission may take to settle, checked on heartbeat ticks.
  ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: boundedInt('ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS', 10, 1800, 120),
  ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: boundedInt('ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS', 60, 86_400, 1800),
  ARGUS_SUPERVISOR_FOREMAN_ENABLED: flag,
  ARGUS_SUPERVISOR_FOREMAN_PYTHON: z.string().optional(),
  ARGUS_SUPERVISOR_API_KEY: z.string().optional(),
  ARGUS_SUPERVISOR_API_KEY_FILE: z.string().optional(),
  ARGUS_SUPERVISOR_SOCKET: z.string().optional(),
  // The page session's idle lifetime (sliding); the absolute 12 h bound stays (server/page/sessions.ts).
  ARGUS_SUPERVISOR_SESSION_TTL_SECONDS: boundedInt('ARGUS_SUPERVISOR_SESSION_TTL_SECONDS', 60, 43_200, 1800),
  // The Host names a non-loopback listener answers (server/allowed-hosts.ts): `name` or `name:port`.
  ARGUS_SUPERVISOR_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const entries = v.trim() === '' ? [] : v.split(',').map((e) => e.trim().toLowerCase());
      const entry = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;
      if (entries.some((e) => !entry.test(e) || Number(entry.exec(e)![2] ?? 0) > 65_535)) {
        ctx.addIssue({ code: 'custom', message: 'ARGUS_SUPERVISOR_ALLOWED_HOSTS must be a comma-separated list of host names or addresses, each with an optional :port' });
        return z.NEVER;
      }
      return entries;
    }),
  PORT: boundedInt('PORT', 0, 65_535, 7860),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
});

/** Where the API key came from, for diagnostics that never reveal it. */
export type TokenSource = 'deployment_secret' | 'generated_local' | 'missing';

export interface SupervisorConfig {
  enabled: boolean;
  a2aUrl: string | null;
  /** Secret. Never logged, never returned, never passed to a child process. */
  a2aToken: string | null;
  project: string | null;
  controllerId: string;
  heartbeatSeconds: number;
  leaseTtlSeconds: number;
  /** One remote call's overall deadline (connect + headers + body), seconds. */
  remoteDeadlineSeconds: number;
  stateRoot: string;
  argusHome: string;
  argusPython: string | null;
  /** `ARGUS_SUPERVISOR_BACKEND`: one of Argus's runner backends, or null (no model decisions). */
  backend: string | null;
  /** One Argus call's budget (`argus_message` included), seconds. */
  decisionBudgetSeconds: number;
  /** How long a dispatched Argus mission may take to settle before NEEDS_YOU, seconds. */
  missionDeadlineSeconds: number;
  foremanEnabled: boolean;
  foremanPython: string | null;
  /** Paths `serve` reads the token / the key from at start (not secrets themselves); null when unset. */
  a2aTokenFile: string | null;
  apiKeyFile: string | null;
  /** Secret. */
  apiKey: string | null;
  apiKeySource: TokenSource;
  listen: { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };
  /** Idle lifetime of an operator-page session, seconds. */
  sessionTtlSeconds: number;
  /** Host names (`name` or `name:port`, lower case) a non-loopback listener answers besides the loopback ones. */
  allowedHosts: string[];
  logLevel: (typeof LOG_LEVELS)[number];
}

/** Stable codes of start-up configuration problems (docs/configuration.md). */
export type ConfigProblemCode =
  | 'config_invalid'
  | 'log_level_invalid'
  | 'api_key_weak'
  | 'api_key_required'
  | 'a2a_url_required'
  | 'a2a_url_invalid'
  | 'a2a_url_credential'
  | 'secret_source_conflict';

export interface ConfigProblem {
  code: ConfigProblemCode;
  /** One sentence that names the variable and never contains its value. */
  message: string;
}

export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(readonly issues: ConfigProblem[]) {
    super(issues.map((i) => i.message).join('\n'));
  }
  /** The sentences alone. */
  get problems(): string[] {
    return this.issues.map((i) => i.message);
  }
  /** One `code: sentence` line per problem, as `serve` prints them. */
  lines(): string[] {
    return this.issues.map((i) => `${i.code}: ${i.message}`);
  }
}

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback']);

/** True for 127.0.0.0/8, ::1 and the loopback names: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * A key short enough to guess, or one no client can send: HTTP header values are bytes, so only
 * printable ASCII without spaces survives every client (no whitespace, control, format or
 * non-ASCII character).
 */
export function apiKeyWeak(key: string): boolean {
  return key.length < MIN_API_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key);
}

export function a2aUrlProblem(raw: string, token: string | undefined): ConfigProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'a2a_url_invalid', message: 'OPENTRAINING_A2A_URL is not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { code: 'a2a_url_invalid', message: 'OPENTRAINING_A2A_URL must be http(s)' };
  // The same predicate the client applies before its first request, here at start-up.
  if (urlCredentialProblem(url, raw, token || undefined)) {
    return { code: 'a2a_url_credential', message: 'OPENTRAINING_A2A_URL must not embed a credential (use OPENTRAINING_A2A_TOKEN)' };
  }
  return null;
}

/**
 * Parses and validates the environment. Throws ConfigError with every problem at once, one
 * coded line each; no line contains a value from the environment.
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: NodeJS.ProcessEnv): SupervisorConfig {
  let parsed = envSchema.safeParse(env);
  const problems: ConfigProblem[] = [];
  if (!parsed.success) {
    const bad = new Set<string>();
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? 'environment');
      bad.add(key);
      const message = issue.message.startsWith(key) ? issue.message : `${key}: ${issue.message}`;
      problems.push({ code: key === 'LOG_LEVEL' ? 'log_level_invalid' : 'config_invalid', message });
    }
    // Check the rest with the bad values left out, so every problem is reported at once.
    parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([k]) => !bad.has(k))));
    if (!parsed.success) throw new ConfigError(problems);
  }
  const e = parsed.data;
  const stateRoot = resolve(e.ARGUS_SUPERVISOR_STATE_ROOT);
  const argusHome = resolve(e.ARGUS_SUPERVISOR_ARGUS_HOME ?? join(stateRoot, 'argus-home'));
  const rel = relative(stateRoot, argusHome);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    problems.push({ code: 'config_invalid', message: 'ARGUS_SUPERVISOR_ARGUS_HOME must be a folder under ARGUS_SUPERVISOR_STATE_ROOT' });
  }
  // Renewal rides on the heartbeat: a lease shorter than two beats would lapse between them.
  if (e.ARGUS_SUPERVISOR_LEASE_TTL_SECONDS < 2 * e.ARGUS_SUPERVISOR_HEARTBEAT_SECONDS) {
    problems.push({
      code: 'config_invalid',
      message: 'ARGUS_SUPERVISOR_LEASE_TTL_SECONDS must be at least twice ARGUS_SUPERVISOR_HEARTBEAT_SECONDS so the heartbeat can renew it',
    });
  }
  // A read still in flight at the next beat skips that beat's read: the deadline ends it first.
  if (e.ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS >= e.ARGUS_SUPERVISOR_HEARTBEAT_SECONDS) {
    problems.push({
      code: 'config_invalid',
      message: 'ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS must be shorter than ARGUS_SUPERVISOR_HEARTBEAT_SECONDS',
    });
  }
  // Never inferred, and never a name Argus does not know: a typo would otherwise surface only
  // at the first decision, as an Argus start failure.
  const backend = e.ARGUS_SUPERVISOR_BACKEND ?? '';
  if (backend !== '' && !Object.hasOwn(BACKEND_VARIABLES, backend)) {
    problems.push({ code: 'config_invalid', message: `ARGUS_SUPERVISOR_BACKEND must be one of ${Object.keys(BACKEND_VARIABLES).join(', ')}` });
  }
  // A mission cannot settle before the turn that dispatched it has had its budget.
  if (e.ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS < e.ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS) {
    problems.push({
      code: 'config_invalid',
      message: 'ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS must be at least ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS',
    });
  }
  const url = e.OPENTRAINING_A2A_URL ?? '';
  if (url !== '') {
    const problem = a2aUrlProblem(url, e.OPENTRAINING_A2A_TOKEN);
    if (problem) problems.push(problem);
  } else if (e.ARGUS_SUPERVISOR_ENABLED) {
    problems.push({ code: 'a2a_url_required', message: 'ARGUS_SUPERVISOR_ENABLED is on but OPENTRAINING_A2A_URL is not set' });
  }
  // A value and a file for the same secret: which one wins would be a guess, so neither does.
  const secrets = [['OPENTRAINING_A2A_TOKEN', e.OPENTRAINING_A2A_TOKEN, e.OPENTRAINING_A2A_TOKEN_FILE], ['ARGUS_SUPERVISOR_API_KEY', e.ARGUS_SUPERVISOR_API_KEY, e.ARGUS_SUPERVISOR_API_KEY_FILE]] as const;
  for (const [name, value, file] of secrets) if (value && file) problems.push({ code: 'secret_source_conflict', message: `${name} and ${name}_FILE are both set; set one` });
  const key = e.ARGUS_SUPERVISOR_API_KEY;
  if (key !== undefined && key !== '' && apiKeyWeak(key)) {
    problems.push({
      code: 'api_key_weak',
      message: `ARGUS_SUPERVISOR_API_KEY must be at least ${MIN_API_KEY_LENGTH} printable ASCII characters with no whitespace`,
    });
  } else if ((key === undefined || key === '') && !e.ARGUS_SUPERVISOR_API_KEY_FILE && !e.ARGUS_SUPERVISOR_SOCKET && !isLoopbackHost(e.HOST)) {
    problems.push({ code: 'api_key_required', message: 'ARGUS_SUPERVISOR_API_KEY is required when HOST is not a loopback address' });
  }
  if (problems.length) throw new ConfigError(problems);
  const blank = (v: string | undefined) => (v === undefined || v === '' ? null : v);
  const apiKey = blank(e.ARGUS_SUPERVISOR_API_KEY);
  return {
    enabled: e.ARGUS_SUPERVISOR_ENABLED,
    a2aUrl: blank(e.OPENTRAINING_A2A_URL),
    a2aToken: blank(e.OPENTRAINING_A2A_TOKEN),
    project: blank(e.OPENTRAINING_A2A_PROJECT),
    controllerId: e.ARGUS_SUPERVISOR_CONTROLLER_ID,
    heartbeatSeconds: e.ARGUS_SUPERVISOR_HEARTBEAT_SECONDS,
    leaseTtlSeconds: e.ARGUS_SUPERVISOR_LEASE_TTL_SECONDS,
    remoteDeadlineSeconds: e.ARGUS_SUPERVISOR_REMOTE_DEADLINE_SECONDS,
    stateRoot,
    argusHome,
    argusPython: blank(e.ARGUS_SUPERVISOR_ARGUS_PYTHON),
    backend: blank(e.ARGUS_SUPERVISOR_BACKEND),
    decisionBudgetSeconds: e.ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS,
    missionDeadlineSeconds: e.ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS,
    foremanEnabled: e.ARGUS_SUPERVISOR_FOREMAN_ENABLED,
    foremanPython: blank(e.ARGUS_SUPERVISOR_FOREMAN_PYTHON),
    a2aTokenFile: blank(e.OPENTRAINING_A2A_TOKEN_FILE),
    apiKeyFile: blank(e.ARGUS_SUPERVISOR_API_KEY_FILE),
    apiKey,
    apiKeySource: apiKey ? 'deployment_secret' : 'missing',
    listen: e.ARGUS_SUPERVISOR_SOCKET
      ? { kind: 'unix', path: e.ARGUS_SUPERVISOR_SOCKET }
      : { kind: 'tcp', host: e.HOST, port: e.PORT },
    sessionTtlSeconds: e.ARGUS_SUPERVISOR_SESSION_TTL_SECONDS,
    allowedHosts: e.ARGUS_SUPERVISOR_ALLOWED_HOSTS,
    logLevel: e.LOG_LEVEL,
  };
}
