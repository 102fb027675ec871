/**
 * runForeman against the SIMULATED Foreman (simulator/foreman/fake_foreman.py): real python
 * children over real pipes; every child's output is recorded for the canary scan.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeRemoteText } from '../../adapters/a2a/sanitize.js';
import { buildForemanEnv, buildForemanObservation, fakeForemanPath, foremanHome, ForemanConfigError, runForeman, type RunForemanOptions } from '../../adapters/foreman/index.js';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { attempt, facts, plainCap, PYTHON } from './helpers.js';

let root: string;
let home: string;
beforeAll(async () => {
  root = await scratchDir('argus-foreman-run-');
  home = foremanHome(root);
});
afterAll(() => removeScratch(root));

async function run(over: Partial<RunForemanOptions> & { script?: object; extra?: Record<string, string> } = {}) {
  const extra: Record<string, string> = { ...over.extra };
  if (over.script) {
    const file = path.join(root, `script-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(over.script));
    extra.FAKE_FOREMAN_SCRIPT = file;
  }
  let calls = 0;
  const outcome = await runForeman({
    python: PYTHON,
    shimPath: fakeForemanPath(),
    observation: buildForemanObservation(facts(), plainCap),
    env: buildForemanEnv({ home, path: process.env.PATH ?? '/usr/bin:/bin', secrets: [], extra }),
    onModelCall: () => calls++,
    onChild: (child) => recordChildOutput(child, 'fake-foreman'),
    ...over,
  });
  return { outcome, calls };
}

describe('runForeman (simulated Foreman)', () => {
  it('returns the directive the observation calls for, and counts one model call', async () => {
    const { outcome, calls } = await run();
    expect(outcome).toEqual({ ok: true, value: { directive: 'START_VERIFIER', reason: 'SIMULATED: attempts succeeded; verification is warranted', confidence: null } });
    expect(calls).toBe(1);
    const cont = await run({ observation: buildForemanObservation(facts({ attempts: [attempt({ status: 'running', exitCode: null })], activeAttemptIds: ['att-1'] }), plainCap) });
    expect(cont.outcome).toMatchObject({ ok: true, value: { directive: 'CONTINUE' } });
    const retry = await run({ observation: buildForemanObservation(facts({ attempts: [attempt({ status: 'failed', exitCode: 1 })] }), plainCap) });
    expect(retry.outcome).toMatchObject({ ok: true, value: { directive: 'RETRY_WORKER' } });
  });

  it('kills a child past its budget with SIGKILL: foreman_timeout, no second call', async () => {
    const started = Date.now();
    let pid: number | undefined;
    let signal: string | null = null;
    const { outcome, calls } = await run({
      timeoutMs: 400,
      script: { action: 'CONTINUE', sleepMs: 20_000 },
      onChild: (child) => {
        pid = child.pid;
        recordChildOutput(child, 'fake-foreman-slow');
        child.on('exit', (_code, sig) => (signal = sig));
      },
    });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'foreman_timeout' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(calls).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(signal).toBe('SIGKILL');
    expect(() => process.kill(pid as number, 0)).toThrow();
  });

  it('maps a missing interpreter or a missing upstream package to foreman_unavailable', async () => {
    const missing = await run({ python: path.join(root, 'no-such-python') });
    expect(missing.outcome).toMatchObject({ ok: false, error: { code: 'foreman_unavailable' } });
    expect(missing.calls).toBe(0);
    const noPackage = await run({ script: { exitCode: 3 } });
    expect(noPackage.outcome).toMatchObject({ ok: false, error: { code: 'foreman_unavailable' } });
  });

  it('rejects anything but one known directive line: foreman_bad_output', async () => {
    for (const stdout of ['not json\n', '{"action":"DEPLOY","reason":"x","confidence":null}\n', '{"action":"FINISH","reason":"x","confidence":null,"epoch":3}\n', '{"action":"FINISH","reason":"a","confidence":null}\n{"action":"FINISH","reason":"b","confidence":null}\n', '', '{"action":"FINISH","reason":"x","confidence":7}\n']) {
      const { outcome } = await run({ script: { stdout } });
      expect(outcome, stdout).toMatchObject({ ok: false, error: { code: 'foreman_bad_output' } });
    }
    const flood = await run({ script: { stdout: 'y'.repeat(200_000) } });
    expect(flood.outcome).toMatchObject({ ok: false, error: { code: 'foreman_bad_output', message: expect.stringContaining('65536') } });
  });

  it('maps a non-zero exit to foreman_failed without echoing the child', async () => {
    const { outcome } = await run({ script: { action: 'FINISH', exitCode: 5 } });
    expect(outcome).toEqual({ ok: false, error: { code: 'foreman_failed', message: 'Foreman exited with status 5.' } });
  });

  it('keeps the reason short and printable', async () => {
    const { outcome } = await run({ script: { action: 'ESCALATE', reason: `\u001b[31m${'z'.repeat(3_000)}`, confidence: 0.9 } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.value.directive).toBe('ESCALATE');
    expect(outcome.value.confidence).toBe(0.9);
    expect(outcome.value.reason.length).toBeLessThanOrEqual(300);
    expect(outcome.value.reason).not.toContain('\u001b');
  });
});

describe('the secret never reaches Foreman', () => {
  it('neither env, argv nor stdin of the child carries the API key or the remote token', async () => {
    const apiKey = canary('foreman-api-key');
    const remoteToken = canary('foreman-remote-token');
    const secrets = [apiKey, remoteToken];
    // The supervisor's own environment holds both: the child must not inherit it.
    process.env.ARGUS_SUPERVISOR_API_KEY = apiKey;
    process.env.OPENTRAINING_A2A_TOKEN = remoteToken;
    try {
      const record = path.join(root, 'canary-record.jsonl');
      const hostile = `status ok; Authorization: Bearer ${remoteToken} key=${apiKey}`;
      const sanitize = (text: string, cap: number) => sanitizeRemoteText(text, secrets, cap);
      const observation = buildForemanObservation(facts({ objective: hostile, latestStatusText: hostile, attempts: [attempt({ outputTail: hostile })], failures: [hostile] }), sanitize);
      const { outcome } = await run({ observation, env: buildForemanEnv({ home, path: process.env.PATH ?? '/usr/bin:/bin', secrets, extra: { FAKE_FOREMAN_RECORD: record } }) });
      expect(outcome.ok).toBe(true);
      const recorded = await readFile(record, 'utf8');
      const entry = JSON.parse(recorded.trim()) as { argv: string[]; env: Record<string, string>; stdin: string };
      expect(entry.stdin.length).toBeGreaterThan(100); // the record really holds the observation
      // Exactly what buildForemanEnv made (LC_CTYPE aside: Python's PEP 538 locale coercion may add it itself).
      expect(Object.keys(entry.env).filter((k) => k !== 'LC_CTYPE').sort()).toEqual(['FAKE_FOREMAN_RECORD', 'HOME', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'PYTHONNOUSERSITE']);
      expect(Object.keys(entry.env).filter((k) => k.startsWith('ARGUS_SUPERVISOR') || k.startsWith('OPENTRAINING'))).toEqual([]);
      expect(entry.env.HOME).toBe(home);
      for (const secret of secrets) {
        expect(recorded).not.toContain(secret);
        expect(recorded.toLowerCase()).not.toContain(secret.toLowerCase());
      }
    } finally {
      delete process.env.ARGUS_SUPERVISOR_API_KEY;
      delete process.env.OPENTRAINING_A2A_TOKEN;
    }
  });

  it('buildForemanEnv refuses a secret in any value and any variable off the allow-list', () => {
    const key = canary('foreman-env-key');
    const base = { home, path: '/usr/bin:/bin', secrets: [key] };
    const jevKey = `x${key}`; // Foreman's own credential slot, holding one of ours
    expect(() => buildForemanEnv({ ...base, extra: { TYPESAFE_API_KEY: jevKey } })).toThrow(ForemanConfigError);
    expect(() => buildForemanEnv({ ...base, path: `/opt/${key}/bin` })).toThrow(/secret/);
    const offList = canary('foreman-off-list');
    expect(() => buildForemanEnv({ ...base, extra: { ARGUS_SUPERVISOR_API_KEY: offList } })).toThrow(/allow-list/);
    expect(() => buildForemanEnv({ ...base, home: 'relative/home' })).toThrow(/absolute/);
    expect(buildForemanEnv(base)).toEqual({ PATH: '/usr/bin:/bin', HOME: home, PYTHONDONTWRITEBYTECODE: '1', PYTHONNOUSERSITE: '1', PYTHONIOENCODING: 'utf-8' });
  });
});
