/**
 * The decision runtime's Foreman runner built from the supervisor's config, against the
 * SIMULATED Foreman (simulator/foreman/fake_foreman.py) under real python: one model call per
 * assessment, and neither of our secrets in the child's environment, argv or stdin.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildForemanObservation, fakeForemanPath, foremanHome } from '../../adapters/foreman/index.js';
import { createDecisionRuntime } from '../../services/decisions/decision-runtime.js';
import { attempt, facts, plainCap, PYTHON } from '../foreman/helpers.js';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { decisionScratch, freshMetrics, modelCalls, type DecisionScratch } from './decision-fixture.js';

let s: DecisionScratch;
beforeEach(async () => {
  s = await decisionScratch();
});
afterEach(() => s.dispose());

describe('the Foreman runner the decision runtime builds (SIMULATED Foreman)', () => {
  it('runs one child per assessment, counts each, and passes none of our secrets', async () => {
    const apiKey = canary('decisions-foreman-key');
    const token = canary('decisions-foreman-token');
    const supervisorEnv = { ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: PYTHON, ARGUS_SUPERVISOR_API_KEY: apiKey, OPENTRAINING_A2A_TOKEN: token };
    const config = s.config(supervisorEnv);
    const metrics = freshMetrics();
    const rt = createDecisionRuntime(config, {
      metrics,
      env: { ...supervisorEnv, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      simulatedForemanShim: fakeForemanPath(),
      onForemanChild: (child) => recordChildOutput(child, 'decisions-fake-foreman'),
    });
    expect(rt.availability().foreman).toEqual({ enabled: true, available: true, missing: [] });
    const running = buildForemanObservation(facts({ attempts: [attempt({ status: 'running', exitCode: null })], activeAttemptIds: ['att-1'] }), plainCap);
    expect(await rt.assessForeman(running)).toMatchObject({ ok: true, value: { directive: 'CONTINUE' } });
    expect(await rt.assessForeman(buildForemanObservation(facts({ attempts: [attempt({ status: 'failed', exitCode: 1 })] }), plainCap))).toMatchObject({ ok: true, value: { directive: 'RETRY_WORKER' } });
    expect(await modelCalls(metrics, 'foreman')).toBe(2);
    expect(await modelCalls(metrics, 'argus')).toBe(0);

    const record = readFileSync(path.join(foremanHome(config.stateRoot), 'fake-foreman-record.jsonl'), 'utf8');
    const runs = record.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { env: Record<string, string>; argv: string[] });
    expect(runs).toHaveLength(2);
    expect(Object.keys(runs[0]!.env).filter((k) => k.startsWith('ARGUS_SUPERVISOR_') || k.startsWith('OPENTRAINING_'))).toEqual([]);
    for (const secret of [apiKey, token]) expect(record).not.toContain(secret);
  });
});
