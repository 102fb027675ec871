/**
 * A Foreman child leads its own process group, and the run stops the group (issue 19, defect
 * 11): a stub "Foreman" starts a grandchild (`sleep 300`, sharing its stdout) and prints the
 * grandchild's pid on stderr. Whether the child hangs past the budget or answers and exits,
 * the grandchild must not outlive the run (before: reparented to PID 1, still running, and
 * holding the stdout pipe open so even a prompt answer became foreman_timeout).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildForemanEnv, foremanHome, runForeman } from '../../adapters/foreman/index.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { isRunning, reap, stopsRunning } from '../fixtures/process-tree.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { PYTHON } from './helpers.js';

let root: string;
const leftovers: number[] = [];
beforeAll(async () => {
  root = await scratchDir('argus-foreman-group-');
});
afterAll(async () => {
  leftovers.forEach(reap);
  await removeScratch(root);
});

/** A stub shim: starts `sleep 300` (inheriting stdout), reports its pid, then hangs or answers. */
async function stub(then: 'hang' | 'answer'): Promise<string> {
  const file = path.join(root, `stub-${then}.py`);
  await writeFile(
    file,
    [
      'import subprocess, sys, time',
      "g = subprocess.Popen(['sleep', '300'], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
      "sys.stderr.write('grandchild=%d\\n' % g.pid); sys.stderr.flush()",
      then === 'hang'
        ? 'time.sleep(60)'
        : 'sys.stdout.write(\'{"action":"CONTINUE","reason":"stub","confidence":null}\\n\'); sys.stdout.flush()',
      '',
    ].join('\n'),
  );
  return file;
}

async function runStub(then: 'hang' | 'answer', timeoutMs: number) {
  let stderr = '';
  const outcome = await runForeman({
    python: PYTHON,
    shimPath: await stub(then),
    observation: { kind: 'stub' },
    timeoutMs,
    env: buildForemanEnv({ home: foremanHome(root), path: process.env.PATH ?? '/usr/bin:/bin', secrets: [] }),
    onChild: (child) => {
      recordChildOutput(child, `foreman-group-${then}`);
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    },
  });
  const pid = Number(/grandchild=(\d+)/.exec(stderr)?.[1]);
  expect(Number.isSafeInteger(pid) && pid > 1, `the stub printed its grandchild's pid: ${JSON.stringify(stderr)}`).toBe(true);
  leftovers.push(pid);
  return { outcome, pid };
}

describe('a Foreman child and what it starts', () => {
  it('a hung child past its budget: foreman_timeout, and its grandchild is stopped with it', async () => {
    const { outcome, pid } = await runStub('hang', 1_500);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'foreman_timeout' } });
    expect(await stopsRunning(pid), `grandchild ${pid} still running`).toBe(true);
  });

  it('a child that answers and exits: its directive is read, and the grandchild it left is stopped', async () => {
    const { outcome, pid } = await runStub('answer', 10_000);
    expect(outcome).toEqual({ ok: true, value: { directive: 'CONTINUE', reason: 'stub', confidence: null } });
    expect(await stopsRunning(pid), `grandchild ${pid} still running`).toBe(true);
    expect(isRunning(pid)).toBe(false);
  });
});
