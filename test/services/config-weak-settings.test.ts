/**
 * Weak settings are refused at start-up with one coded line each, never discovered later:
 * a short or blank API key, no key on a network address, ENABLED with no URL, and a remote
 * URL that could carry a credential in any form (the same predicate the client applies).
 */
import { describe, expect, it } from 'vitest';
import { parseBaseUrl } from '../../adapters/a2a/base-url.js';
import { ConfigError, FLAG_ON_VALUES, loadConfig } from '../../services/config/config.js';
import { canary } from '../fixtures/canary.js';

function linesOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.lines();
    throw e;
  }
  return [];
}
const codesOf = (env: NodeJS.ProcessEnv) => linesOf(env).map((line) => line.slice(0, line.indexOf(':')));

describe('the API key', () => {
  const key = canary('api-key');

  it.each([
    ['one character', key.slice(0, 1)],
    ['15 characters', key.slice(0, 15)],
    ['whitespace only', '                    '],
    ['a space inside', `${key.slice(0, 10)} ${key.slice(10)}`],
    ['a control character', `${key}\u0007`],
  ])('is refused when it is %s (api_key_weak), without echoing it', (_name, value) => {
    const lines = linesOf({ ARGUS_SUPERVISOR_API_KEY: value });
    expect(lines).toEqual(['api_key_weak: ARGUS_SUPERVISOR_API_KEY must be at least 16 printable ASCII characters with no whitespace']);
    if (value.trim().length >= 4) expect(lines.join('\n')).not.toContain(value.trim());
  });

  it('is accepted at 16 characters and more', () => {
    expect(linesOf({ ARGUS_SUPERVISOR_API_KEY: key.slice(0, 16) })).toEqual([]);
    expect(loadConfig({ ARGUS_SUPERVISOR_API_KEY: key }).apiKeySource).toBe('deployment_secret');
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.internal'])('is required on the network address %s (api_key_required)', (host) => {
    expect(linesOf({ HOST: host })).toEqual(['api_key_required: ARGUS_SUPERVISOR_API_KEY is required when HOST is not a loopback address']);
    expect(linesOf({ HOST: host, ARGUS_SUPERVISOR_API_KEY: key })).toEqual([]);
  });

  it.each(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'])('is optional on the loopback address %s', (host) => {
    expect(linesOf({ HOST: host })).toEqual([]);
  });

  it('is optional on a unix socket (file permissions guard it)', () => {
    expect(linesOf({ HOST: '0.0.0.0', ARGUS_SUPERVISOR_SOCKET: '/tmp/argus-test.sock' })).toEqual([]);
  });
});

describe('ARGUS_SUPERVISOR_ENABLED', () => {
  it.each(FLAG_ON_VALUES)('%s enables, and then needs a URL (a2a_url_required)', (value) => {
    expect(loadConfig({ ARGUS_SUPERVISOR_ENABLED: value, OPENTRAINING_A2A_URL: 'http://127.0.0.1:9/a2a' }).enabled).toBe(true);
    expect(linesOf({ ARGUS_SUPERVISOR_ENABLED: value })).toEqual(['a2a_url_required: ARGUS_SUPERVISOR_ENABLED is on but OPENTRAINING_A2A_URL is not set']);
  });

  it.each(['0', 'false', 'no', 'off', ''])('%o disables and needs no URL', (value) => {
    expect(loadConfig({ ARGUS_SUPERVISOR_ENABLED: value }).enabled).toBe(false);
  });

  it.each(['TRUE', 'enabled', '2'])('refuses %o rather than guess', (value) => {
    expect(codesOf({ ARGUS_SUPERVISOR_ENABLED: value })).toEqual(['config_invalid']);
  });
});

describe('OPENTRAINING_A2A_URL', () => {
  const secret = canary('url-secret');
  const hex = 'f'.repeat(8) + '0123456789abcdef0123456789abcdef';
  it.each([
    ['user info', `https://user:${secret}@host.example/a2a`],
    ['a user name alone', `https://${secret}@host.example/a2a`],
    ['a token query', `https://host.example/a2a?token=${secret}`],
    ['any query', `https://host.example/a2a?${secret}`],
    ['a fragment', `https://host.example/a2a#${secret}`],
    ['a /t-…/ segment', `https://host.example/t-${secret}/a2a`],
    ['a /T-…/ segment', `https://host.example/T-${secret}/a2a`],
    ['an encoded /T-…/ segment', `https://host.example/%54-${secret}/a2a`],
    ['a token-shaped segment', `https://host.example/${secret}/a2a`],
    ['a base64url-shaped segment', 'https://host.example/a2a/Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MA'],
    ['a long hex segment', `https://host.example/a2a/${hex}`],
    ['the token itself', `https://host.example/a2a/${secret.toLowerCase()}`],
  ])('is refused at start-up when it carries %s (a2a_url_credential), and by the client', (_name, url) => {
    const lines = linesOf({ OPENTRAINING_A2A_URL: url, OPENTRAINING_A2A_TOKEN: secret.toLowerCase() });
    expect(lines).toEqual(['a2a_url_credential: OPENTRAINING_A2A_URL must not embed a credential (use OPENTRAINING_A2A_TOKEN)']);
    expect(lines.join('\n')).not.toContain(secret);
    expect(parseBaseUrl(url, secret.toLowerCase()).ok).toBe(false);
  });

  it.each([
    'http://127.0.0.1:8080/a2a',
    'https://host.example/api/v1/opentraining-agent/',
    'https://host.example/agents/550e8400-e29b-41d4-a716-446655440000/a2a',
    'https://host.example/a2a/OpenTrainingAgent',
  ])('accepts the ordinary URL %s', (url) => {
    expect(linesOf({ OPENTRAINING_A2A_URL: url })).toEqual([]);
    expect(parseBaseUrl(url).ok).toBe(true);
  });

  it('says a2a_url_invalid for a URL that is not one, without echoing it', () => {
    expect(linesOf({ OPENTRAINING_A2A_URL: `not a url ${secret}` })).toEqual(['a2a_url_invalid: OPENTRAINING_A2A_URL is not a valid URL']);
    expect(codesOf({ OPENTRAINING_A2A_URL: 'ftp://host/a2a' })).toEqual(['a2a_url_invalid']);
  });
});

describe('LOG_LEVEL', () => {
  it('refuses an unknown level (log_level_invalid) and accepts the pino levels', () => {
    expect(linesOf({ LOG_LEVEL: 'loud' })).toEqual(['log_level_invalid: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent']);
    expect(loadConfig({ LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(loadConfig({}).logLevel).toBe('info');
  });
});

it('reports every problem at once, one coded line each', () => {
  expect(codesOf({ LOG_LEVEL: 'loud', HOST: '0.0.0.0', ARGUS_SUPERVISOR_ENABLED: '1' }).sort()).toEqual(['a2a_url_required', 'api_key_required', 'log_level_invalid']);
});
