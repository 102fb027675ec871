/**
 * Remote text is untrusted: it may carry terminal escapes, bidi overrides that disguise what
 * an operator reads, or an echo of our own credential. Everything that came from the remote
 * and may reach an error, a log line or an excerpt goes through here first.
 * @module
 */

/** C0/C1 controls and DEL: they end up as a space (they often separate words). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
/** Invisible format characters (zero-width, bidi controls, BOM): removed, since they hide in words. */
const INVISIBLE_CHARS = /[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]+/g;
/** ANSI escape sequences (CSI `ESC[...X` and OSC `ESC]...BEL`), removed whole so no `[2J` residue remains. */
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-?]*[ -/]*[@-~]/g;
const REDACTED = '[REDACTED]';

export const ERROR_TEXT_MAX = 200;

/** Replaces every occurrence of each secret; a secret shorter than 4 chars is not a credential. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * One safe line: secrets redacted, escapes and invisible characters removed, controls turned
 * into spaces, truncated to `max`. Redaction runs again after stripping, so a token split by
 * an invisible character (which would still read as the token) is caught too.
 */
export function sanitizeRemoteText(text: string, secrets: readonly string[], max = ERROR_TEXT_MAX): string {
  // Redact the whole text first (a cut could leave half a token), then bound the work.
  const redacted = redactSecrets(text, secrets);
  const head = redacted.length > max * 8 ? redacted.slice(0, max * 8) : redacted;
  const plain = head.replace(ANSI_SEQUENCES, '').replace(INVISIBLE_CHARS, '').replace(CONTROL_CHARS, ' ');
  const stripped = redactSecrets(plain, secrets);
  const line = stripped.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}
