/**
 * Configuration from the environment, validated once at start-up with zod. A bad value
 * fails with one clear line per problem and never echoes a secret back.
 * Names follow the original plugin (docs/configuration.md lists them all).
 * @module
 */
import { resolve, relative, isAbsolute, join } from 'node:path';
import { z } from 'zod';

const flag = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .default('0')
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

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
  OPENTRAINING_A2A_URL: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      if (v === undefined || v === '') return;
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'OPENTRAINING_A2A_URL is not a valid URL' });
        return;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        ctx.addIssue({ code: 'custom', message: 'OPENTRAINING_A2A_URL must be http(s)' });
      }
      // A token in the URL would travel into logs and proxies; the token has its own variable.
      if (url.username || url.password || url.search || /\/t-[^/]+/.test(url.pathname)) {
        ctx.addIssue({
          code: 'custom',
          message: 'OPENTRAINING_A2A_URL must not embed a credential (use OPENTRAINING_A2A_TOKEN)',
        });
      }
    }),
  OPENTRAINING_A2A_TOKEN: z.string().optional(),
  OPENTRAINING_A2A_PROJECT: z.string().max(200).optional(),
  ARGUS_SUPERVISOR_CONTROLLER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'ARGUS_SUPERVISOR_CONTROLLER_ID may use letters, digits and . _ : - (1-128)')
    .default('argus-openoperator'),
  ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: boundedInt('ARGUS_SUPERVISOR_HEARTBEAT_SECONDS', 60, 86_400, 120),
  ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: boundedInt('ARGUS_SUPERVISOR_LEASE_TTL_SECONDS', 60, 3600, 600),
  ARGUS_SUPERVISOR_STATE_ROOT: z.string().min(1).default('./.argus-supervisor'),
  ARGUS_SUPERVISOR_ARGUS_HOME: z.string().optional(),
  ARGUS_SUPERVISOR_ARGUS_PYTHON: z.string().optional(),
  ARGUS_SUPERVISOR_BACKEND: z.string().optional(),
  ARGUS_SUPERVISOR_FOREMAN_ENABLED: flag,
  ARGUS_SUPERVISOR_FOREMAN_PYTHON: z.string().optional(),
  ARGUS_SUPERVISOR_API_KEY: z.string().optional(),
  ARGUS_SUPERVISOR_SOCKET: z.string().optional(),
  PORT: boundedInt('PORT', 0, 65_535, 7860),
  HOST: z.string().default('127.0.0.1'),
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
  stateRoot: string;
  argusHome: string;
  argusPython: string | null;
  backend: string | null;
  foremanEnabled: boolean;
  foremanPython: string | null;
  /** Secret. */
  apiKey: string | null;
  apiKeySource: TokenSource;
  listen: { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };
}

export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Parses and validates the environment. Throws ConfigError whose message is one line per
 * problem; no line contains a value from the environment.
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: NodeJS.ProcessEnv): SupervisorConfig {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? 'environment');
      problems.push(issue.message.startsWith(key) ? issue.message : `${key}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const stateRoot = resolve(e.ARGUS_SUPERVISOR_STATE_ROOT);
  const argusHome = resolve(e.ARGUS_SUPERVISOR_ARGUS_HOME ?? join(stateRoot, 'argus-home'));
  const rel = relative(stateRoot, argusHome);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    problems.push('ARGUS_SUPERVISOR_ARGUS_HOME must be a folder under ARGUS_SUPERVISOR_STATE_ROOT');
  }
  // Renewal rides on the heartbeat: a lease shorter than two beats would lapse between them.
  if (e.ARGUS_SUPERVISOR_LEASE_TTL_SECONDS < 2 * e.ARGUS_SUPERVISOR_HEARTBEAT_SECONDS) {
    problems.push('ARGUS_SUPERVISOR_LEASE_TTL_SECONDS must be at least twice ARGUS_SUPERVISOR_HEARTBEAT_SECONDS so the heartbeat can renew it');
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
    stateRoot,
    argusHome,
    argusPython: blank(e.ARGUS_SUPERVISOR_ARGUS_PYTHON),
    backend: blank(e.ARGUS_SUPERVISOR_BACKEND),
    foremanEnabled: e.ARGUS_SUPERVISOR_FOREMAN_ENABLED,
    foremanPython: blank(e.ARGUS_SUPERVISOR_FOREMAN_PYTHON),
    apiKey,
    apiKeySource: apiKey ? 'deployment_secret' : 'missing',
    listen: e.ARGUS_SUPERVISOR_SOCKET
      ? { kind: 'unix', path: e.ARGUS_SUPERVISOR_SOCKET }
      : { kind: 'tcp', host: e.HOST, port: e.PORT },
  };
}
