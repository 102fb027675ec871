/** The decision settings of the configuration: budget, mission deadline, and a backend Argus knows. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../services/config/config.js';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.lines();
    throw e;
  }
  return [];
}

describe('decision configuration', () => {
  it('defaults: a 120 s decision budget, an 1800 s mission deadline, no backend (never inferred)', () => {
    const c = loadConfig({});
    expect(c.decisionBudgetSeconds).toBe(120);
    expect(c.missionDeadlineSeconds).toBe(1800);
    expect(c.backend).toBeNull();
  });

  it('takes values inside the bounds', () => {
    const c = loadConfig({ ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '30', ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: '600', ARGUS_SUPERVISOR_BACKEND: 'claude' });
    expect([c.decisionBudgetSeconds, c.missionDeadlineSeconds, c.backend]).toEqual([30, 600, 'claude']);
  });

  it.each([
    [{ ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '9' }, 'config_invalid: ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS must be a whole number from 10 to 1800'],
    [{ ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '1801' }, 'config_invalid: ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS must be a whole number from 10 to 1800'],
    [{ ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: '59' }, 'config_invalid: ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS must be a whole number from 60 to 86400'],
    [{ ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: 'soon' }, 'config_invalid: ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS must be a whole number from 60 to 86400'],
    [
      { ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '600', ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS: '300' },
      'config_invalid: ARGUS_SUPERVISOR_MISSION_DEADLINE_SECONDS must be at least ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS',
    ],
    [{ ARGUS_SUPERVISOR_BACKEND: 'gpt-please' }, 'config_invalid: ARGUS_SUPERVISOR_BACKEND must be one of codex, claude, copilot, opencode, pi, grok, qoder, dsh'],
    [{ ARGUS_SUPERVISOR_BACKEND: 'toString' }, 'config_invalid: ARGUS_SUPERVISOR_BACKEND must be one of codex, claude, copilot, opencode, pi, grok, qoder, dsh'],
  ])('refuses %o with one coded line that never echoes the value', (env, line) => {
    const problems = problemsOf(env);
    expect(problems).toEqual([line]);
  });
});
