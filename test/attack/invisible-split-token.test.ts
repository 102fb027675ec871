// Attack: a remote splits its own token with a zero-width character the boundary does not strip.
// End to end (dist serve, hand-written remote, scan of answers/files/logs): test/attack/hostile-token.mjs.
import { expect, it } from 'vitest';
import { sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import { canary } from '../fixtures/canary.js';

const token = canary('split-token');
const mid = Math.floor(token.length / 2);
// U+034F combining grapheme joiner, U+FE0F variation selector, U+E0041 tag A, U+3164 Hangul filler: all render as nothing.
for (const hider of ['\u034f', '\ufe0f', '\u{E0041}', '\u3164']) {
  it(`U+${hider.codePointAt(0)!.toString(16)} inside the token is stripped and the token redacted`, () => {
    const out = sanitizeRemoteText(`stage ${token.slice(0, mid)}${hider}${token.slice(mid)}`, [token], 500);
    expect(out).not.toContain(hider);
    expect(out).not.toContain(token.slice(mid));
  });
}
