/**
 * Start-up failures as one line each, `<code>: <sentence>`, on stderr with exit code 2 — never
 * a stack trace. The codes are stable (docs/configuration.md lists them):
 *
 *   listen_address_in_use   the TCP port is taken
 *   listen_host_invalid     HOST does not resolve to an address of this machine
 *   listen_permission_denied  the port is privileged for this user
 *   socket_path_unusable    ARGUS_SUPERVISOR_SOCKET cannot be bound (folder, permissions, taken)
 *   state_root_locked       another live process owns the state root
 *   state_root_unusable     the state root cannot be created, read or written
 *   startup_failed          anything else (the sentence is the error's message, never a stack)
 * @module
 */
import { StartupFailure } from '../../services/runtime/startup-failure.js';

export interface FailureLine {
  code: string;
  message: string;
}

export type ListenTarget = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/** One line for a failed listen, by errno. */
export function listenFailure(error: unknown, where: ListenTarget): FailureLine {
  const errno = errnoOf(error);
  if (where.kind === 'unix') {
    return { code: 'socket_path_unusable', message: `cannot listen on the socket ${where.path} (${errno ?? 'error'})` };
  }
  const address = `${where.host}:${where.port}`;
  if (errno === 'EADDRINUSE') return { code: 'listen_address_in_use', message: `${address} is already in use` };
  if (errno === 'ENOTFOUND' || errno === 'EAI_AGAIN' || errno === 'EAI_NONAME' || errno === 'EADDRNOTAVAIL' || errno === 'EAI_FAIL') {
    return { code: 'listen_host_invalid', message: `HOST ${where.host} is not an address of this machine (${errno})` };
  }
  if (errno === 'EACCES') return { code: 'listen_permission_denied', message: `${address} may not be bound by this user (EACCES)` };
  return generic(error);
}

/** One line for any other start-up error. */
export function startupFailure(error: unknown): FailureLine {
  if (error instanceof StartupFailure) return { code: error.code, message: error.message };
  const errno = errnoOf(error);
  const path = (error as NodeJS.ErrnoException | null)?.path;
  if (errno && path && ['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'ENOSPC', 'EEXIST'].includes(errno)) {
    return { code: 'state_root_unusable', message: `${path} cannot be used (${errno})` };
  }
  return generic(error);
}

function generic(error: unknown): FailureLine {
  const text = error instanceof Error ? error.message : String(error);
  return { code: 'startup_failed', message: text.split('\n')[0]!.slice(0, 300) };
}

/** Prints the line(s) and exits 2. */
export function exitWith(lines: FailureLine[] | string[]): never {
  for (const line of lines) process.stderr.write(`${typeof line === 'string' ? line : `${line.code}: ${line.message}`}\n`);
  process.exit(2);
}
