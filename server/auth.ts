/**
 * API-key authentication: `X-API-KEY` or `Authorization: Bearer`, compared in constant time.
 * With no key configured every protected route refuses (fail closed), it never opens up.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function createKeyCheck(apiKey: string | null): (headers: IncomingHttpHeaders) => boolean {
  if (!apiKey) return () => false;
  // Hash both sides so the comparison length never depends on the presented value.
  const expected = digest(apiKey);
  return (headers) => {
    const presented = presentedKey(headers);
    if (presented === null) return false;
    return timingSafeEqual(digest(presented), expected);
  };
}

function presentedKey(headers: IncomingHttpHeaders): string | null {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x.length > 0) return x;
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    if (m) return m[1]!.trim();
  }
  return null;
}
