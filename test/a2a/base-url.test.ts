import { describe, expect, it } from 'vitest';
import { cardCandidates, parseBaseUrl, resolveRpcPath } from '../../adapters/a2a/base-url.js';
import { sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import { canary } from '../fixtures/canary.js';

describe('base URL', () => {
  it('splits origin and path, without the trailing slash', () => {
    expect(parseBaseUrl('http://127.0.0.1:8080/a2a/')).toEqual({ ok: true, value: { origin: 'http://127.0.0.1:8080', path: '/a2a' } });
    expect(parseBaseUrl('https://h')).toEqual({ ok: true, value: { origin: 'https://h', path: '' } });
  });

  it.each([
    'http://u:p@h/a2a',
    'http://u@h/a2a',
    'http://h/a2a?token=x',
    'http://h/a2a?API_KEY=x',
    'http://h/a2a?sig=x',
    'http://h/a2a?project=x',
    'file:///etc/passwd',
  ])('rejects %s without echoing it', (raw) => {
    const r = parseBaseUrl(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatchObject({ code: 'remote_url_rejected', outcome: 'not_sent' });
      expect(r.error.message).not.toContain(raw);
    }
  });

  it('rejects a URL that contains the token anywhere', () => {
    const token = canary('url-token');
    expect(parseBaseUrl(`http://h/a2a/t-${token}`, token).ok).toBe(false);
  });

  it('tries agent-card.json, then agent.json, under the base then at the root', () => {
    expect(cardCandidates({ origin: 'http://h', path: '/a2a' })).toEqual([
      '/a2a/.well-known/agent-card.json',
      '/a2a/.well-known/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
    ]);
    expect(cardCandidates({ origin: 'http://h', path: '' })).toHaveLength(2);
  });
});

describe('JSON-RPC path from the advertised URL', () => {
  const base = { origin: 'http://127.0.0.1:9000', path: '/a2a' };
  it.each([
    ['no URL: canonical mount root', undefined, '/a2a/'],
    ['the base itself gets its trailing slash', 'http://127.0.0.1:9000/a2a', '/a2a/'],
    ['same origin, own path', 'http://127.0.0.1:9000/a2a/jsonrpc', '/a2a/jsonrpc'],
    ['same origin, outside the base', 'http://127.0.0.1:9000/rpc', '/rpc'],
    ['other origin (proxy publishes localhost), path under the base: rebased', 'http://localhost:8000/a2a/jsonrpc', '/a2a/jsonrpc'],
    ['other origin, path outside the base: mount root', 'http://evil.example/steal', '/a2a/'],
    ['relative URL', 'jsonrpc', '/a2a/jsonrpc'],
    ['URL with userinfo: mount root', 'http://u:p@127.0.0.1:9000/a2a/x', '/a2a/'],
    ['URL with a query: mount root', 'http://127.0.0.1:9000/a2a/x?key=1', '/a2a/'],
  ])('%s', (_name, advertised, path) => {
    expect(resolveRpcPath(base, advertised)).toBe(path);
  });
});

describe('remote text sanitizer', () => {
  const secret = canary('remote-secret');
  const [head, tail] = [secret.slice(0, 6), secret.slice(6)];
  it.each([
    ['plain', 'all good', 'all good'],
    ['newlines collapse', 'a\n\nb\tc', 'a b c'],
    ['ANSI removed whole', '\u001b[2Jclear\u001b]0;title\u0007', 'clear'],
    ['bidi override removed', 'abc\u202edef', 'abcdef'],
    ['secret split by a zero-width char is still redacted', `${head}\u200b${tail}`, '[REDACTED]'],
    ['secret redacted', `key ${secret}!`, 'key [REDACTED]!'],
    ['secret split by a control char', `${head}\u0000${tail}`, `${head} ${tail}`],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeRemoteText(input, [secret])).toBe(expected);
  });

  it('truncates to the limit with an ellipsis', () => {
    const out = sanitizeRemoteText('z'.repeat(1000), [], 200);
    expect(out).toHaveLength(200);
    expect(out.endsWith('…')).toBe(true);
  });
});
