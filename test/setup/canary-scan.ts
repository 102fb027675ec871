/**
 * Global setup and teardown of the canary scan. Setup opens one run directory and points
 * every temp root of the run at it: `TMPDIR` is set before any worker is forked, so
 * `os.tmpdir()` in every test, and in every child that inherits the environment, lands there.
 * Tests never delete what they made (test/fixtures/scratch.ts defers it), so teardown sees
 * everything the run wrote: state roots, documents, event journals, corrupt reports, captured
 * logs and console output, each child's stdout and stderr, and `coverage/`. It fails the run
 * if any canary issued during the run appears in any of them, in any form, naming the file and
 * the form but never the value. Environment variables are not files and are not scanned.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCanaries, needlesFor, type Leak } from './canary-match.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The list of issued values is the one file that must contain them. */
const CANARY_LIST = 'canaries.txt';

export interface FileLeak extends Leak {
  file: string;
}

/** Regular files under `root`, recursively; symlinks (a node_modules link), sockets and FIFOs are skipped. */
async function* regularFiles(root: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return; // gone or unreadable: nothing to scan
  }
  for (const entry of entries) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) yield* regularFiles(full);
    else if (entry.isFile()) yield full;
  }
}

/** Every canary found under the given roots (a missing root is skipped), and how many files were read. */
export async function scanRoots(roots: string[], canaries: string[], exclude: Set<string>): Promise<{ leaks: FileLeak[]; files: number }> {
  const needles = needlesFor(canaries);
  const leaks: FileLeak[] = [];
  let files = 0;
  for (const root of roots) {
    for await (const file of regularFiles(root)) {
      if (exclude.has(file)) continue;
      files++;
      // latin1 keeps every byte as one character; canaries are ASCII, so nothing is lost.
      const content = await readFile(file, 'latin1').catch(() => '');
      for (const leak of findCanaries(content, needles)) leaks.push({ ...leak, file });
    }
  }
  return { leaks, files };
}

export async function setup(): Promise<() => Promise<void>> {
  const runDir = await mkdtemp(path.join(tmpdir(), 'argus-test-run-'));
  const previousTmp = process.env.TMPDIR;
  process.env.ARGUS_TEST_RUN_DIR = runDir;
  process.env.TMPDIR = runDir;

  return async () => {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    delete process.env.ARGUS_TEST_RUN_DIR;
    const list = await readFile(path.join(runDir, CANARY_LIST), 'utf8').catch(() => '');
    const canaries = list.split('\n').filter(Boolean);
    const coverage = path.join(REPO_ROOT, 'coverage');
    const { leaks, files } = await scanRoots([runDir, coverage], canaries, new Set([path.join(runDir, CANARY_LIST)]));
    if (leaks.length === 0) {
      process.stderr.write(`canary scan: ${canaries.length} canaries, ${files} files, no leak\n`);
      await rm(runDir, { recursive: true, force: true });
      return;
    }
    for (const leak of leaks) {
      const where = leak.file.startsWith(runDir) ? `<run>/${path.relative(runDir, leak.file)}` : path.relative(REPO_ROOT, leak.file);
      process.stderr.write(`canary scan: ${leak.masked} found ${leak.form} in ${where}\n`);
    }
    process.stderr.write(`canary scan: ${leaks.length} leak(s) of ${canaries.length} canaries; run directory kept at ${runDir}\n`);
    process.exitCode = 1;
  };
}
