/**
 * A FIFO planted at the local key path (by anyone who can write the state root) is refused like
 * any other file that is not a regular one: opening it must not wait for a writer, or `serve`
 * and every CLI call would hang at startup instead of saying what is wrong.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLocalKey } from '../../services/runtime/local-key.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { createScope, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

describe('local key file', () => {
  it('a FIFO at the path is refused at once, not waited on', async () => {
    const root = await tempStateRoot(scope);
    const fifo = path.join(root, 'local-api-key');
    const made = recordSyncOutput('mkfifo', spawnSync('mkfifo', ['-m', '600', fifo], { encoding: 'utf8' }));
    expect(made.status).toBe(0);
    // Should the open block, a writer end releases it so the worker can exit.
    scope.defer(fifo, (p) => {
      try {
        closeSync(openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waiting: nothing to release
      }
    });
    const outcome = await Promise.race([
      readLocalKey(fifo).then(
        () => 'read',
        (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`,
      ),
      new Promise<string>((r) => setTimeout(() => r('still waiting after 2 s'), 2000)),
    ]);
    expect(outcome).toBe(`local_key_unsafe: ${fifo} is not a regular file; remove it or set ARGUS_SUPERVISOR_API_KEY`);
  });
});
