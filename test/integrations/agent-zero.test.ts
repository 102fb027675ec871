/**
 * The Agent Zero plugin's own tests (integrations/agent-zero, Python's unittest, standard library
 * only) run under `npm test`: one python3 child, its output recorded for the canary scan.
 *
 * The key is a canary written to a 0600 key file, which the Python tests copy as each state
 * root's `local-api-key` (serve reuses it). Two more canaries stand for what the host provides:
 * an A2A token and a key (test_authority.py puts them in the host's environment and secrets
 * stand-in; the sidecar hands them to serve as files). The token may be in no file of any state
 * root; the host key only in `plugin/api-key` files. A key file must hold the key, so those state roots
 * live outside the run directory (the end-of-run scan would report the key file itself); this
 * test scans them here instead, every file but the key files, and the recorded output is in the
 * run directory for the global scan.
 *
 * python3 runs as the leader of its own process group; if the test's timeout fires, afterAll
 * SIGKILLs that group, and each `serve` the Python tests started (in sessions of their own)
 * goes with it through its parent-death signal, so no orphan outlives the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { removeScratch } from '../fixtures/scratch.js';
import { findCanaries, needlesFor } from '../setup/canary-match.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PLUGIN_ROOT = path.join(REPO, 'integrations', 'agent-zero');
const keyFileName = 'local-api-key';
const hostKeyFileName = 'api-key';

/** Outside the run directory (os.tmpdir() is the run directory during a run): see above. */
const keyHome = mkdtempSync(path.join('/tmp', 'argus-a0-key-'));
let python: ChildProcess | undefined;
afterAll(() => {
  // Still running only when the test timed out: end python and its whole group.
  if (python?.pid !== undefined && python.exitCode === null && python.signalCode === null) {
    try {
      process.kill(-python.pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  }
  removeScratch(keyHome);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full);
    return e.isFile() ? [full] : [];
  });
}

describe('the Agent Zero plugin (python3 -m unittest discover)', () => {
  it('passes every Python test, and the key stays in its key files', async () => {
    const key = canary('a0-key');
    const keyFile = path.join(keyHome, 'test-key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const token = canary('a0-host-token');
    const tokenFile = path.join(keyHome, 'test-token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const hostKey = canary('a0-host-key');
    const hostKeyFile = path.join(keyHome, 'test-host-key');
    writeFileSync(hostKeyFile, `${hostKey}\n`, { mode: 0o600 });
    chmodSync(keyHome, 0o700);
    const stateBase = mkdtempSync(path.join(keyHome, 'roots-'));
    const child = recordChildOutput(
      spawn('python3', ['-m', 'unittest', 'discover', '-v'], {
        cwd: PLUGIN_ROOT,
        // Paths only: the key reaches the tests through the file.
        env: {
          PATH: process.env.PATH ?? '',
          TMPDIR: process.env.TMPDIR ?? '/tmp',
          PYTHONDONTWRITEBYTECODE: '1',
          ARGUS_A0_SERVE_ENTRY: path.join(REPO, 'dist', 'bin', 'argus-supervisor.js'),
          ARGUS_A0_REQUIRE_SERVE: '1',
          ARGUS_A0_TEST_KEY_FILE: keyFile,
          ARGUS_A0_TEST_TOKEN_FILE: tokenFile,
          ARGUS_A0_TEST_HOST_KEY_FILE: hostKeyFile,
          ARGUS_A0_STATE_BASE: stateBase,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, so afterAll can end the group
      }),
      'agent-zero-unittest',
    );
    python = child;
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toMatch(/^Ran \d+ tests in [\d.]+s$/m);
    expect(output, output.slice(-4000)).toMatch(/^OK$/m);
    expect(code).toBe(0);
    expect(Number(/^Ran (\d+) tests/m.exec(output)?.[1])).toBeGreaterThanOrEqual(30);
    expect(output).not.toMatch(/skipped/i);

    // Every state root the tests made: the key only in local-api-key files.
    const files = filesUnder(stateBase);
    const keyFiles = files.filter((f) => path.basename(f) === keyFileName);
    expect(keyFiles.length).toBeGreaterThanOrEqual(3);
    for (const f of keyFiles) expect(readFileSync(f, 'utf8').trim()).toBe(key);
    const hostKeyFiles = files.filter((f) => path.basename(f) === hostKeyFileName);
    expect(hostKeyFiles.length).toBeGreaterThanOrEqual(1);
    for (const f of hostKeyFiles) expect(readFileSync(f, 'utf8').trim()).toBe(hostKey);
    const others = files.filter((f) => path.basename(f) !== keyFileName && path.basename(f) !== hostKeyFileName);
    expect(others.some((f) => f.endsWith('serve.log'))).toBe(true);
    expect(others.some((f) => f.endsWith('watch-cursor.json'))).toBe(true);
    const needles = needlesFor([key, hostKey, token]);
    const leaks = others.filter((f) => findCanaries(readFileSync(f, 'latin1'), needles).length > 0);
    expect(leaks.map((f) => path.relative(stateBase, f))).toEqual([]);
  }, 90_000);
});
