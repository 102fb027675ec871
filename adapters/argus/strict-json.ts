/**
 * JSON.parse that refuses an object with the same key twice. JSON.parse keeps the last value,
 * while a person, a Reviewer or another parser reading `{"kind":"observe","kind":"cancel"}` may
 * see the first: a file written by a model must mean one thing to every reader. Keys are
 * compared decoded, so `"k\u0069nd"` and `"kind"` are the same key. No package in the tree
 * reports duplicates (secure-json-parse guards prototypes only), hence this small scan.
 * @module
 */

export type StrictJson = { ok: true; value: unknown } | { ok: false; code: 'not_json' | 'duplicate_key' };

interface Frame {
  keys: Set<string> | null; // null: an array
  expectKey: boolean;
}

/**
 * Parses `text` as JSON; `duplicate_key` when any object, at any depth, repeats a key.
 * @example parseStrictJson('{"a":1,"\\u0061":2}') // { ok: false, code: 'duplicate_key' }
 */
export function parseStrictJson(text: string): StrictJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'not_json' };
  }
  return hasDuplicateKey(text) ? { ok: false, code: 'duplicate_key' } : { ok: true, value };
}

/**
 * Walks text JSON.parse accepted: strings are skipped whole (so brackets inside them do not
 * count), and a string in key position of an object is decoded and checked against that
 * object's keys. An explicit stack, so deep nesting cannot overflow the call stack.
 */
function hasDuplicateKey(text: string): boolean {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return true;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end;
    } else if (c === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (c === '[') stack.push({ keys: null, expectKey: false });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',' && top?.keys) top.expectKey = true;
  }
  return false;
}
