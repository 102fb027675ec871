/**
 * A benchmark or chaos harness stopped by SIGTERM takes its tracked children with it (an aborted
 * `npm run chaos` used to leave its `serve` replicas and simulators running).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../../persistence/owner-lock.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const MODULE = fileURLToPath(new URL('../../dist/bench/child-processes.js', import.meta.url));

// A harness in miniature: two tracked sleepers, one untracked, the handler installed; it prints the pids.
const HARNESS = `
import { spawn } from 'node:child_process';
const { tracked, stopChildrenOnSignal } = await import(${JSON.stringify(MODULE)});
const sleeper = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
const kids = [tracked(sleeper()), tracked(sleeper())];
const loose = sleeper();
stopChildrenOnSignal();
process.stdout.write(JSON.stringify({ tracked: kids.map((k) => k.pid), loose: loose.pid }) + '\\n');
setInterval(() => {}, 1000);
`;

describe('child processes of a harness', () => {
  it('SIGTERM kills every tracked child and exits 143; an untracked one is left alone', async () => {
    const harness = recordChildOutput(spawn(process.execPath, ['--input-type=module', '-e', HARNESS], { stdio: ['ignore', 'pipe', 'pipe'] }), 'child-processes');
    const pids = await new Promise<{ tracked: number[]; loose: number }>((resolve, reject) => {
      harness.stdout.setEncoding('utf8').once('data', (line: string) => resolve(JSON.parse(line)));
      harness.once('error', reject);
    });
    let stderr = '';
    harness.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => harness.once('exit', (code) => resolve(code)));
    try {
      expect(pids.tracked.every(pidAlive)).toBe(true);
      harness.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(stderr).toContain('stopped by SIGTERM: 2 child process(es) killed');
      for (let i = 0; i < 50 && pids.tracked.some(pidAlive); i++) await new Promise((r) => setTimeout(r, 20));
      expect(pids.tracked.filter(pidAlive)).toEqual([]);
      expect(pidAlive(pids.loose)).toBe(true);
    } finally {
      for (const pid of [...pids.tracked, pids.loose]) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
