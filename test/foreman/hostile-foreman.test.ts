/**
 * A hostile tester's findings against the Foreman runner (issue 9): stdin had no last check,
 * so whatever object reached runForeman went to the child as is, and the env check was
 * case-sensitive. Each test failed before its fix.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildForemanEnv, fakeForemanPath, foremanHome, runForeman } from '../../adapters/foreman/index.js';
import { createDecisionRuntime } from '../../services/decisions/decision-runtime.js';
import { freshMetrics, modelCalls, decisionScratch, type DecisionScratch } from '../decisions/decision-fixture.js';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { PYTHON } from './helpers.js';

let root: string;
let home: string;
beforeAll(async () => {
  root = await scratchDir('argus-foreman-hostile-');
  home = foremanHome(root);
});
afterAll(() => removeScratch(root));

function attempt(observation: object, secrets: string[] = []) {
  const record = path.join(root, `record-${Math.random().toString(36).slice(2)}.jsonl`);
  let calls = 0;
  let children = 0;
  const outcome = runForeman({
    python: PYTHON,
    shimPath: fakeForemanPath(),
    observation,
    env: buildForemanEnv({ home, path: process.env.PATH ?? '/usr/bin:/bin', secrets, extra: { FAKE_FOREMAN_RECORD: record } }),
    onModelCall: () => calls++,
    onChild: (child) => (children++, recordChildOutput(child, 'fake-foreman-hostile')),
    secrets,
  });
  return { outcome, record, counts: () => ({ calls, children }) };
}

describe('runForeman refuses what no observation may be, before any child starts', () => {
  it('a secret in the stdin line, in any case: secret_in_observation, no child, no model call', async () => {
    const key = canary('attack-foreman-stdin');
    for (const variant of [key, key.toLowerCase(), key.toUpperCase()]) {
      const a = attempt({ run_id: 'camp-1', original_job: `train; ${variant}` }, [key]);
      expect(await a.outcome).toMatchObject({ ok: false, error: { code: 'secret_in_observation' } });
      expect(a.counts()).toEqual({ calls: 0, children: 0 });
      expect(existsSync(a.record)).toBe(false);
    }
  });

  it('a line past the stdin cap is observation_too_large; a cyclic object is observation_invalid; neither throws', async () => {
    const big = attempt({ run_id: 'camp-1', latest_worker_output: 'x'.repeat(200_000) });
    expect(await big.outcome).toMatchObject({ ok: false, error: { code: 'observation_too_large' } });
    expect(big.counts().children).toBe(0);
    const cyclic: Record<string, unknown> = { run_id: 'camp-1' };
    cyclic.self = cyclic;
    const loop = attempt(cyclic);
    expect(await loop.outcome).toMatchObject({ ok: false, error: { code: 'observation_invalid' } });
    expect(loop.counts().children).toBe(0);
  });

  it('buildForemanEnv refuses a case-changed secret', () => {
    const key = canary('attack-foreman-env');
    expect(() => buildForemanEnv({ home, path: '/usr/bin', secrets: [key], extra: { TYPESAFE_API_KEY: key.toLowerCase() } })).toThrow(expect.objectContaining({ code: 'secret_in_child_env' }));
  });
});

describe('the decision runtime passes our secrets to the stdin check', () => {
  let s: DecisionScratch;
  beforeAll(async () => {
    s = await decisionScratch();
  });
  afterAll(() => s.dispose());

  it('assessForeman with a raw object that carries the API key starts no child', async () => {
    const apiKey = canary('attack-assess-key');
    const supervisorEnv = { ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: PYTHON, ARGUS_SUPERVISOR_API_KEY: apiKey };
    const config = s.config(supervisorEnv);
    const metrics = freshMetrics();
    let children = 0;
    const rt = createDecisionRuntime(config, {
      metrics,
      env: { ...supervisorEnv, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      simulatedForemanShim: fakeForemanPath(),
      onForemanChild: (child) => (children++, recordChildOutput(child, 'decisions-fake-foreman-hostile')),
    });
    expect(rt.availability().foreman.available).toBe(true);
    expect(await rt.assessForeman({ run_id: 'camp-1', original_job: `echo ${apiKey.toLowerCase()}` })).toMatchObject({ ok: false, error: { code: 'secret_in_observation' } });
    expect(children).toBe(0);
    expect(await modelCalls(metrics, 'foreman')).toBe(0);
    expect(existsSync(path.join(foremanHome(config.stateRoot), 'fake-foreman-record.jsonl'))).toBe(false);
    await rt.close();
  });
});
