/**
 * The scan's matching function: each disguise a leak takes is found, harmless text is not,
 * and what the scan reports never contains the canary itself.
 */
import { describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { base64Needles, findCanaries, maskCanary, stripAnsi } from './canary-match.js';

const token = canary('scan-unit');
const other = canary('scan-other');
const formsIn = (content: string) => findCanaries(content, [token, other]).map((l) => l.form);

describe('findCanaries', () => {
  it.each([
    ['raw', `{"msg":"x","token":"${token}"}`, 'raw'],
    ['lower-cased', `authorization: bearer ${token.toLowerCase()}`, 'case-folded'],
    ['upper-cased', `X-API-KEY: ${token.toUpperCase()}`, 'case-folded'],
    ['split by an ANSI colour code', `${token.slice(0, 15)}\x1b[31m${token.slice(15)}\x1b[0m`, 'ansi-split'],
    ['split by an ANSI cursor sequence and a hyperlink', `${token.slice(0, 5)}\x1b[2K\x1b]8;;http://x\x07${token.slice(5)}`, 'ansi-split'],
    ['split by a JSON-escaped ANSI code', JSON.stringify({ msg: `${token.slice(0, 15)}\x1b[31m${token.slice(15)}` }), 'ansi-split'],
    ['hex', `dump ${Buffer.from(token).toString('hex').toUpperCase()}`, 'hex'],
  ])('finds a canary %s', (_name, content, form) => {
    expect(formsIn(content)).toEqual([form]);
  });

  it.each([0, 1, 2, 3, 4, 5])('finds base64 at any alignment (%i bytes before it), standard and url-safe', (pad) => {
    const encoded = Buffer.from(`${'p'.repeat(pad)}${token}!`).toString('base64');
    expect(formsIn(`data ${encoded} end`)).toEqual(['base64']);
    // Bytes around the canary whose encoding has - and _ in the url-safe alphabet.
    const url = Buffer.from(`${'\xfb'.repeat(pad)}${token}\xff\xff`, 'latin1').toString('base64url');
    expect(url).toMatch(/[-_]/);
    expect(formsIn(url)).toEqual(['base64']);
  });

  it('finds the Basic form of user:token', () => {
    expect(formsIn(`authorization: Basic ${Buffer.from(`operator:${token}`).toString('base64')}`)).toEqual(['base64']);
  });

  it('names each canary found, and only those', () => {
    expect(findCanaries(`${other} and nothing else`, [token, other])).toEqual([{ masked: maskCanary(other), form: 'raw' }]);
  });

  it('reports a canary-shaped value that was never issued', () => {
    expect(findCanaries('leaked ARGUSCANARY-elsewhere-0123456789abcdef', [token])).toEqual([{ masked: 'ARGUSCANARY-elsewhere-…', form: 'unregistered' }]);
  });

  it('finds nothing in text without a canary, nor in a truncated one', () => {
    expect(findCanaries('{"level":30,"msg":"simulator listening","token":"[REDACTED]"}', [token])).toEqual([]);
    expect(findCanaries(`prefix ${token.slice(0, -3)} only`, [token])).toEqual([]);
    expect(findCanaries(Buffer.from(token.slice(0, 20)).toString('base64'), [token])).toEqual([]);
  });

  it('never puts the value in what it reports', () => {
    const leaks = findCanaries(`${token} ${Buffer.from(other).toString('base64')}`, [token, other]);
    expect(leaks.map((l) => l.form)).toEqual(['raw', 'base64']);
    const report = JSON.stringify(leaks);
    for (const value of [token, other]) {
      expect(report).not.toContain(value);
      expect(report).not.toContain(value.slice(-16)); // the random part
      for (const needle of base64Needles(value)) expect(report).not.toContain(needle);
    }
    expect(maskCanary(token)).toBe('ARGUSCANARY-scan-unit-…');
  });
});

describe('stripAnsi', () => {
  it('removes colour, cursor and hyperlink sequences and keeps the text', () => {
    expect(stripAnsi('\x1b[1;31mred\x1b[0m \x1b[2Jclear \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\')).toBe('red clear link');
    expect(stripAnsi(JSON.stringify('\x1b[31mred\x1b[0m \x1b]0;title\x07'))).toBe('"red "');
  });
});
