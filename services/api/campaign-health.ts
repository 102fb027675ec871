/**
 * Failure in plain sight (issue 20, item 2): a campaign's health, its last error and the
 * remote's own status message, projected from the live snapshot and what the host keeps in
 * memory. Pure: nothing here is stored, so an unchanged heartbeat tick still writes nothing.
 * @module
 */
import { sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import { READ_FAILURES_BEFORE_CRITICAL } from '../reducer/reducer-critical.js';

/** Worst first: the order the list sorts by. */
export const HEALTH_ORDER = ['failed', 'critical', 'degraded', 'ok', 'done'] as const;
export type Health = (typeof HEALTH_ORDER)[number];

/** The remote's status text shown on the page and in the CLI: bounded, untrusted. */
export const STATUS_MESSAGE_CAP = 300;

export interface HealthInput {
  /** The authority state (describeStates): control-lost and ambiguous-intent are CRITICALs unresolved. */
  authority: string;
  remote: { state: string; missionComplete: boolean } | null;
  readFailures: { consecutive: number; criticalRaised: boolean };
}

const FAILED_REMOTE = new Set(['failed', 'rejected']);
const BLOCKED_REMOTE = new Set(['input-required', 'auth-required']);
/** A CRITICAL the machine raised that only an operator or a readback resolves. */
const CRITICAL_AUTHORITY = new Set(['control-lost', 'ambiguous-intent']);

/**
 * - `failed`: the remote task failed or was rejected (nothing else matters then);
 * - `critical`: a read-failure streak raised its CRITICAL and no read succeeded since, or the
 *   lease was lost / an intent is ambiguous;
 * - `degraded`: reads are failing, below the CRITICAL threshold;
 * - `done`: the mission is complete (the remote task completed);
 * - `ok`: everything else.
 */
export function campaignHealth(input: HealthInput): Health {
  const { remote, readFailures, authority } = input;
  if (remote && FAILED_REMOTE.has(remote.state)) return 'failed';
  if (readFailures.criticalRaised || readFailures.consecutive >= READ_FAILURES_BEFORE_CRITICAL) return 'critical';
  if (CRITICAL_AUTHORITY.has(authority)) return 'critical';
  if (readFailures.consecutive > 0) return 'degraded';
  if (remote && (remote.missionComplete || remote.state === 'completed')) return 'done';
  return 'ok';
}

/** One sentence per error code: stable, never the remote's words (those go in `status_message`). */
const SENTENCES: Record<string, string> = {
  remote_timeout: 'The remote did not answer in time.',
  remote_unreachable: 'The remote could not be reached.',
  remote_http_status: 'The remote answered with an HTTP error.',
  remote_rpc_error: 'The remote answered with a JSON-RPC error.',
  remote_malformed: 'The remote answered with something that is not a valid answer.',
  remote_payload_invalid: 'The remote answered about another task or with an invalid payload.',
  remote_too_large: 'The remote answer was too large.',
  remote_redirect_refused: 'The remote answered with a redirect, which is refused.',
  remote_auth_failed: 'The remote refused the credential.',
  task_not_found: 'The remote says the task does not exist.',
  remote_not_configured: 'No remote is configured.',
  lease_held: 'Another controller holds the lease.',
  lease_stale_epoch: 'The lease epoch is stale: another controller took the task.',
  lease_not_held: 'The lease is not held any more.',
  lease_lost: 'Control of the remote task was lost.',
  not_owner: 'This process no longer hosts the campaign.',
  argus_unavailable: 'Argus could not be reached.',
};

export function errorSentence(code: string): string {
  return SENTENCES[code] ?? `The last operation failed (${code}).`;
}

export interface LastErrorView {
  code: string;
  sentence: string;
  /** When it happened, if this process saw it (a read failure); null after a restart or for other errors. */
  at: string | null;
}

/** `code` is the machine's `lastErrorCode`; `seen` is the last failed read this process saw. */
export function lastErrorView(code: string | null, seen: { code: string; at: string } | null): LastErrorView | null {
  if (code === null) return null;
  return { code, sentence: errorSentence(code), at: seen?.code === code ? seen.at : null };
}

/**
 * The remote's own status text, only for a task that failed or is blocked (input-required,
 * auth-required). Passed through the remote-text boundary again and capped: it is untrusted.
 */
export function statusMessageView(remoteState: string | null, message: string | null): string | null {
  if (remoteState === null || message === null) return null;
  if (!FAILED_REMOTE.has(remoteState) && !BLOCKED_REMOTE.has(remoteState)) return null;
  const text = sanitizeRemoteText(message, [], STATUS_MESSAGE_CAP);
  return text === '' ? null : text;
}

/** Whether a new status text changes what the view shows (a working task's text never does). */
export function shownMessageChanged(remoteState: string | null, before: string | null, after: string | null): boolean {
  return before !== after && statusMessageView(remoteState, before) !== statusMessageView(remoteState, after);
}
