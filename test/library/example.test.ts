/**
 * docs/library.md's example runs as written: its code block, byte for byte, in a child Node
 * process that imports the package by its name (the built dist/index.js, through a
 * node_modules link), against the bundled simulator on loopback running the `blocker`
 * scenario. It prints what the doc says it prints, and the remote saw exactly one claim, one
 * answer and one release.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

const run = promisify(execFile);

async function docBlocks(): Promise<{ code: string; output: string[] }> {
  const doc = await readFile(path.join(REPO_ROOT, 'docs/library.md'), 'utf8');
  const section = doc.split('## Example')[1]?.split('\n## ')[0] ?? '';
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  const output = /It prints[^\n]*\n\n```\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code || !output) throw new Error('docs/library.md lost its example or its output block');
  return { code, output: output.trimEnd().split('\n') };
}

/** A documented line as a pattern: `…` stands for cut text, an ISO time for any time. */
function linePattern(line: string): RegExp {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\\\.\d{3}Z/g, '\\S+').replace(/ …/g, ' .*')}$`);
}

let scratch: string;
let sim: RunningSimulator;

beforeAll(async () => {
  scratch = await scratchDir('library-example-');
  await mkdir(path.join(scratch, 'node_modules'));
  // The package by its name, as a host that installed it imports it (the scan skips symlinks).
  await symlink(REPO_ROOT, path.join(scratch, 'node_modules', 'argus-supervisor'), 'dir');
  sim = await startSimulator({ port: 0, scenario: 'blocker', pollsPerStage: 1 });
});

afterAll(async () => {
  await sim?.close();
  if (scratch) await removeScratch(scratch);
});

describe('docs/library.md', () => {
  it('runs its example as written against the simulator and prints what it says', async () => {
    const { code, output } = await docBlocks();
    const file = path.join(scratch, 'example.mjs');
    await writeFile(file, code);
    const [taskId] = sim.createTasks(1, 'blocker');
    const child = await run(process.execPath, [file], {
      cwd: scratch,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        ARGUS_SUPERVISOR_ENABLED: '1',
        OPENTRAINING_A2A_URL: sim.url,
        ARGUS_SUPERVISOR_STATE_ROOT: path.join(scratch, 'state'),
        TRAINING_TASK_ID: taskId!,
      },
    });
    expect(child.stderr).toBe('');
    const printed = child.stdout.trimEnd().split('\n');
    // Events reach their listener asynchronously: the lines may interleave, so each documented
    // line must match one printed line, and nothing else is printed.
    expect(printed).toHaveLength(output.length);
    for (const line of output) expect(printed.some((p) => linePattern(line).test(p)), `printed ${JSON.stringify(printed)} has ${line}`).toBe(true);

    const applied = sim.stats().mutationsApplied;
    expect(applied).toMatchObject({ claim: 1, answer: 1, release: 1, submit: 0, cancel: 0, intervene: 0 });
    // The stale release was refused before it left the supervisor.
    expect(sim.stats().staleMutationsRejected).toBe(0);
  });
});
