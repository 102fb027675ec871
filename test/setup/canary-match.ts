/**
 * The pure half of the end-of-run canary scan: where, and in which disguise, a canary appears
 * in some bytes. A leak rarely stays raw: headers get lower-cased, `Basic` auth and logs
 * base64 it (at any byte alignment), and terminals colour it with ANSI codes that can split it
 * in two. Reports name the canary only in its masked form, so the report cannot leak it again.
 */
import { CANARY_PREFIX } from '../fixtures/canary.js';

export type LeakForm = 'raw' | 'case-folded' | 'ansi-split' | 'base64' | 'hex' | 'unregistered';

export interface Leak {
  /** `ARGUSCANARY-<label>-…`: never the value itself. */
  masked: string;
  form: LeakForm;
}

// CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ESC \`) and two-character escapes, with ESC itself
// or as written escaped in a JSON log line or a source string (`\u001b`, `\x1b`, `\033`).
const ESC = String.raw`(?:\x1b|\\u001[bB]|\\x1[bB]|\\033)`;
const BEL = String.raw`(?:\x07|\\u0007|\\x07|\\a)`;
const ANSI = new RegExp(String.raw`${ESC}\[[0-?]*[ -/]*[@-~]|${ESC}\][^\x07\x1b\\]*(?:${BEL}|${ESC}\\)|${ESC}[@-Z\\-_]`, 'g');
const ANY_CANARY = new RegExp(`${CANARY_PREFIX}-([a-z0-9-]{1,32})-[0-9a-f]{16}`, 'gi');

export const stripAnsi = (text: string): string => text.replace(ANSI, '');

/** `ARGUSCANARY-remote-token-3f9c…` → `ARGUSCANARY-remote-token-…` (the label is not secret). */
export function maskCanary(value: string): string {
  const random = /-[0-9a-f]{16}$/i.exec(value);
  return random ? `${value.slice(0, random.index)}-…` : `${CANARY_PREFIX}-…`;
}

/**
 * Base64 substrings that any encoding containing `value` must contain, whatever the byte
 * offset it starts at: for each of the three alignments, the whole 3-byte groups of the value.
 * For the canary alphabet ([A-Za-z0-9-]) these never contain `+` or `/`, so the url-safe
 * encoding yields the same needles.
 */
export function base64Needles(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const needles: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    needles.push(bytes.subarray(skip, skip + whole).toString('base64'));
  }
  return needles;
}

// Every canary starts with the prefix, so its disguises start with the prefix's: a cheap first
// pass that lets the per-canary search run only on content that could hold one.
const PREFIX_NEEDLES = (() => {
  return { lower: [CANARY_PREFIX.toLowerCase(), Buffer.from(CANARY_PREFIX).toString('hex')], exact: base64Needles(CANARY_PREFIX) };
})();

interface Needles {
  value: string;
  lower: string;
  hex: string;
  base64: string[];
}

/** Precomputes each canary's disguises once per scan. */
export function needlesFor(canaries: readonly string[]): Needles[] {
  return [...new Set(canaries)].map((value) => ({ value, lower: value.toLowerCase(), hex: Buffer.from(value).toString('hex'), base64: base64Needles(value) }));
}

/**
 * Every canary that appears in `content`, with the first form it was found in. A value that
 * looks like a canary but was never issued in this run is reported as `unregistered`.
 */
export function findCanaries(content: string, canaries: readonly string[] | Needles[]): Leak[] {
  const needles = typeof canaries[0] === 'string' ? needlesFor(canaries as string[]) : (canaries as Needles[]);
  const lower = content.toLowerCase();
  const stripped = stripAnsi(content).toLowerCase();
  if (!PREFIX_NEEDLES.lower.some((p) => stripped.includes(p)) && !PREFIX_NEEDLES.exact.some((p) => content.includes(p))) return [];
  const leaks: Leak[] = [];
  const seen = new Set<string>();
  for (const n of needles) {
    const form = formOf(n, content, lower, stripped);
    if (form) {
      leaks.push({ masked: maskCanary(n.value), form });
      seen.add(n.lower);
    }
  }
  for (const match of stripped.matchAll(ANY_CANARY)) {
    if (seen.has(match[0])) continue;
    seen.add(match[0]);
    leaks.push({ masked: `${CANARY_PREFIX}-${match[1]}-…`, form: 'unregistered' });
  }
  return leaks;
}

function formOf(n: Needles, raw: string, lower: string, stripped: string): LeakForm | null {
  if (raw.includes(n.value)) return 'raw';
  if (lower.includes(n.lower)) return 'case-folded';
  if (stripped.includes(n.lower)) return 'ansi-split';
  if (n.base64.some((b) => raw.includes(b))) return 'base64';
  if (lower.includes(n.hex)) return 'hex';
  return null;
}
