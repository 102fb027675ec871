/**
 * Shared set-up for the decision-runtime tests: a scratch state root, a config loaded the way
 * `serve` loads it, fresh metrics, and a fake interpreter layout (a venv-shaped folder whose
 * "python" is a script that only leaves a marker if anything ever runs it).
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createMetrics, type SupervisorMetrics } from '../../services/metrics/metrics.js';
import { loadConfig, type SupervisorConfig } from '../../services/config/config.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

export interface DecisionScratch {
  root: string;
  config(env?: Record<string, string>): SupervisorConfig;
  /** A venv-shaped prefix: `<prefix>/bin/python` (executable, never meant to run) and optional packages. */
  venv(name: string, packages?: string[], mode?: number): { python: string; marker: string };
  dispose(): Promise<void>;
}

export async function decisionScratch(): Promise<DecisionScratch> {
  const root = await scratchDir('argus-decisions-');
  const stateRoot = path.join(root, 'state');
  return {
    root,
    config: (env = {}) => loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: stateRoot, ...env }),
    venv(name, packages = [], mode = 0o755) {
      const prefix = path.join(root, name);
      const marker = path.join(root, `${name}.ran`);
      mkdirSync(path.join(prefix, 'bin'), { recursive: true });
      const python = path.join(prefix, 'bin', 'python');
      // If availability ever started this "interpreter", the marker would exist.
      writeFileSync(python, `#!/bin/sh\ntouch '${marker}'\n`);
      chmodSync(python, mode);
      for (const file of packages) {
        const full = path.join(prefix, 'lib', 'python3.11', 'site-packages', file);
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, '# placeholder: only its presence is checked\n');
      }
      return { python, marker };
    },
    dispose: () => removeScratch(root),
  };
}

export const freshMetrics = (): SupervisorMetrics => createMetrics({ defaultMetrics: false });

export async function modelCalls(metrics: SupervisorMetrics, runtime: 'argus' | 'foreman'): Promise<number> {
  return (await metrics.modelCalls.get()).values.find((v) => v.labels.runtime === runtime)?.value ?? 0;
}

export const ranMarker = (marker: string): boolean => existsSync(marker);
