/**
 * The Argus MCP child leads its own process group, and closing the bridge stops the group
 * (issue 19, defect 11): a stub child starts a grandchild (`sleep 300`, sharing its stdout),
 * reports the pid on stderr, then serves MCP as the SIMULATED Argus. After `close()` the
 * grandchild must be gone (before: the SDK's transport signalled the child alone, and the
 * grandchild was reparented to PID 1 and kept running). The MCP session itself still works
 * over the pipes, and a child that dies on its own takes its grandchild along.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, reap, stopsRunning } from '../fixtures/process-tree.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { FAKE_ARGUS_MAIN, fakeArgus, until, type FakeFixture } from './fake-argus-fixture.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const fixtures: FakeFixture[] = [];
const leftovers: number[] = [];
afterEach(async () => {
  leftovers.splice(0).forEach(reap);
  await Promise.all(fixtures.splice(0).map((f) => f.dispose()));
});

/** A fixture whose bridge starts the stub: grandchild first, then the simulated Argus. */
async function withGrandchild() {
  const f = await fakeArgus();
  fixtures.push(f);
  const stub = path.join(f.stateRoot, 'argus-with-grandchild.mjs');
  await writeFile(
    stub,
    [
      "import { spawn } from 'node:child_process';",
      "const g = spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] });",
      'process.stderr.write(`grandchild=${g.pid}\\n`);',
      'await import(process.argv[2]);',
      '',
    ].join('\n'),
  );
  const bridge = f.newBridge({ args: [stub, FAKE_ARGUS_MAIN] });
  const created = await bridge.createProject(f.workdir, 'camp-1');
  expect(created.ok, JSON.stringify(created)).toBe(true);
  await until(() => f.logs.some((l) => /grandchild=\d+/.test(l)));
  const pid = Number(/grandchild=(\d+)/.exec(f.logs.find((l) => /grandchild=\d+/.test(l))!)![1]);
  leftovers.push(pid);
  expect(isRunning(pid)).toBe(true);
  const leader = f.records().find((r) => r.type === 'start')?.pid as number;
  return { f, bridge, pid, leader, projectId: created.ok ? created.value.projectId : '' };
}

describe('the Argus child and what it starts', () => {
  it('close() stops the child and its grandchild; the MCP session worked over the pipes until then', async () => {
    const { bridge, pid, leader, projectId } = await withGrandchild();
    expect((await bridge.status(projectId)).ok).toBe(true);
    await bridge.close();
    expect(await stopsRunning(leader), `child ${leader} still running`).toBe(true);
    expect(await stopsRunning(pid), `grandchild ${pid} still running`).toBe(true);
  });

  it('a child that dies on its own takes its grandchild along, and the next call starts a fresh child', async () => {
    const { f, bridge, pid, leader, projectId } = await withGrandchild();
    process.kill(leader, 'SIGKILL');
    expect(await stopsRunning(pid), `grandchild ${pid} still running`).toBe(true);
    await until(() => f.logs.includes('argus child exited'));
    expect((await bridge.status(projectId)).ok).toBe(true);
    await bridge.close();
  });

  it('a detached child still leaves when the supervisor dies: SIGKILL to the process holding the bridge, and the child sees EOF and exits', async () => {
    const f = await fakeArgus();
    fixtures.push(f);
    const bridgeModule = pathToFileURL(path.join(REPO_ROOT, 'dist/adapters/argus/index.js')).href;
    const script = [
      `const { createArgusBridge } = await import(${JSON.stringify(bridgeModule)});`,
      `const b = createArgusBridge({ command: process.execPath, args: [${JSON.stringify(FAKE_ARGUS_MAIN)}], env: ${JSON.stringify(f.env)}, cwd: ${JSON.stringify(f.home)}, callTimeoutMs: 10000 });`,
      `const r = await b.createProject(${JSON.stringify(f.workdir)}, 'camp-1');`,
      "process.stdout.write(r.ok ? 'ready\\n' : 'failed\\n');",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const holder = recordChildOutput(spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] }), 'argus-bridge-holder');
    let out = '';
    holder.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => out.includes('ready') || out.includes('failed'), 10_000);
    expect(out).toContain('ready');
    const leader = f.records().find((r) => r.type === 'start')?.pid as number;
    leftovers.push(leader);
    expect(isRunning(leader)).toBe(true);
    holder.kill('SIGKILL');
    expect(await stopsRunning(leader), `child ${leader} outlived the supervisor`).toBe(true);
  });
});
