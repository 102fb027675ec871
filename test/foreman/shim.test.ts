/**
 * runtime/foreman_shim.py cannot run here with the real foreman-core (not installable: no
 * Python package index). These tests run the real shim against the TEST STUB package
 * (test/fixtures/foreman_stub, see its README) on PYTHONPATH: they show the shim imports the
 * upstream names it was verified against, builds a consistent state, routes to the four checks
 * and prints the policy's selection. They do not show what upstream Foreman would decide.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildForemanEnv, buildForemanObservation, fakeForemanPath, foremanShimPath, runForeman, type ForemanCampaignFacts } from '../../adapters/foreman/index.js';
import { recordChildOutput, recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { attempt, facts, plainCap, PYTHON, STUB_PATH } from './helpers.js';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await scratchDir('argus-foreman-shim-');
});
afterAll(() => removeScratch(root));

/** One shim run in a fresh HOME holding the stub's scores; returns the outcome and the stub's call log. */
async function shim(input: Partial<ForemanCampaignFacts>, scores: Record<string, number | boolean> = {}, opts: { stub?: boolean; observation?: object } = {}) {
  const home = path.join(root, `home-${++n}`);
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, 'foreman-stub-scores.json'), JSON.stringify(scores));
  const outcome = await runForeman({
    python: PYTHON,
    shimPath: foremanShimPath(),
    observation: opts.observation ?? buildForemanObservation(facts(input), plainCap),
    env: buildForemanEnv({ home, path: process.env.PATH ?? '/usr/bin:/bin', secrets: [], extra: opts.stub === false ? {} : { PYTHONPATH: STUB_PATH } }),
    onChild: (child) => recordChildOutput(child, 'foreman-shim'),
  });
  const log = await readFile(path.join(home, 'foreman-stub-calls.jsonl'), 'utf8').catch(() => '');
  const calls = log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { call: string } & Record<string, unknown>);
  return { outcome, calls };
}

describe('runtime/foreman_shim.py', () => {
  it('compiles (python3 -m py_compile), as does the simulated Foreman', () => {
    // Byte code goes to the scratch folder, never next to the shipped files.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPYCACHEPREFIX: path.join(root, 'pycache') };
    for (const file of [foremanShimPath(), fakeForemanPath()]) {
      const out = recordSyncOutput('py-compile', { stdout: execFileSync(PYTHON, ['-m', 'py_compile', file], { encoding: 'utf8', env }), stderr: '' });
      expect(out.stdout).toBe('');
    }
    // And it really checks: a syntax error fails.
    let failed = false;
    try {
      execFileSync(PYTHON, ['-m', 'py_compile', path.join(STUB_PATH, 'README.md')], { encoding: 'utf8', env, stdio: 'pipe' });
    } catch (error) {
      recordSyncOutput('py-compile-bad', error as { stdout: string; stderr: string });
      failed = true;
    }
    expect(failed).toBe(true);
  });

  it('drives the upstream API in order: registry routed to the four checks, assess, evaluate, close', async () => {
    const { outcome, calls } = await shim({});
    expect(outcome).toEqual({ ok: true, value: { directive: 'START_WORKER', reason: 'work remains (stub)', confidence: null } });
    expect(calls.map((c) => c.call)).toEqual(['builtin_registry', 'routed', 'JevForemanModel', 'assess', 'close', 'evaluate']);
    expect(calls[1]).toMatchObject({ ids: ['core.human-escalation', 'core.worker-health', 'core.completion', 'core.verification'] });
    expect(calls[2]).toMatchObject({ timeout_seconds: 10, client: false });
    const checks = calls[3]?.checks as string[];
    expect(checks).toContain('core.human-escalation__needs_human');
    expect(checks.some((k) => k.startsWith('repository.instructions'))).toBe(false);
    expect(calls[5]).toMatchObject({ iteration: 1, active: [], workers: ['att-1'] });
  });

  it('prints the selected directive for each kind of evidence', async () => {
    const human = await shim({}, { 'core.human-escalation__needs_human': 0.95 });
    expect(human.outcome).toMatchObject({ ok: true, value: { directive: 'ESCALATE' } });

    const finish = { 'core.completion__ready_to_finish': 0.9, 'core.completion__requirements_satisfied': 0.9, 'core.verification__tests_sufficient': 0.9 };
    expect((await shim({}, finish)).outcome).toMatchObject({ ok: true, value: { directive: 'FINISH' } });

    const verify = { 'core.verification__needs_verification': 0.9, 'core.completion__implementation_complete': 0.9 };
    expect((await shim({}, verify)).outcome).toMatchObject({ ok: true, value: { directive: 'START_VERIFIER' } });
    // A verification already on record: no second verifier.
    expect((await shim({ evaluations: [{ attemptId: 'att-1', passed: true, summary: 'eval ok' }] }, verify)).outcome).toMatchObject({ ok: true, value: { directive: 'START_WORKER' } });

    const running = { attempts: [attempt({ status: 'running', exitCode: null })], activeAttemptIds: ['att-1'] };
    expect((await shim(running, { 'core.worker-health__worker_stuck': 0.9 })).outcome).toMatchObject({ ok: true, value: { directive: 'STOP_WORKER' } });
    expect((await shim(running, { 'repository.instructions__agents_md_drift': 0.99 })).outcome).toMatchObject({ ok: true, value: { directive: 'CONTINUE' } });

    const afterStop = await shim({ assessment: 2, previousDirective: { action: 'STOP_WORKER', reason: 'stuck' } });
    expect(afterStop.outcome).toMatchObject({ ok: true, value: { directive: 'RETRY_WORKER' } });
  });

  it('exits 3 (foreman_unavailable) when the upstream package is not importable', async () => {
    const { outcome, calls } = await shim({}, {}, { stub: false });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'foreman_unavailable' } });
    expect(calls).toEqual([]);
  });

  it('rejects an observation with a field upstream does not know (extra=forbid)', async () => {
    const observation = { ...buildForemanObservation(facts(), plainCap), epoch: 7 };
    const { outcome, calls } = await shim({}, {}, { observation });
    expect(outcome).toEqual({ ok: false, error: { code: 'foreman_failed', message: 'Foreman exited with status 2.' } });
    expect(calls.map((c) => c.call)).not.toContain('assess');
  });

  it('maps a failed assessment (ForemanModelError) to foreman_failed', async () => {
    const { outcome } = await shim({}, { raise: true });
    expect(outcome).toEqual({ ok: false, error: { code: 'foreman_failed', message: 'Foreman exited with status 1.' } });
  });
});
