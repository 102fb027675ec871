/**
 * The availability matrix of the decision runtime, from configuration and files alone: no
 * child is started to find out (every fake interpreter here leaves a marker if run), and the
 * report names missing parts, never a path or a value.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeForemanPath } from '../../adapters/foreman/index.js';
import { ARGUS_SERVER_FILE, FOREMAN_PACKAGE_FILE } from '../../services/decisions/availability.js';
import { createDecisionRuntime, type DecisionRuntimeDeps } from '../../services/decisions/decision-runtime.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { decisionScratch, freshMetrics, modelCalls, ranMarker, type DecisionScratch } from './decision-fixture.js';

let s: DecisionScratch;
beforeEach(async () => {
  s = await decisionScratch();
});
afterEach(() => s.dispose());

const deps = (over: Partial<DecisionRuntimeDeps> = {}): DecisionRuntimeDeps => ({ metrics: freshMetrics(), env: { PATH: '/usr/bin:/bin' }, ...over });

describe('Argus availability', () => {
  it('no backend and no interpreter: all three parts missing, no bridge', () => {
    const rt = createDecisionRuntime(s.config(), deps());
    expect(rt.availability().argus).toEqual({ available: false, missing: ['backend', 'argus_python', 'argus_runtime'] });
    expect(rt.argus()).toBeNull();
  });

  it('a backend is required and never inferred, even with a complete Argus venv', () => {
    const { python, marker } = s.venv('venv-argus', [ARGUS_SERVER_FILE]);
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_ARGUS_PYTHON: python }), deps());
    expect(rt.availability().argus).toEqual({ available: false, missing: ['backend'] });
    expect(rt.argus()).toBeNull();
    expect(ranMarker(marker)).toBe(false);
  });

  it('an interpreter path that does not exist, or is not executable, is missing', () => {
    const absent = path.join(s.root, 'nowhere', 'bin', 'python');
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: absent }), deps());
    expect(rt.availability().argus).toEqual({ available: false, missing: ['argus_python', 'argus_runtime'] });
    expect(rt.argus()).toBeNull();

    const { python, marker } = s.venv('venv-noexec', [ARGUS_SERVER_FILE], 0o644);
    const noexec = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: python }), deps());
    expect(noexec.availability().argus.missing).toEqual(['argus_python']);
    expect(ranMarker(marker)).toBe(false);
  });

  it('an interpreter without the Argus MCP server beside it: argus_runtime missing', () => {
    const { python, marker } = s.venv('venv-empty');
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_BACKEND: 'claude', ARGUS_SUPERVISOR_ARGUS_PYTHON: python }), deps());
    expect(rt.availability().argus).toEqual({ available: false, missing: ['argus_runtime'] });
    expect(ranMarker(marker)).toBe(false);
  });

  it('all present: available, a bridge is handed out, and still nothing was started', async () => {
    const { python, marker } = s.venv('venv-argus', [ARGUS_SERVER_FILE]);
    const metrics = freshMetrics();
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: python }), deps({ metrics }));
    expect(rt.availability().argus).toEqual({ available: true, missing: [] });
    expect(rt.argus()).not.toBeNull();
    expect(rt.decisionBudgetMs).toBe(120_000);
    expect(rt.missionDeadlineMs).toBe(1_800_000);
    expect(ranMarker(marker)).toBe(false);
    expect(await modelCalls(metrics, 'argus')).toBe(0);
    await rt.close();
    // Closed: nothing is handed out any more.
    expect(rt.availability().argus.available).toBe(false);
    expect(rt.argus()).toBeNull();
  });

  it('a backend variable carrying one of our secrets: argus_runtime missing, logged by code, never the value', () => {
    const apiKey = canary('decisions-api-key');
    const { python } = s.venv('venv-argus', [ARGUS_SERVER_FILE]);
    const { logger, lines } = captureLogs();
    const rt = createDecisionRuntime(
      s.config({ ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: python, ARGUS_SUPERVISOR_API_KEY: apiKey }),
      deps({ logger, env: { PATH: '/usr/bin:/bin', OPENAI_API_KEY: apiKey } }),
    );
    expect(rt.availability().argus).toEqual({ available: false, missing: ['argus_runtime'] });
    expect(rt.argus()).toBeNull();
    expect(lines.join('')).toContain('secret_in_child_env');
    expect(lines.join('')).not.toContain(apiKey);
  });
});

describe('Foreman availability', () => {
  it('disabled: not enabled, not available, and what enabling it would lack is still listed', async () => {
    const rt = createDecisionRuntime(s.config(), deps());
    expect(rt.availability().foreman).toEqual({ enabled: false, available: false, missing: ['foreman_python', 'foreman_runtime'] });
    expect(await rt.assessForeman({})).toMatchObject({ ok: false, error: { code: 'foreman_disabled' } });
  });

  it('enabled with the real shim but no upstream package beside the interpreter: foreman_runtime missing, no child', async () => {
    const { python, marker } = s.venv('venv-foreman');
    const metrics = freshMetrics();
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: python }), deps({ metrics }));
    expect(rt.availability().foreman).toEqual({ enabled: true, available: false, missing: ['foreman_runtime'] });
    expect(await rt.assessForeman({})).toMatchObject({ ok: false, error: { code: 'foreman_unavailable' } });
    expect(ranMarker(marker)).toBe(false);
    expect(await modelCalls(metrics, 'foreman')).toBe(0);
  });

  it('enabled with interpreter, shim and upstream package: available', () => {
    const { python, marker } = s.venv('venv-foreman', [FOREMAN_PACKAGE_FILE]);
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: python }), deps());
    expect(rt.availability().foreman).toEqual({ enabled: true, available: true, missing: [] });
    expect(ranMarker(marker)).toBe(false);
  });

  it('a missing shim and a missing interpreter are each named', () => {
    const rt = createDecisionRuntime(
      s.config({ ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: path.join(s.root, 'no-python') }),
      deps({ simulatedForemanShim: path.join(s.root, 'no-shim.py') }),
    );
    expect(rt.availability().foreman).toEqual({ enabled: true, available: false, missing: ['foreman_python', 'foreman_shim'] });
  });

  it('the SIMULATED shim needs nothing but python', () => {
    const { python } = s.venv('venv-plain');
    const rt = createDecisionRuntime(s.config({ ARGUS_SUPERVISOR_FOREMAN_ENABLED: '1', ARGUS_SUPERVISOR_FOREMAN_PYTHON: python }), deps({ simulatedForemanShim: fakeForemanPath() }));
    expect(rt.availability().foreman).toEqual({ enabled: true, available: true, missing: [] });
  });
});
