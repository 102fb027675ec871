/**
 * The Argus child's whole environment, built from nothing. The MCP SDK's stdio transport
 * merges its own defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER from our process) under
 * whatever we pass, so every one of those six is set here and ours always wins. Nothing of
 * ours (`ARGUS_SUPERVISOR_*`, the OpenTraining token, our API key) is ever copied in.
 * @module
 */
import path from 'node:path';
import { ArgusConfigError } from './argus-home.js';

/**
 * The runner backends Argus accepts (`ARGUS_SKILL_RUNNER_BACKEND`, argus_skill/adapters/
 * agent_cli_backend/_core.py) and, per backend, the only variables of its own it may receive:
 * its credential, its endpoint override and its config folder. A backend without a list gets
 * none (its CLI reads its own config under HOME, which is ours).
 */
export const BACKEND_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  codex: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'],
  claude: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR'],
  copilot: ['COPILOT_GITHUB_TOKEN'],
  opencode: ['OPENCODE_CONFIG'],
  pi: [],
  grok: ['XAI_API_KEY'],
  qoder: [],
  dsh: [],
};

/**
 * `ARGUS_SKILL_*` keys never passed on: the web token and the chat bridges (Telegram, Feishu)
 * belong to the web server and the bot integrations, which this project never starts.
 */
const REFUSED_ARGUS_KEYS = /^ARGUS_SKILL_(WEB_|ENABLE_TELEGRAM$|ENABLE_FEISHU$|TELEGRAM_|FEISHU_)/;
/** Keys we set ourselves; `extra` cannot override them. */
const OURS = new Set(['ARGUS_SKILL_HOME', 'ARGUS_SKILL_RUNNER_BACKEND', 'ARGUS_SKILL_SAFE_MODE']);
/** A secret shorter than this cannot be searched for without false hits (sanitize.ts uses 4 too). */
const MIN_SECRET_LENGTH = 4;

export interface ArgusEnvInput {
  /** `ARGUS_SKILL_HOME` (see resolveArgusHome). */
  home: string;
  /** The PATH the child gets (where python and the backend CLI live). */
  path: string;
  /** `ARGUS_SUPERVISOR_BACKEND`: required, never inferred. */
  backend: string;
  /** Where `ARGUS_SKILL_*` knobs and the backend's own variables are taken from (e.g. process.env). */
  extra?: Record<string, string | undefined>;
  /** Values that must never reach the child (our API key, the OpenTraining token). */
  secrets: string[];
}

/**
 * True when any value of `values` contains one of `secrets`, in any case (shared with the
 * tool-argument check). Case-insensitive like redactSecrets: a lower-cased token is still the
 * token to anyone who reads it, and the canary scan looks for it that way too.
 */
export function containsSecret(values: readonly string[], secrets: readonly string[]): boolean {
  const needles = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).map((secret) => secret.toLowerCase());
  return values.some((value) => {
    const hay = value.toLowerCase();
    return needles.some((needle) => hay.includes(needle));
  });
}

/**
 * Exactly: PATH, HOME=`<home>/home`, USER=LOGNAME=`argus`, SHELL=`/bin/sh`, TERM=`dumb`,
 * ARGUS_SKILL_HOME, ARGUS_SKILL_RUNNER_BACKEND, ARGUS_SKILL_SAFE_MODE=1, plus from `extra` the
 * allowed `ARGUS_SKILL_*` knobs and the backend's own variables (BACKEND_VARIABLES).
 * @throws ArgusConfigError `argus_backend_unknown` | `secret_in_child_env`
 */
export function buildArgusEnv(input: ArgusEnvInput): Record<string, string> {
  const allowed = Object.hasOwn(BACKEND_VARIABLES, input.backend) ? BACKEND_VARIABLES[input.backend] : undefined;
  if (allowed === undefined) {
    throw new ArgusConfigError('argus_backend_unknown', 'The Argus backend is not one Argus knows (codex, claude, copilot, opencode, pi, grok, qoder, dsh).');
  }
  const env: Record<string, string> = {
    PATH: input.path,
    HOME: path.join(input.home, 'home'),
    USER: 'argus',
    LOGNAME: 'argus',
    SHELL: '/bin/sh',
    TERM: 'dumb',
    ARGUS_SKILL_HOME: input.home,
    ARGUS_SKILL_RUNNER_BACKEND: input.backend,
    ARGUS_SKILL_SAFE_MODE: '1',
  };
  for (const [key, value] of Object.entries(input.extra ?? {})) {
    if (value === undefined || value.includes('\0')) continue;
    const argusKnob = key.startsWith('ARGUS_SKILL_') && /^[A-Z0-9_]+$/.test(key) && !REFUSED_ARGUS_KEYS.test(key) && !OURS.has(key);
    if (argusKnob || allowed.includes(key)) env[key] = value;
  }
  if (containsSecret(Object.values(env), input.secrets)) {
    throw new ArgusConfigError('secret_in_child_env', 'A credential of ours would reach the Argus process; refusing to start it.');
  }
  return env;
}
