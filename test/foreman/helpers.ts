/** Shared set-up for the Foreman tests: a scratch state root, the child env, and facts. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForemanAttemptFact, ForemanCampaignFacts } from '../../adapters/foreman/index.js';
import { recordSyncOutput } from '../fixtures/child-output.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const STUB_PATH = path.join(REPO_ROOT, 'test', 'fixtures', 'foreman_stub');
/**
 * The interpreter itself, not a launcher on PATH: a pyenv shim is a shell script that adds its
 * own PYENV_* variables, which would blur the exact-environment checks.
 */
export const PYTHON = recordSyncOutput('python-executable', {
  stdout: execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }),
  stderr: '',
}).stdout.trim();

export function attempt(over: Partial<ForemanAttemptFact> = {}): ForemanAttemptFact {
  return { attemptId: 'att-1', status: 'completed', attempt: 1, exitCode: 0, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T01:00:00Z', elapsedSeconds: 3600, outputTail: 'epoch 10 loss 0.12', ...over };
}

export function facts(over: Partial<ForemanCampaignFacts> = {}): ForemanCampaignFacts {
  return {
    campaignId: 'camp-1',
    objective: 'Train the model to 0.9 accuracy',
    status: 'RUNNING',
    assessment: 1,
    attempts: [attempt()],
    activeAttemptIds: [],
    latestStatusText: 'attempt completed',
    artifacts: ['model.ckpt'],
    metrics: [],
    evaluations: [],
    recentEvents: [],
    failures: [],
    elapsedSeconds: 3600,
    previousDirective: null,
    ...over,
  };
}

/** A sanitizer for tests that do not exercise hostile text (the real one is sanitizeRemoteText). */
export const plainCap = (text: string, cap: number): string => text.slice(0, cap);
