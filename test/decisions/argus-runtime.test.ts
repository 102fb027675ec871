/**
 * The decision runtime's Argus bridge built from the supervisor's config, against the
 * SIMULATED Argus MCP server as a real child over real stdio (ARGUS_SUPERVISOR_ARGUS_PYTHON =
 * this node binary, the fake's script instead of `-m argus_skill.plugin.mcp_server`). Our API
 * key and the OpenTraining token are canaries set exactly where the supervisor reads them
 * (config and the process environment); neither may reach the child's environment, argv or
 * any tool argument, and model_calls{runtime="argus"} counts argus_message calls and nothing else.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { campaignWorkdir } from '../../adapters/argus/index.js';
import { createDecisionRuntime, type DecisionRuntime } from '../../services/decisions/decision-runtime.js';
import { FAKE_ARGUS_MAIN } from '../argus/fake-argus-fixture.js';
import { canary } from '../fixtures/canary.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { decisionScratch, freshMetrics, modelCalls, type DecisionScratch } from './decision-fixture.js';

let s: DecisionScratch;
let rt: DecisionRuntime | null = null;
beforeEach(async () => {
  s = await decisionScratch();
});
afterEach(async () => {
  await rt?.close();
  rt = null;
  await s.dispose();
});

const records = (home: string) =>
  readFileSync(path.join(home, 'fake-argus-record.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; argv?: string[]; env?: Record<string, string>; tool?: string; arguments?: Record<string, unknown> });

describe('the Argus bridge the decision runtime builds (SIMULATED Argus)', () => {
  it('keeps our API key and the OpenTraining token out of the child, and counts only argus_message', async () => {
    const apiKey = canary('decisions-our-key');
    const token = canary('decisions-ot-token');
    const supervisorEnv = {
      ARGUS_SUPERVISOR_BACKEND: 'codex',
      ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath,
      ARGUS_SUPERVISOR_API_KEY: apiKey,
      OPENTRAINING_A2A_TOKEN: token,
      ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '15',
    };
    const config = s.config(supervisorEnv);
    const metrics = freshMetrics();
    const { logger, lines } = captureLogs();
    // The process environment the supervisor runs in holds both secrets too: nothing of it is copied but what Argus needs.
    const env = { ...supervisorEnv, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root', ARGUS_SKILL_MODEL: 'sim-model', NODE_OPTIONS: '--inspect' };
    rt = createDecisionRuntime(config, { metrics, logger, env, simulatedArgusServer: FAKE_ARGUS_MAIN });
    expect(rt.availability().argus).toEqual({ available: true, missing: [] });
    const bridge = rt.argus();
    if (!bridge || !rt.argusHome) throw new Error('no bridge');
    const home = rt.argusHome;
    expect(home).toBe(path.join(config.stateRoot, 'argus-home'));

    const workdir = campaignWorkdir(home, 'camp-1');
    mkdirSync(workdir, { recursive: true });
    const created = await bridge.createProject(workdir, 'camp-1');
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.projectId;
    expect((await bridge.status(id)).ok).toBe(true);
    expect(await modelCalls(metrics, 'argus')).toBe(0); // project creation and status reads are not model calls

    const turn = await bridge.message(id, 'Fixed instructions.\nEVENT_KEY: camp-1:ev:1\nDecision contract.\n');
    expect(turn).toMatchObject({ ok: true, value: { kind: 'task' } });
    expect(await modelCalls(metrics, 'argus')).toBe(1);
    expect(await bridge.message(id, 'How is it going?')).toMatchObject({ ok: true, value: { kind: 'chat' } });
    expect(await modelCalls(metrics, 'argus')).toBe(2);
    const settled = await bridge.status(id);
    expect(settled.ok && settled.value.journal.map((j) => j.kind)).toEqual(['mission_started', 'mission_complete']);
    expect((await bridge.stop(id)).ok).toBe(true);
    expect(await modelCalls(metrics, 'argus')).toBe(2); // neither the settling status read nor the stop counts

    // A turn that would carry a secret is refused before it is sent: not sent, so not counted.
    expect(await bridge.message(id, `please use ${token}`)).toMatchObject({ ok: false, error: { code: 'secret_in_argument' } });
    expect(await bridge.createProject(`${workdir}/${apiKey}`, 'x')).toMatchObject({ ok: false, error: { code: 'secret_in_argument' } });
    expect(await modelCalls(metrics, 'argus')).toBe(2);
    expect(await modelCalls(metrics, 'foreman')).toBe(0);

    const recorded = records(home);
    const starts = recorded.filter((r) => r.type === 'start');
    expect(starts).toHaveLength(1);
    const childEnv = starts[0]!.env!;
    // Nothing of ours and nothing outside buildArgusEnv's allow-list; HOME is Argus's, not the operator's.
    expect(Object.keys(childEnv).filter((k) => k.startsWith('ARGUS_SUPERVISOR_') || k.startsWith('OPENTRAINING_') || k === 'NODE_OPTIONS')).toEqual([]);
    expect(childEnv).toMatchObject({ HOME: path.join(home, 'home'), USER: 'argus', ARGUS_SKILL_HOME: home, ARGUS_SKILL_RUNNER_BACKEND: 'codex', ARGUS_SKILL_SAFE_MODE: '1', ARGUS_SKILL_MODEL: 'sim-model' });
    expect(starts[0]!.argv!.slice(1)).toEqual([FAKE_ARGUS_MAIN]);
    const calls = recorded.filter((r) => r.type === 'call');
    expect(calls.map((c) => c.tool)).toEqual(['argus_project_create', 'argus_status', 'argus_message', 'argus_message', 'argus_status', 'argus_stop']);
    expect(calls.filter((c) => c.tool === 'argus_message')).toHaveLength(await modelCalls(metrics, 'argus'));
    // Nowhere in what the child saw (env, argv, every tool argument), nor in our logs.
    const whole = readFileSync(path.join(home, 'fake-argus-record.jsonl'), 'utf8');
    for (const secret of [apiKey, token]) {
      expect(whole).not.toContain(secret);
      expect(lines.join('')).not.toContain(secret);
    }
  });

  it('the decision budget from config bounds each call (a hung turn is abandoned as argus_timeout, counted once)', async () => {
    const config = s.config({ ARGUS_SUPERVISOR_BACKEND: 'codex', ARGUS_SUPERVISOR_ARGUS_PYTHON: process.execPath, ARGUS_SUPERVISOR_DECISION_BUDGET_SECONDS: '10' });
    const metrics = freshMetrics();
    rt = createDecisionRuntime(config, { metrics, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, simulatedArgusServer: FAKE_ARGUS_MAIN });
    expect(rt.decisionBudgetMs).toBe(10_000);
    const bridge = rt.argus();
    if (!bridge || !rt.argusHome) throw new Error('no bridge');
    const workdir = campaignWorkdir(rt.argusHome, 'camp-2');
    mkdirSync(workdir, { recursive: true });
    writeFileSync(path.join(rt.argusHome, 'fake-argus-script.json'), JSON.stringify({ 'camp-2:hang': { hangMs: 60_000 } }));
    const created = await bridge.createProject(workdir, 'camp-2');
    if (!created.ok) throw new Error(created.error.message);
    const started = Date.now();
    const turn = await bridge.message(created.value.projectId, 'EVENT_KEY: camp-2:hang:1\n');
    const took = Date.now() - started;
    expect(turn).toMatchObject({ ok: false, error: { code: 'argus_timeout' } });
    expect(took).toBeGreaterThanOrEqual(9_500);
    expect(took).toBeLessThan(20_000);
    expect(await modelCalls(metrics, 'argus')).toBe(1);
  }, 30_000);
});
