/**
 * The Foreman sentinel adapter: observation builder, one-shot runner, child environment, and
 * where the Python files live.
 *
 * The shim (runtime/foreman_shim.py) and the simulated Foreman (simulator/foreman/fake_foreman.py)
 * are not TypeScript, so `tsc` does not copy them into dist/. They are resolved relative to the
 * package root (the folder whose package.json is argus-supervisor), which works the same from
 * the source tree, from dist/, and from an installed package (package.json "files" lists
 * `runtime` and `simulator/foreman/*.py`).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export * from './foreman-runner.js';
export * from './observation.js';

/** Walks up from this module to the package root (source: 2 levels, dist/: 3). */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 5; i++) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'argus-supervisor') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    dir = path.dirname(dir);
  }
  throw new Error('argus-supervisor package root not found above the Foreman adapter.');
}

/** The real shim, run in ARGUS_SUPERVISOR_FOREMAN_PYTHON (the /opt/venv-foreman interpreter). */
export function foremanShimPath(root: string = packageRoot()): string {
  return path.join(root, 'runtime', 'foreman_shim.py');
}

/** The SIMULATED Foreman (same stdin/stdout contract), for tests and the demo. */
export function fakeForemanPath(root: string = packageRoot()): string {
  return path.join(root, 'simulator', 'foreman', 'fake_foreman.py');
}
