/**
 * Where Argus lives and what its child environment holds: the Argus home stays inside the
 * state root (as written and through symlinks), and the environment is exactly the documented
 * keys, never one of ours and never a value that carries a secret.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArgusConfigError, BACKEND_VARIABLES, buildArgusEnv, campaignWorkdir, resolveArgusHome } from '../../adapters/argus/index.js';
import { canary } from '../fixtures/canary.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(scratch.splice(0).map(removeScratch));
});
async function root(): Promise<string> {
  const dir = await scratchDir('argus-home-');
  scratch.push(dir);
  return dir;
}
const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof ArgusConfigError ? e.code : `not ArgusConfigError: ${String(e)}`;
  }
};

describe('resolveArgusHome', () => {
  it('defaults to <state root>/argus-home and accepts a path inside the state root', async () => {
    const r = await root();
    expect(resolveArgusHome(r)).toBe(path.join(r, 'argus-home'));
    expect(resolveArgusHome(r, '')).toBe(path.join(r, 'argus-home'));
    expect(resolveArgusHome(r, path.join(r, 'a', 'b'))).toBe(path.join(r, 'a', 'b'));
    expect(resolveArgusHome(r, 'rel/home')).toBe(path.join(r, 'rel', 'home'));
  });

  it('refuses a path outside the state root, a `..` escape and the state root itself', async () => {
    const r = await root();
    for (const configured of ['/etc', path.join(r, '..', 'elsewhere'), `${r}-sibling`, '../x', r, '.']) {
      expect(codeOf(() => resolveArgusHome(r, configured)), configured).toBe('argus_home_outside_state_root');
    }
  });

  it('refuses a symlink (the home itself, or a parent of a home not yet made) that leads outside', async () => {
    const r = await root();
    const outside = await root();
    symlinkSync(outside, path.join(r, 'link'));
    expect(codeOf(() => resolveArgusHome(r, 'link'))).toBe('argus_home_outside_state_root');
    expect(codeOf(() => resolveArgusHome(r, 'link/not-yet/home'))).toBe('argus_home_outside_state_root');
    mkdirSync(path.join(r, 'real'));
    symlinkSync(path.join(r, 'real'), path.join(r, 'inner-link'));
    expect(resolveArgusHome(r, 'inner-link')).toBe(path.join(r, 'inner-link'));
  });

  it('names each campaign workdir by its id and refuses ids that are not plain', () => {
    expect(campaignWorkdir('/h', 'camp-1')).toBe('/h/workspaces/camp-1');
    for (const bad of ['', '..', '.hidden', 'a/b', 'a b', 'x'.repeat(129)]) expect(codeOf(() => campaignWorkdir('/h', bad)), bad).toBe('invalid_campaign_id');
  });
});

describe('buildArgusEnv', () => {
  const base = { home: '/state/argus-home', path: '/usr/bin:/bin', backend: 'codex', secrets: [] as string[] };

  it('is exactly the documented keys, every SDK default (HOME LOGNAME PATH SHELL TERM USER) set by us', () => {
    expect(buildArgusEnv(base)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/state/argus-home/home',
      USER: 'argus',
      LOGNAME: 'argus',
      SHELL: '/bin/sh',
      TERM: 'dumb',
      ARGUS_SKILL_HOME: '/state/argus-home',
      ARGUS_SKILL_RUNNER_BACKEND: 'codex',
      ARGUS_SKILL_SAFE_MODE: '1',
    });
  });

  it('takes from extra only ARGUS_SKILL_* knobs (not the web token or chat bridges) and the backend’s own variables', () => {
    const backendValue = canary('backend-key');
    const env = buildArgusEnv({
      ...base,
      extra: {
        ARGUS_SKILL_MODEL: 'gpt-x',
        ARGUS_SKILL_MAX_ROUNDS: '3',
        ARGUS_SKILL_WEB_TOKEN: canary('web-token'),
        ARGUS_SKILL_WEB_ALLOW_INSECURE: '1',
        ARGUS_SKILL_ENABLE_TELEGRAM: '1',
        ARGUS_SKILL_ENABLE_FEISHU: '1',
        ARGUS_SKILL_HOME: '/elsewhere',
        ARGUS_SKILL_SAFE_MODE: '0',
        ARGUS_SKILL_RUNNER_BACKEND: 'claude',
        ARGUS_SUPERVISOR_API_KEY: canary('our-key'),
        ARGUS_SUPERVISOR_BACKEND: 'codex',
        OPENTRAINING_A2A_TOKEN: canary('our-token'),
        OPENAI_API_KEY: backendValue,
        ANTHROPIC_API_KEY: canary('other-backend'),
        CODEX_HOME: '/state/argus-home/codex',
        HOME: '/root',
        NODE_OPTIONS: '--inspect',
        ARGUS_SKILL_UNSET: undefined,
      },
    });
    expect(Object.keys(env).sort()).toEqual(
      ['ARGUS_SKILL_HOME', 'ARGUS_SKILL_MAX_ROUNDS', 'ARGUS_SKILL_MODEL', 'ARGUS_SKILL_RUNNER_BACKEND', 'ARGUS_SKILL_SAFE_MODE', 'CODEX_HOME', 'HOME', 'LOGNAME', 'OPENAI_API_KEY', 'PATH', 'SHELL', 'TERM', 'USER'].sort(),
    );
    expect(env).toMatchObject({ ARGUS_SKILL_HOME: '/state/argus-home', ARGUS_SKILL_SAFE_MODE: '1', ARGUS_SKILL_RUNNER_BACKEND: 'codex', HOME: '/state/argus-home/home', OPENAI_API_KEY: backendValue });
    expect(Object.keys(env).some((k) => k.startsWith('ARGUS_SUPERVISOR_'))).toBe(false);
  });

  it('gives each backend only its own variables', () => {
    const extra = { OPENAI_API_KEY: canary('openai'), ANTHROPIC_API_KEY: canary('anthropic'), CLAUDE_CONFIG_DIR: '/c' };
    expect(Object.keys(buildArgusEnv({ ...base, backend: 'claude', extra }))).toEqual(expect.arrayContaining(['ANTHROPIC_API_KEY', 'CLAUDE_CONFIG_DIR']));
    expect(buildArgusEnv({ ...base, backend: 'claude', extra }).OPENAI_API_KEY).toBeUndefined();
    expect(buildArgusEnv({ ...base, backend: 'pi', extra }).OPENAI_API_KEY).toBeUndefined();
    expect(Object.keys(BACKEND_VARIABLES).sort()).toEqual(['claude', 'codex', 'copilot', 'dsh', 'grok', 'opencode', 'pi', 'qoder']);
  });

  it('refuses an unknown backend rather than guessing one', () => {
    expect(codeOf(() => buildArgusEnv({ ...base, backend: '' }))).toBe('argus_backend_unknown');
    expect(codeOf(() => buildArgusEnv({ ...base, backend: 'toString' }))).toBe('argus_backend_unknown');
  });

  it('throws secret_in_child_env when any value would carry one of our secrets', () => {
    const apiKey = canary('api-key');
    const otToken = canary('ot-token');
    const secrets = [apiKey, otToken];
    expect(codeOf(() => buildArgusEnv({ ...base, secrets, extra: { OPENAI_API_KEY: apiKey } }))).toBe('secret_in_child_env');
    expect(codeOf(() => buildArgusEnv({ ...base, secrets, extra: { ARGUS_SKILL_MODEL: `x${otToken}x` } }))).toBe('secret_in_child_env');
    expect(codeOf(() => buildArgusEnv({ ...base, secrets, path: `/bin:${otToken}` }))).toBe('secret_in_child_env');
    expect(codeOf(() => buildArgusEnv({ ...base, secrets, home: `/s/${apiKey}` }))).toBe('secret_in_child_env');
    expect(codeOf(() => buildArgusEnv({ ...base, secrets, extra: { ARGUS_SUPERVISOR_API_KEY: apiKey } }))).toBeNull(); // never copied, so nothing to refuse
  });
});
