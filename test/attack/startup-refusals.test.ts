// Attack: settings that issue 7 says must stop start-up, in forms the checks miss.
import { expect, it } from 'vitest';
import { loadConfig } from '../../services/config/config.js';
import { canary } from '../fixtures/canary.js';

const base = (extra: Record<string, string>) => ({ ARGUS_SUPERVISOR_STATE_ROOT: '/tmp/argus-attack-never-created', ...extra });
const codes = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    return (e as { issues?: { code: string }[] }).issues?.map((i) => i.code) ?? ['threw'];
  }
};

/** Sixteen zero-width spaces: long enough, invisible, and unsendable in an HTTP header. */
const ZERO_WIDTHS = '\u200b'.repeat(16);

it('an API key of 16 zero-width spaces (no client can send it) is refused as weak', () => {
  expect(codes(base({ ARGUS_SUPERVISOR_API_KEY: ZERO_WIDTHS }))).toContain('api_key_weak');
});

const apiKey = canary('startup-api-key');
for (const url of [
  'http://127.0.0.1:1/a2a/%2Ft-abcdef0123456789%2F', // a /t-<token>/ segment hidden behind encoded slashes
  'http://127.0.0.1:1/a2a;token=abcdef0123456789', // a matrix parameter
  'http://127.0.0.1:1/a2a/ghp_abcdefghijklmnopqrstuvwxyz0123456789', // lower-case token shape
  'http://127.0.0.1:1/a2a/token/abcdefghij0123456789klmnopqrst', // lower-case + digits, 30 chars
  'http://127.0.0.1:1/a2a/sk-abcdefghijklmnopqrstuvwx', // a well-known key prefix, no digits
  'http://127.0.0.1:1/a2a/%3Ftoken=abcdef', // a query hidden behind an encoded '?'
  'http://127.0.0.1:1/a2a/Bearer%20abcdef0123456789', // an authorization header in the path
]) {
  it(`a credential-shaped URL is refused at start-up: ${url.slice(22)}`, () => {
    expect(codes(base({ ARGUS_SUPERVISOR_ENABLED: '1', ARGUS_SUPERVISOR_API_KEY: apiKey, OPENTRAINING_A2A_URL: url }))).toContain('a2a_url_credential');
  });
}

// The checks must not refuse ordinary deployments: versions, dated names, UUIDs, words.
for (const url of [
  'http://127.0.0.1:1/a2a',
  'https://trainer.example/v1/agents/openTraining/a2a',
  'http://127.0.0.1:1/projects/run-2024-11-training-v2/a2a',
  'http://127.0.0.1:1/agents/3f2b9c1e-8a4d-4e6f-9b7a-1c2d3e4f5a6b/a2a',
]) {
  it(`an ordinary URL still starts: ${url}`, () => {
    expect(codes(base({ ARGUS_SUPERVISOR_ENABLED: '1', ARGUS_SUPERVISOR_API_KEY: apiKey, OPENTRAINING_A2A_URL: url }))).toEqual([]);
  });
}
