/**
 * The one boundary for remote text (docs/remote-text.md). Remote strings are untrusted: they
 * may carry terminal escapes, bidi overrides that disguise what an operator reads, zero-width
 * characters, an echo of our own credential, or megabytes of filler. Every string a remote
 * sends (task fields, control metadata, artifacts, card, errors) goes through here before it
 * becomes a value anyone else sees: the normalizer, the card reader and the error mapper call
 * nothing else.
 * @module
 */

/** Per-field caps in UTF-16 code units (docs/remote-text.md says why each is what it is). */
export const REMOTE_TEXT_CAPS = {
  /** Task, context, attempt, artifact ids and the lease holder: a UUID is 36, a URN ~100. */
  identifier: 128,
  /** A stage is a short label ("training", "eval"); it appears twice in a STAGE_TRANSITION. */
  stage: 64,
  /** Enough to recognize a status line; short enough never to flood a prompt or a log. */
  excerpt: 500,
  artifactName: 128,
  /** Artifacts kept per snapshot; a checkpointing run lists a handful. */
  artifacts: 32,
  /** The agent card's display name. */
  cardName: 100,
  /** A remote error message inside one of our sentences. */
  errorText: 200,
  /** ISO-8601 instants (timestamps, lease expiry): 24 in practice. */
  instant: 40,
} as const;


/** C0/C1 controls, DEL and line/paragraph separators: they end up as a space (they often separate words). */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
/**
 * Invisible characters, removed since they hide inside words (and inside a token, which then no
 * longer reads as the token): every format character (`\p{Cf}`: zero-width, bidi controls and
 * isolates, BOM, soft hyphen, tag characters), variation selectors, the combining grapheme
 * joiner, and the Hangul fillers that render as nothing.
 */
const INVISIBLE_CHARS = /[\p{Cf}\u034f\u115f\u1160\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]+/gu;
/** Tab, line feed and carriage return: what a person types in a multi-line field (the page's textarea). */
const TYPED_LAYOUT = /[\t\n\r]/g;

/**
 * The text boundary for operator text (objective, answers, submit and intervene text, reasons):
 * the same character classes as remote text, but refused instead of stripped, since a person
 * should know their text would have been changed. Returns one clause naming the problem, or null
 * when the text may pass. `multiline` allows tabs and line breaks; nothing else in
 * CONTROL_CHARS or INVISIBLE_CHARS is ever allowed (ESC, so any ANSI sequence; bidi overrides
 * and isolates U+202A–E, U+2066–9; marks U+200E/F, U+061C; zero-width U+200B–D, U+FEFF; soft
 * hyphen; variation selectors, so also an emoji written with U+FE0F or a ZWJ sequence).
 * @example operatorTextProblem('lower lr\u202e') // 'contains invisible or bidirectional control characters'
 */
export function operatorTextProblem(text: string, opts: { multiline?: boolean } = {}): string | null {
  const body = opts.multiline ? text.replace(TYPED_LAYOUT, ' ') : text;
  // `search` ignores (and keeps) a global pattern's lastIndex, so the shared patterns stay stateless.
  if (body.search(INVISIBLE_CHARS) !== -1) {
    return body.replace(INVISIBLE_CHARS, '').trim() === ''
      ? 'contains only invisible characters'
      : 'contains invisible or bidirectional control characters';
  }
  if (body.search(CONTROL_CHARS) !== -1) return opts.multiline ? 'contains control characters (only tabs and line breaks are allowed)' : 'contains control characters or line breaks';
  return null;
}

/** ANSI escape sequences (CSI `ESC[...X` and OSC `ESC]...BEL`), removed whole so no `[2J` residue remains. */
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u009b[0-?]*[ -/]*[@-~]/g;
/** Credential-shaped values whatever the configured secrets are: `Bearer x`, `X-API-KEY: x`, `x-api-key=x`. */
// An `Authorization` value is redacted to the end of the value (quotes end it): schemes such
// as Negotiate, Digest or AWS4-HMAC-SHA256 carry the credential after several words or commas.
// A known scheme word is kept so the text still says what kind of credential it was.
const CREDENTIAL_SHAPES =
  /\b(bearer|basic)(\s+|%20|\+)[^\s"',;]+|\b(authorization)(["']?\s*[:=]\s*["']?|%3a|%3d)(?:(bearer|basic|token|digest|negotiate|ntlm|hoba|mutual|dpop|aws4-hmac-sha256)(?:\s+|%20|\+))?[^"'\r\n]+|\b(x[-_]?api[-_]?key|api[-_]?key)(["']?\s*[:=]\s*["']?|%3a|%3d)[^\s"',;]+/gi;
const REDACTED = '[REDACTED]';

/** A secret shorter than this is not a credential (and redacting it would shred normal text). */
const MIN_SECRET_LENGTH = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces every occurrence of each secret (case-insensitively), then every credential-shaped
 * value (`Bearer …`, `X-API-KEY: …`, `x-api-key=…`), whatever the token is.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.toLowerCase().includes(secret.toLowerCase())) {
      out = out.replace(new RegExp(escapeRegExp(secret), 'gi'), REDACTED);
    }
  }
  return out.replace(
    CREDENTIAL_SHAPES,
    (_m, scheme: string | undefined, _sp, auth: string | undefined, _sep, authScheme: string | undefined, keyHeader: string | undefined) => {
      if (scheme) return `${scheme} ${REDACTED}`;
      if (auth) return `${auth}: ${authScheme ? `${authScheme} ` : ''}${REDACTED}`;
      return `${keyHeader}: ${REDACTED}`;
    },
  );
}

/**
 * One safe line: secrets redacted, escapes and invisible characters removed, controls turned
 * into spaces, truncated to `max`. Redaction runs again after stripping, so a token split by
 * an invisible character (which would still read as the token) is caught too.
 * @example sanitizeRemoteText('\u001b[31mhi\u202e Bearer abc', [], 64) // 'hi Bearer [REDACTED]'
 */
export function sanitizeRemoteText(text: string, secrets: readonly string[], max: number = REMOTE_TEXT_CAPS.errorText): string {
  // Redact the whole text first (a cut could leave half a token), then bound the work.
  const redacted = redactSecrets(text, secrets);
  const head = redacted.length > max * 8 + 4096 ? redacted.slice(0, max * 8 + 4096) : redacted;
  const plain = head.replace(ANSI_SEQUENCES, '').replace(INVISIBLE_CHARS, '').replace(CONTROL_CHARS, ' ');
  const stripped = redactSecrets(plain, secrets);
  const line = stripped.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  // Never cut a surrogate pair in half (a lone surrogate is not valid UTF-8 on disk).
  let cut = Math.max(0, max - 1);
  if (cut > 0 && /[\ud800-\udbff]/.test(line[cut - 1] ?? '')) cut--;
  return `${line.slice(0, cut)}…`;
}

/** A remote field that is optional text: sanitized and capped, and an empty result is null. */
export function remoteText(value: string | null | undefined, secrets: readonly string[], max: number): string | null {
  if (value === null || value === undefined) return null;
  const clean = sanitizeRemoteText(value, secrets, max);
  return clean === '' ? null : clean;
}

/**
 * The identifiers we send back to a remote or compare for authority (task id, context id,
 * lease holder): printable ASCII without spaces or quotes, at most 128. One that fails is
 * never rewritten into something that looks valid; the whole answer is refused instead.
 */
const IDENTIFIER = /^[A-Za-z0-9._:@+/=~#-]+$/;

/** True when `value` may serve as an identifier as is: charset, length, and not a credential. */
export function isRemoteIdentifier(value: string, secrets: readonly string[]): boolean {
  if (value.length === 0 || value.length > REMOTE_TEXT_CAPS.identifier || !IDENTIFIER.test(value)) return false;
  return redactSecrets(value, secrets) === value;
}
