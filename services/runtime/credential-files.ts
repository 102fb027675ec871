/**
 * Secrets from files: `OPENTRAINING_A2A_TOKEN_FILE` and `ARGUS_SUPERVISOR_API_KEY_FILE` name a
 * file `serve` reads once at start, so a parent (the Agent Zero plugin's sidecar, a container
 * runtime) can hand over the A2A token or the API key without putting it in any argument or
 * environment of the child. Only the path is ever reported, never the value or a hash of it.
 *
 * A file is refused as the local key file is (services/runtime/local-key.ts), since anyone who
 * can read it holds the credential: a symbolic link, not a regular file, another owner, any
 * group or other bit in its mode. Its content is one header-safe line (a trailing newline is
 * allowed): it is sent in an HTTP header.
 * @module
 */
import { constants as fsConstants, promises as fsp } from 'node:fs';
import { StartupFailure } from './startup-failure.js';
import { a2aUrlProblem, apiKeyWeak, MIN_API_KEY_LENGTH, type SupervisorConfig } from '../config/config.js';

/** More than any token or key we know of; a bigger file is not one. */
const MAX_SECRET_BYTES = 16 * 1024;

export type SecretFileCode = 'a2a_token_file' | 'api_key_file';
const VARIABLE: Record<SecretFileCode, string> = { a2a_token_file: 'OPENTRAINING_A2A_TOKEN_FILE', api_key_file: 'ARGUS_SUPERVISOR_API_KEY_FILE' };
type Refusal = 'missing' | 'unsafe' | 'invalid';
/** The start-up codes, spelled out (docs/configuration.md lists each; test/docs/startup-doc.test.ts reads them here). */
export const SECRET_FILE_REFUSALS: Record<SecretFileCode, Record<Refusal, string>> = {
  a2a_token_file: { missing: 'a2a_token_file_missing', unsafe: 'a2a_token_file_unsafe', invalid: 'a2a_token_file_invalid' },
  api_key_file: { missing: 'api_key_file_missing', unsafe: 'api_key_file_unsafe', invalid: 'api_key_file_invalid' },
};

/**
 * The one line of `file`, refusing a file anyone but this user could read or replace.
 * Codes: `<kind>_missing`, `<kind>_unsafe`, `<kind>_invalid` (e.g. `a2a_token_file_unsafe`).
 */
export async function readSecretFile(file: string, kind: SecretFileCode): Promise<string> {
  const variable = VARIABLE[kind];
  const refuse = (refusal: Refusal, why: string): never => {
    throw new StartupFailure(SECRET_FILE_REFUSALS[kind][refusal], `${variable} ${file} ${why}`);
  };
  let handle: fsp.FileHandle;
  try {
    // O_NOFOLLOW: a planted symlink is refused, not followed; O_NONBLOCK: a FIFO opens at once.
    handle = await fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code ?? 'error';
    if (errno === 'ENOENT') return refuse('missing', 'does not exist');
    if (errno === 'ELOOP') return refuse('unsafe', 'is a symbolic link');
    return refuse('missing', `cannot be opened (${errno})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return refuse('unsafe', 'is not a regular file');
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return refuse('unsafe', 'is owned by another user');
    if ((st.mode & 0o077) !== 0) return refuse('unsafe', `has mode ${(st.mode & 0o777).toString(8)}, not 600`);
    if (st.size > MAX_SECRET_BYTES) return refuse('invalid', `is larger than ${MAX_SECRET_BYTES} bytes`);
    const text = await handle.readFile('utf8');
    const value = text.replace(/\r?\n$/, '');
    if (value === '') return refuse('invalid', 'is empty');
    if (!/^[\x21-\x7e]+$/.test(value)) return refuse('invalid', 'must hold one line of printable ASCII with no whitespace');
    return value;
  } finally {
    await handle.close();
  }
}

/**
 * The configuration with the file-held secrets read in, checked as their variables would be:
 * the key must be strong (`api_key_weak`), the URL must not embed the token (`a2a_url_credential`).
 */
export async function withSecretFiles(config: SupervisorConfig): Promise<SupervisorConfig> {
  let next = config;
  if (config.a2aTokenFile !== null) {
    const token = await readSecretFile(config.a2aTokenFile, 'a2a_token_file');
    const problem = config.a2aUrl !== null ? a2aUrlProblem(config.a2aUrl, token) : null;
    if (problem) throw new StartupFailure(problem.code, problem.message);
    next = { ...next, a2aToken: token };
  }
  if (config.apiKeyFile !== null) {
    const key = await readSecretFile(config.apiKeyFile, 'api_key_file');
    if (apiKeyWeak(key)) {
      throw new StartupFailure('api_key_weak', `ARGUS_SUPERVISOR_API_KEY_FILE ${config.apiKeyFile} must hold at least ${MIN_API_KEY_LENGTH} printable ASCII characters with no whitespace`);
    }
    next = { ...next, apiKey: key, apiKeySource: 'deployment_secret' };
  }
  return next;
}
