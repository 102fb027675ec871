import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeForemanPath, foremanShimPath, packageRoot } from '../../adapters/foreman/index.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { REPO_ROOT } from './helpers.js';

type Pin = { venv: string; package: string; version: string; source: string; commit: string };
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'runtime', 'source-lock.json'), 'utf8')) as { argus: Pin; foreman: Pin & { seed: { requested: string; found: boolean } } };

describe('runtime/source-lock.json and the install scripts', () => {
  it('pins Argus and Foreman as verified', () => {
    expect(lock.argus).toMatchObject({ venv: '/opt/venv-argus', package: 'argus-skill', version: '0.1.2', source: 'github:microsoft/ArgusAgent', commit: '455da6cb2fe10e9fbaeab5126f2f3b363237cf57' });
    expect(lock.foreman).toMatchObject({ venv: '/opt/venv-foreman', package: 'foreman-core', version: '0.4.3', source: 'github:thruwire/foreman' });
    expect(lock.foreman.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(lock.foreman.seed).toMatchObject({ requested: 'JsonLord/foreman-supervisor', found: false });
  });

  for (const [name, pin] of [['argus', lock.argus], ['foreman', lock.foreman]] as const) {
    it(`install-${name}.sh parses (bash -n), plans from the lock's pins, and refuses outside the image build`, () => {
      const script = path.join(REPO_ROOT, 'runtime', `install-${name}.sh`);
      recordSyncOutput(`bash-n-${name}`, { stdout: execFileSync('bash', ['-n', script], { encoding: 'utf8' }), stderr: '' });
      const plan = recordSyncOutput(`plan-${name}`, { stdout: execFileSync('bash', [script, '--plan'], { encoding: 'utf8' }), stderr: '' }).stdout;
      expect(plan).toBe(`venv=${pin.venv}\nspec=${pin.package} @ https://github.com/${pin.source.slice('github:'.length)}/archive/${pin.commit}.tar.gz\nversion=${pin.version}\n`);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
      let status = 0;
      let stderr = '';
      try {
        execFileSync('bash', [script], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (error) {
        const e = error as { status: number; stderr: string; stdout: string };
        recordSyncOutput(`refuse-${name}`, e);
        status = e.status;
        stderr = e.stderr;
      }
      expect(status).toBe(2);
      expect(stderr).toContain('container build');
      const commands = readFileSync(script, 'utf8').split('\n').filter((l) => !l.trimStart().startsWith('#'));
      expect(commands.filter((l) => /\bsudo\b/.test(l))).toEqual([]);
    });
  }

  it('install-runtime.sh (what both call) parses, refuses a runtime it does not know, and has no sudo', () => {
    const script = path.join(REPO_ROOT, 'runtime', 'install-runtime.sh');
    recordSyncOutput('bash-n-runtime', { stdout: execFileSync('bash', ['-n', script], { encoding: 'utf8' }), stderr: '' });
    let status = 0;
    let stderr = '';
    try {
      execFileSync('bash', [script, 'pip', '--plan'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { status: number; stderr: string; stdout: string };
      recordSyncOutput('unknown-runtime', e);
      status = e.status;
      stderr = e.stderr;
    }
    expect([status, stderr.trim()]).toEqual([2, 'usage: install-runtime.sh argus|foreman [--plan]']);
    const commands = readFileSync(script, 'utf8').split('\n').filter((l) => !l.trimStart().startsWith('#'));
    expect(commands.filter((l) => /\bsudo\b/.test(l))).toEqual([]);
  });

  it('the Python files resolve from the package root, which package.json ships', () => {
    expect(packageRoot()).toBe(REPO_ROOT);
    // dist/adapters/foreman/index.js resolves to the same root.
    expect(packageRoot(path.join(REPO_ROOT, 'dist', 'adapters', 'foreman'))).toBe(REPO_ROOT);
    expect(existsSync(foremanShimPath())).toBe(true);
    expect(existsSync(fakeForemanPath())).toBe(true);
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'runtime', 'simulator/foreman/*.py']));
  });
});
