/**
 * The only remote text a public event may carry: a bounded, sanitized question (NEEDS_YOU), and
 * identifiers (stage names, task ids) reduced to a safe alphabet. Everything else is ours.
 * @module
 */

export const QUESTION_MAX_CHARS = 280;
export const IDENTIFIER_MAX_CHARS = 64;

// C0/C1 controls, zero-width and bidirectional overrides: they can hide or reorder text.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** Collapses whitespace, strips invisible characters, truncates with an ellipsis. */
export function boundedText(text: string | null | undefined, max: number = QUESTION_MAX_CHARS): string {
  if (!text) return '';
  const clean = text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).trimEnd()}…`;
}

/** An identifier as data, never as prose: anything outside a conservative alphabet becomes `_`. */
export function safeIdentifier(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  return value.replace(/[^A-Za-z0-9._:@+\-]/g, '_').slice(0, IDENTIFIER_MAX_CHARS);
}
