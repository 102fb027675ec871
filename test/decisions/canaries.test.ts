/**
 * Our API key and the OpenTraining token never reach the Argus or the Foreman process. Both
 * are canaries (test/fixtures/canary.ts) set exactly where the supervisor reads them, and both
 * are also in the supervisor's own process environment. The flow pushes them towards the
 * models on every path we have: the remote echoes the token in its stage, status text and an
 * artifact id (the hand-written remote of scripted-remote.ts), and the operator puts both in
 * an answer to an Argus question. Then everything the children saw is searched: the
 * SIMULATED Argus's recorded environment, argv and cwd, every tool argument it received; the
 * SIMULATED Foreman's recorded environment, argv and stdin; and every captured log line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { decisionWorld } from './decision-world.js';
import { bindTask, sweeps, toolCalls, view } from './flow-helpers.js';
import { startScriptedRemote } from './scripted-remote.js';

const scope = createScope();
afterEach(() => scope.dispose());

/** Every form of a secret we look for: as is, lower/upper case, its random tail alone, base64. */
function forms(secret: string): string[] {
  const tail = secret.slice(secret.lastIndexOf('-') + 1);
  expect(tail).toMatch(/^[0-9a-f]{16}$/);
  return [secret, secret.toLowerCase(), secret.toUpperCase(), tail, Buffer.from(secret).toString('base64')];
}

function leaks(haystack: string, secrets: string[]): string[] {
  const lower = haystack.toLowerCase();
  return secrets.flatMap(forms).filter((f) => lower.includes(f.toLowerCase()));
}

describe('canaries never reach a decision runtime', () => {
  it('neither the API key nor the token reaches Argus or Foreman: env, argv, tool arguments, stdin, logs', async () => {
    const token = canary('flow-ot-token');
    const apiKey = canary('flow-api-key');
    const remote = scope.defer(await startScriptedRemote({ token }), (r) => r.close());
    const w = await decisionWorld(scope, { foreman: true, url: remote.base, token, apiKey });
    expect(w.env.OPENTRAINING_A2A_TOKEN).toBe(token);
    expect(w.env.ARGUS_SUPERVISOR_API_KEY).toBe(apiKey);
    w.writeForemanScript({ action: 'STEER_WORKER', reason: 'steer the attempt' });
    w.writeScript({ '*': { reply: 'pending_question', question: 'Which learning rate should the next attempt use?', verdict: 'complete' } });

    // The remote reflects our token everywhere it can (the objective stays clean here: see objective-secret.test.ts).
    const taskId = remote.addTask({ state: 'working', stage: `train ${token}`, statusText: `step 1 Bearer ${token} X-API-KEY: ${token}` });
    await bindTask(w, taskId, 'c1', 'train to 0.9 accuracy');
    await sweeps(w, 2);
    remote.set(taskId, { state: 'working', stage: `eval ${token}`, statusText: `checkpoint ${token}`, artifacts: [{ id: `ckpt-${token}`, name: `model-${token}.pt` }] });

    // Foreman runs, asks for Argus; Argus asks the operator; the operator answers with both secrets.
    await w.sweepUntil(() => view(w).pending_question?.source === 'argus');
    expect(await w.modelCalls('foreman')).toBe(1);
    // An answer that carries our secrets is refused at the edge: it never reaches the chart or Argus.
    const leaky = await w.act('c1', { action: 'answer', text: `use 1e-4; token ${token}, key ${apiKey}, KEY ${apiKey.toUpperCase()}` });
    expect(leaky).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(JSON.stringify(leaky)).not.toContain(token);
    expect(w.argusMessages()).toHaveLength(1);
    expect(view(w).pending_question?.source).toBe('argus');
    const answered = await w.act('c1', { action: 'answer', text: 'use 1e-4 and keep the checkpoint' });
    expect(answered.ok, JSON.stringify(answered)).toBe(true);
    await w.sweepUntil(() => view(w).decisions.last?.outcome === 'approved' && view(w).attention === 'idle');
    await sweeps(w, 2);

    // The flow really went through both runtimes and every Argus tool we use.
    const records = w.records();
    expect(records.filter((r) => r.type === 'start').length).toBeGreaterThanOrEqual(1);
    expect(toolCalls(w).map((r) => r.tool)).toEqual(expect.arrayContaining(['argus_project_create', 'argus_message', 'argus_status']));
    expect(w.argusMessages()).toHaveLength(2);
    expect(w.foremanRecords()).toHaveLength(1);
    // The redactions show the remote's echoes were there to leak, and were taken out.
    expect(w.argusMessages()[0]!.text).toContain('[REDACTED]');

    const secrets = [token, apiKey];
    for (const start of records.filter((r) => r.type === 'start')) {
      expect(Object.keys(start.env ?? {})).toEqual(expect.arrayContaining(['ARGUS_SKILL_HOME', 'PATH', 'HOME']));
      expect(leaks(JSON.stringify(start.env), secrets), 'Argus env').toEqual([]);
      expect(leaks(JSON.stringify(start.argv), secrets), 'Argus argv').toEqual([]);
      expect(start.env!.OPENTRAINING_A2A_TOKEN).toBeUndefined();
      expect(start.env!.ARGUS_SUPERVISOR_API_KEY).toBeUndefined();
    }
    for (const call of toolCalls(w)) expect(leaks(JSON.stringify(call.arguments), secrets), `${call.tool} arguments`).toEqual([]);
    expect(leaks(JSON.stringify(records), secrets), 'the whole Argus record').toEqual([]);

    for (const run of w.foremanRecords()) {
      expect(Object.keys(run.env)).toEqual(expect.arrayContaining(['PATH', 'HOME']));
      expect(run.stdin.length).toBeGreaterThan(100);
      expect(leaks(JSON.stringify(run.env), secrets), 'Foreman env').toEqual([]);
      expect(leaks(JSON.stringify(run.argv), secrets), 'Foreman argv').toEqual([]);
      expect(leaks(run.stdin, secrets), 'Foreman stdin').toEqual([]);
    }

    expect(w.logs.length).toBeGreaterThan(0);
    expect(w.logs.some((l) => l.includes('argus stderr'))).toBe(true);
    for (const line of w.logs) expect(leaks(line, secrets), `log line ${line.slice(0, 120)}`).toEqual([]);
  });
});
