/**
 * parseStrictJson: JSON.parse plus a refusal of any object that repeats a key (issue 19,
 * defect 9). Keys are compared decoded; strings that merely look like keys, arrays of objects
 * with the same keys, and brackets or quotes inside strings are not duplicates.
 */
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../adapters/argus/strict-json.js';

const DUPLICATES: [label: string, text: string][] = [
  ['top level', '{"kind":"observe","kind":"cancel"}'],
  ['the same value twice', '{"a":1,"a":1}'],
  ['an escaped spelling of the same key', '{"kind":"observe","k\\u0069nd":"cancel"}'],
  ['escaped both times differently', '{"\\u006bind":1,"k\\u0069nd":2}'],
  ['a solidus escape', '{"a/b":1,"a\\/b":2}'],
  ['nested object', '{"outer":{"x":1,"y":{"z":1,"z":2}}}'],
  ['an object inside an array', '[1,{"a":1},{"b":2,"b":3}]'],
  ['after a nested object closes', '{"a":{"a":1},"b":2,"a":3}'],
  ['after an array value', '{"a":[{"a":1},"a"],"a":2}'],
  ['deep nesting', `${'{"k":'.repeat(500)}{"d":1,"d":2}${'}'.repeat(500)}`],
  ['with whitespace and newlines', '{\n  "a" : 1 ,\n  "a"\t: 2\n}'],
  ['the empty key', '{"":1,"":2}'],
  ['__proto__', '{"__proto__":{},"__proto__":{}}'],
];

const SINGLE: [label: string, text: string][] = [
  ['distinct keys', '{"kind":"observe","kinds":"cancel"}'],
  ['the same key in sibling objects', '{"a":{"x":1},"b":{"x":2}}'],
  ['the same key in array elements', '[{"a":1},{"a":2},{"a":3}]'],
  ['a key equal to a value', '{"a":"a","b":"a"}'],
  ['a string value that looks like a key list', '{"a":"\\",\\"a\\":1","b":"{\\"a\\":1,\\"a\\":2}"}'],
  ['keys differing only by case', '{"Kind":1,"kind":2}'],
  ['an escaped backslash before the quote', '{"a\\\\":1,"a":2}'],
  ['a scalar', '42'],
  ['a string', '"{\\"a\\":1,\\"a\\":2}"'],
  ['empty containers', '{"a":{},"b":[],"c":[[]]}'],
];

describe('parseStrictJson', () => {
  it.each(DUPLICATES)('refuses a repeated key: %s', (_label, text) => {
    expect(() => JSON.parse(text)).not.toThrow(); // JSON.parse alone would accept it
    expect(parseStrictJson(text)).toEqual({ ok: false, code: 'duplicate_key' });
  });

  it.each(SINGLE)('accepts %s, with the value JSON.parse gives', (_label, text) => {
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it.each(['', '{', '{"a":1,}', "{'a':1}", '{"a":1}x', 'NaN'])('%j is not_json', (text) => {
    expect(parseStrictJson(text)).toEqual({ ok: false, code: 'not_json' });
  });
});
