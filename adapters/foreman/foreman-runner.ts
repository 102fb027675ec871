/**
 * One Foreman assessment = one short-lived Python child: the observation goes in as one JSON
 * line on stdin, one JSON directive comes back on stdout. Nothing else crosses: argv is fixed
 * (`-B -s <shim>`), the environment is built here from nothing (buildForemanEnv), and the
 * child's stderr is never surfaced (hostile, and possibly large) beyond its existence.
 *
 * Exit codes of the shim (runtime/foreman_shim.py, and the fake in simulator/foreman/):
 * 0 = directive printed, 2 = observation rejected, 3 = upstream `foreman` not importable
 * (mapped to `foreman_unavailable`, like a missing interpreter), anything else = failed.
 * An unavailable or failing Foreman never blocks Argus or observation: the caller treats
 * every error code as "no directive".
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { killProcessGroup } from '../process-group.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** Upstream InterventionType values; machines/foreman.directives.ts declares the same list (a test pins both). */
export const FOREMAN_ACTIONS = ['CONTINUE', 'START_WORKER', 'START_VERIFIER', 'STEER_WORKER', 'STOP_WORKER', 'RETRY_WORKER', 'FINISH', 'ESCALATE'] as const;
export type ForemanAction = (typeof FOREMAN_ACTIONS)[number];

export interface ForemanVerdict {
  directive: ForemanAction;
  reason: string;
  confidence: number | null;
}

export const FOREMAN_DEFAULT_TIMEOUT_MS = 20_000;
/** Stdout past this is not a directive: the child is killed and the run is bad output. */
export const FOREMAN_STDOUT_CAP = 64 * 1024;
/** Upstream directive reasons are fixed sentences; this keeps a hostile one short. */
export const FOREMAN_REASON_CAP = 300;
/** Exit code the shim uses when the upstream package cannot be imported. */
export const SHIM_EXIT_UNAVAILABLE = 3;

export class ForemanConfigError extends Error {
  constructor(readonly code: 'secret_in_child_env' | 'foreman_env_not_allowed' | 'foreman_home_invalid', message: string) {
    super(message);
    this.name = 'ForemanConfigError';
  }
}

/**
 * Extra variables a Foreman child may get, and why:
 * - TYPESAFE_API_KEY: the credential of upstream's Jev model (TypeSafe SDK) — Foreman's own,
 *   never ours; the secrets check below still refuses it if it equals one of our secrets.
 * - PYTHONPATH: only for the labelled stub package in tests (production uses /opt/venv-foreman).
 * - FAKE_FOREMAN_SCRIPT / FAKE_FOREMAN_RECORD: the simulated Foreman's script and record files.
 */
export const FOREMAN_EXTRA_ENV = ['TYPESAFE_API_KEY', 'PYTHONPATH', 'FAKE_FOREMAN_SCRIPT', 'FAKE_FOREMAN_RECORD'] as const;

/** `<stateRoot>/foreman-home`: the child's HOME, never the operator's. */
export function foremanHome(stateRoot: string): string {
  return path.join(path.resolve(stateRoot), 'foreman-home');
}

/**
 * The whole environment of a Foreman child: PATH, HOME, two Python switches (no .pyc writes
 * into the shipped runtime, no user site-packages that would shadow the pinned venv), UTF-8
 * stdio, plus allowed extras. Throws if any value contains one of `secrets`.
 */
export function buildForemanEnv(input: { home: string; path: string; secrets: readonly string[]; extra?: Record<string, string | undefined> }): Record<string, string> {
  if (!path.isAbsolute(input.home)) throw new ForemanConfigError('foreman_home_invalid', 'The Foreman home must be an absolute path under the state root.');
  const env: Record<string, string> = {
    PATH: input.path,
    HOME: input.home,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONNOUSERSITE: '1',
    PYTHONIOENCODING: 'utf-8',
  };
  for (const [key, value] of Object.entries(input.extra ?? {})) {
    if (value === undefined) continue;
    if (!(FOREMAN_EXTRA_ENV as readonly string[]).includes(key)) {
      throw new ForemanConfigError('foreman_env_not_allowed', 'A variable outside the Foreman allow-list was offered to the Foreman child.');
    }
    env[key] = value;
  }
  if (carriesSecret(Object.values(env), input.secrets)) {
    throw new ForemanConfigError('secret_in_child_env', 'A supervisor secret would reach the Foreman child environment.');
  }
  return env;
}

/** A secret shorter than this cannot be searched for without false hits (sanitize.ts uses 4 too). */
const MIN_SECRET_LENGTH = 4;

/** True when any value contains one of `secrets`, in any case (a lower-cased token is still the token). */
export function carriesSecret(values: readonly string[], secrets: readonly string[]): boolean {
  const needles = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).map((s) => s.toLowerCase());
  return values.some((value) => {
    const hay = value.toLowerCase();
    return needles.some((needle) => hay.includes(needle));
  });
}

const directiveSchema = z.strictObject({
  action: z.enum(FOREMAN_ACTIONS),
  reason: z.string().max(4_000),
  confidence: z.number().min(0).max(1).nullable(),
});

/** Printable ASCII only, collapsed and capped: the reason is an upstream sentence, nothing richer. */
function plainReason(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, FOREMAN_REASON_CAP);
}

const fail = (code: string, message: string): Outcome<never> => ({ ok: false, error: { code, message } });

export interface RunForemanOptions {
  python: string;
  shimPath: string;
  /** The observation (buildForemanObservation's result): serialised as one JSON line. */
  observation: object;
  timeoutMs?: number;
  env: Record<string, string>;
  /** Called once per run, when the child has started (a model call is then under way). */
  onModelCall?: () => void;
  /** Optional extra sanitizer for the reason (e.g. secret redaction); applied after plainReason. */
  sanitize?: (text: string, cap: number) => string;
  /** Sees the child once spawned (tests record its output; nothing may write to it). */
  onChild?: (child: ChildProcess) => void;
  /**
   * Our API key and the OpenTraining token: a stdin line that contains one is refused before
   * any child starts (`secret_in_observation`), whoever built the observation. The env is
   * checked by buildForemanEnv; this is the same last check for stdin.
   */
  secrets?: readonly string[];
}

/** The stdin line is one observation: buildForemanObservation keeps it under 16 KiB; this leaves room for JSON escapes. */
export const FOREMAN_STDIN_CAP = 32 * 1024;

export function runForeman(opts: RunForemanOptions): Promise<Outcome<ForemanVerdict>> {
  const timeoutMs = opts.timeoutMs ?? FOREMAN_DEFAULT_TIMEOUT_MS;
  let line: string;
  try {
    line = `${JSON.stringify(opts.observation)}\n`;
  } catch {
    return Promise.resolve(fail('observation_invalid', 'The Foreman observation is not serialisable JSON; no child was started.'));
  }
  const cwd = opts.env.HOME;
  if (Buffer.byteLength(line, 'utf8') > FOREMAN_STDIN_CAP) return Promise.resolve(fail('observation_too_large', 'The Foreman observation is larger than one bounded observation; no child was started.'));
  if (carriesSecret([line], opts.secrets ?? [])) return Promise.resolve(fail('secret_in_observation', 'A credential of ours was about to reach Foreman on stdin; no child was started.'));
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (outcome: Outcome<ForemanVerdict>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    if (!cwd) return settle(fail('foreman_unavailable', 'The Foreman child has no HOME to run in.'));
    try {
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
    } catch {
      return settle(fail('foreman_unavailable', 'The Foreman home directory could not be created.'));
    }
    // Its own process group, so a timeout stops whatever the child started too; stdio stays
    // piped, so the child still sees EOF and EPIPE if we die.
    const child = spawn(opts.python, ['-B', '-s', opts.shimPath], { cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], shell: false, detached: true });
    opts.onChild?.(child);
    const stopGroup = () => {
      if (!killProcessGroup(child.pid, 'SIGKILL')) child.kill('SIGKILL');
    };
    // The run is over when the child exits: anything left in its group (which would also hold
    // our pipes open and delay 'close') is stopped.
    child.once('exit', () => killProcessGroup(child.pid, 'SIGKILL'));
    const chunks: Buffer[] = [];
    let bytes = 0;
    let overflow = false;
    timer = setTimeout(() => {
      stopGroup();
      settle(fail('foreman_timeout', `Foreman did not answer within ${timeoutMs} ms and was stopped.`));
    }, timeoutMs);
    child.on('spawn', () => opts.onModelCall?.());
    child.on('error', (error: NodeJS.ErrnoException) => {
      const missing = error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'ENOTDIR';
      settle(fail(missing ? 'foreman_unavailable' : 'foreman_failed', missing ? 'The Foreman Python runtime could not be started.' : 'The Foreman child failed to run.'));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (overflow) return;
      bytes += chunk.length;
      if (bytes > FOREMAN_STDOUT_CAP) {
        overflow = true;
        stopGroup();
        return;
      }
      chunks.push(chunk);
    });
    // Drained and dropped: stderr is hostile and unbounded; its content is never surfaced.
    child.stderr.on('data', () => {});
    child.stdin.on('error', () => {}); // a child that exits before reading: reported by its exit code
    child.stdin.end(line);
    child.on('close', (code) => {
      if (overflow) return settle(fail('foreman_bad_output', `Foreman printed more than ${FOREMAN_STDOUT_CAP} bytes.`));
      if (code === SHIM_EXIT_UNAVAILABLE) return settle(fail('foreman_unavailable', 'The Foreman package is not installed in its Python runtime.'));
      if (code !== 0) return settle(fail('foreman_failed', `Foreman exited with status ${code === null ? 'killed' : code}.`));
      settle(parseDirective(Buffer.concat(chunks).toString('utf8'), opts.sanitize));
    });
  });
}

/** Exactly one non-empty stdout line holding one directive object. */
export function parseDirective(stdout: string, sanitize?: (text: string, cap: number) => string): Outcome<ForemanVerdict> {
  const lines = stdout.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  if (lines.length !== 1) return fail('foreman_bad_output', 'Foreman did not print exactly one directive line.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(lines[0] as string);
  } catch {
    return fail('foreman_bad_output', 'Foreman printed a line that is not JSON.');
  }
  const checked = directiveSchema.safeParse(parsed);
  if (!checked.success) return fail('foreman_bad_output', 'Foreman printed a directive outside the known actions or shape.');
  let reason = plainReason(checked.data.reason);
  if (sanitize) reason = sanitize(reason, FOREMAN_REASON_CAP);
  return { ok: true, value: { directive: checked.data.action, reason, confidence: checked.data.confidence } };
}
