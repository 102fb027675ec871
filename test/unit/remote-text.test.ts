/**
 * The remote-text boundary, by behaviour: what a hostile string looks like after it crosses
 * (sanitizeRemoteText for errors/excerpts, boundedText / safeIdentifier for public events).
 */
import { describe, expect, it } from 'vitest';
import { sanitizeRemoteText } from '../../adapters/a2a/index.js';
import { redactSecrets } from '../../adapters/a2a/sanitize.js';
import { boundedText, IDENTIFIER_MAX_CHARS, safeIdentifier } from '../../services/reducer/reducer-text.js';
import { canary } from '../fixtures/canary.js';

describe('sanitizeRemoteText', () => {
  it('redacts a secret of four characters or more, and leaves shorter strings alone', () => {
    const token = canary('remote-text');
    expect(sanitizeRemoteText(`echo ${token} twice ${token}`, [token])).toBe('echo [REDACTED] twice [REDACTED]');
    expect(redactSecrets('ab abc abcd', ['abcd'])).toBe('ab abc [REDACTED]');
    expect(redactSecrets('ab abc', ['abc'])).toBe('ab abc');
  });

  it('removes escape sequences whole and collapses every run of whitespace to one space', () => {
    expect(sanitizeRemoteText('\u001b[31mred\u001b[0m  and \t\n  plain ', [])).toBe('red and plain');
  });

  it('keeps a line of exactly max characters and cuts a longer one to max with an ellipsis', () => {
    expect(sanitizeRemoteText('x'.repeat(200), [])).toBe('x'.repeat(200));
    const cut = sanitizeRemoteText('word '.repeat(500), []);
    expect(cut).toHaveLength(200);
    expect(cut.endsWith('…')).toBe(true);
    expect(sanitizeRemoteText('y'.repeat(2000), [], 50)).toBe(`${'y'.repeat(49)}…`);
  });
});

describe('public-event text', () => {
  it('boundedText collapses whitespace and trims before the ellipsis', () => {
    expect(boundedText(null)).toBe('');
    expect(boundedText('a \u200b  b\n\nc')).toBe('a b c');
    expect(boundedText('abcd efgh', 9)).toBe('abcd efgh');
    expect(boundedText('abcd efgh', 6)).toBe('abcd…');
  });

  it('safeIdentifier is null for nothing and bounded for anything', () => {
    expect(safeIdentifier('')).toBeNull();
    expect(safeIdentifier(undefined)).toBeNull();
    expect(safeIdentifier('eval <x>')).toBe('eval__x_');
    expect(safeIdentifier('s'.repeat(500))).toBe('s'.repeat(IDENTIFIER_MAX_CHARS));
  });
});
