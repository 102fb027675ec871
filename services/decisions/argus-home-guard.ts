/**
 * The Argus bridge as the decision runtime hands it out: Argus's HOME (`<home>/home`, 0700)
 * is created before the first call, not when the runtime is built (building starts nothing
 * and writes nothing; see decision-runtime.ts).
 * @module
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ArgusBridge, Outcome } from '../../adapters/argus/index.js';

/** Creates the Argus HOME (`<home>/home`, 0700) before the first call, not at construction. */
export function withHome(bridge: ArgusBridge, home: string): ArgusBridge {
  let made = false;
  const guard = <T>(call: () => Promise<Outcome<T>>): Promise<Outcome<T>> => {
    if (!made) {
      try {
        mkdirSync(path.join(home, 'home'), { recursive: true, mode: 0o700 });
        made = true;
      } catch {
        // A runtime outcome (the adapters' code), never an API answer: the chart maps it to a reason.
        return Promise.resolve({ ok: false, error: { code: 'argus_unavailable', message: 'The Argus home folder could not be created.' } });
      }
    }
    return call();
  };
  return {
    createProject: (workdir, name) => guard(() => bridge.createProject(workdir, name)),
    message: (projectId, text) => guard(() => bridge.message(projectId, text)),
    status: (projectId) => guard(() => bridge.status(projectId)),
    stop: (projectId, force) => guard(() => bridge.stop(projectId, force)),
    close: () => bridge.close(),
  };
}
