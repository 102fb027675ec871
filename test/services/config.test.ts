import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../services/config/config.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';

const SECRET = canary('config-secret');

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.controllerId).toBe('argus-openoperator');
    expect(c.heartbeatSeconds).toBe(120);
    expect(c.leaseTtlSeconds).toBe(600);
    expect(c.enabled).toBe(false);
    expect(c.apiKeySource).toBe('missing');
    expect(c.listen).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 7860 });
  });

  it.each([
    [{ ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '59' }, 'ARGUS_SUPERVISOR_HEARTBEAT_SECONDS must be a whole number from 60'],
    [{ ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '3601' }, 'ARGUS_SUPERVISOR_LEASE_TTL_SECONDS must be a whole number from 60 to 3600'],
    [{ ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: 'ten' }, 'ARGUS_SUPERVISOR_LEASE_TTL_SECONDS'],
    [{ OPENTRAINING_A2A_URL: 'not a url' }, 'OPENTRAINING_A2A_URL is not a valid URL'],
    [{ ARGUS_SUPERVISOR_CONTROLLER_ID: 'has spaces' }, 'ARGUS_SUPERVISOR_CONTROLLER_ID'],
    [{ ARGUS_SUPERVISOR_STATE_ROOT: '/tmp/x', ARGUS_SUPERVISOR_ARGUS_HOME: '/etc' }, 'must be a folder under'],
  ])('rejects %o with one clear line', (env, expected) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it('refuses a URL that embeds a credential and never echoes it', () => {
    for (const url of [
      `https://user:${SECRET}@host/a2a`,
      `https://host/a2a?api_key=${SECRET}`,
      `https://host/a2a/t-${SECRET}/`,
    ]) {
      const problems = problemsOf({ OPENTRAINING_A2A_URL: url });
      expect(problems).toEqual(['OPENTRAINING_A2A_URL must not embed a credential (use OPENTRAINING_A2A_TOKEN)']);
      expect(problems.join('\n')).not.toContain(SECRET);
    }
  });

  it('reports every problem at once, one line each', () => {
    const problems = problemsOf({ PORT: '70000', ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '1' });
    expect(problems).toHaveLength(2);
  });

  it('records where the API key came from without exposing it', () => {
    const token = canary('config-remote-token');
    const c = loadConfig({ ARGUS_SUPERVISOR_API_KEY: SECRET, OPENTRAINING_A2A_TOKEN: token, ARGUS_SUPERVISOR_SOCKET: '/tmp/argus.sock' });
    expect(c.apiKeySource).toBe('deployment_secret');
    expect(c.listen).toEqual({ kind: 'unix', path: '/tmp/argus.sock' });
    // The real logger, given the whole configuration: the source is there, the secrets are not.
    const { logger, lines } = captureLogs('info');
    logger.info({ config: c }, 'configured');
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!) as { msg: string; config: Record<string, unknown> };
    // Compared as flags, so that a failure does not print the secret either.
    expect({
      msg: logged.msg,
      source: logged.config.apiKeySource,
      apiKeyRedacted: logged.config.apiKey === '[REDACTED]',
      tokenRedacted: logged.config.a2aToken === '[REDACTED]',
      leaked: lines[0]!.includes(SECRET) || lines[0]!.includes(token),
    }).toEqual({ msg: 'configured', source: 'deployment_secret', apiKeyRedacted: true, tokenRedacted: true, leaked: false });
  });
});

describe('lease TTL against the heartbeat', () => {
  it('refuses a lease the heartbeat could not renew in time', () => {
    expect(problemsOf({ ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '600', ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '600' })).toEqual([
      'ARGUS_SUPERVISOR_LEASE_TTL_SECONDS must be at least twice ARGUS_SUPERVISOR_HEARTBEAT_SECONDS so the heartbeat can renew it',
    ]);
    expect(problemsOf({ ARGUS_SUPERVISOR_HEARTBEAT_SECONDS: '300', ARGUS_SUPERVISOR_LEASE_TTL_SECONDS: '600' })).toEqual([]);
  });
});
